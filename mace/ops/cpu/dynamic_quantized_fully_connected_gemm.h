// DynamicQuantizedFullyConnected on the kernel table's uint8 GEMM
// (quantized_micro_kernels.h), in every word format: the int8 weight is the
// GEMM's A (rows: output features), packed once at Create; each run
// quantizes the input rows (ref::QuantizeRowDynamic), packs them as B (one
// column per input row) in L2-sized blocks of columns, and threads split
// (column block, row piece) items, each finishing its own outputs from the
// int32 sums and the zero-point corrections with ref::DynamicOutput. The
// sums equal the reference kernel's exactly.
#ifndef MACE_OPS_CPU_DYNAMIC_QUANTIZED_FULLY_CONNECTED_GEMM_H_
#define MACE_OPS_CPU_DYNAMIC_QUANTIZED_FULLY_CONNECTED_GEMM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/dynamic_quantized_fully_connected.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class DynamicInt8Gemm {
 public:
  // Null where the table has no uint8 GEMM or the reduction is so deep
  // that its int32 sums could overflow. `weight` is [units][depth].
  static std::unique_ptr<DynamicInt8Gemm> Create(const KernelTable& table, int64_t units,
                                                 int64_t depth, const int8_t* weight);

  // `p` must have this GEMM's units and depth; `pool` may be null.
  void Run(const ref::FullyConnectedParams& p, const float* input,
           const float* weight_scale, const float* bias, float* output, ThreadPool* pool);

  int64_t HeldBytes() const;

 private:
  DynamicInt8Gemm() = default;
  // Quantizes the rows and packs them into blocks of width_ columns.
  void PackInput(const float* input, int64_t batch, ThreadPool* pool);

  QuantizedGemmKernel gemm_ = nullptr;
  QuantGemmFormat format_ = kQuantPairsInt16;
  int64_t units_ = 0, depth_ = 0;
  int64_t per_word_ = 2;  // k values per packed word
  int64_t words_ = 0;     // packed words per row or column
  int64_t rows_ = 0;      // units, padded to kQuantGemmRows
  std::vector<int32_t> packed_weight_;  // [rows_][words_]
  std::vector<int32_t> weight_sums_;    // per unit: sum_k w (the quads' correction)
  // Per run, for its batch: the quantized rows and how; per row the scale,
  // the zero point the quads correct for (0 for the pairs) and the unsigned
  // quads' -128 sum_k q (else 0).
  std::vector<uint8_t> rows_q_;
  std::vector<ref::DynamicRow> row_params_;
  std::vector<float> row_scales_;
  std::vector<int32_t> zero_points_;
  std::vector<int32_t> column_terms_;
  int64_t cols_ = 0;   // batch, padded to kQuantGemmCols
  int64_t width_ = 0;  // columns per block (the last one may be narrower)
  std::vector<int32_t> packed_input_;  // blocks of [words_][block width]
  std::vector<int32_t> sums_;          // per thread: [kPieceRows][width_]
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DYNAMIC_QUANTIZED_FULLY_CONNECTED_GEMM_H_
