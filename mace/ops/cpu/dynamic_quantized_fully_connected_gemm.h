// DynamicQuantizedFullyConnected on the kernel table's uint8 GEMM
// (quantized_micro_kernels.h), in every word format. The GEMM's A is the
// input: each run quantizes its rows (ref::QuantizeRowDynamic, or the whole
// tensor with ref::QuantizeTensorDynamic) into A's words, one row per
// input row. Its B is the int8 or uint8 weight, one column per output
// feature, packed once at Create into L2-sized blocks of columns; the
// weight's zero points enter the per-column corrections. Threads split
// (column block, row piece) items; each finishes its own outputs,
// contiguous along the features, from the int32 sums and the per-row and
// per-feature corrections the format needs, with ref::DynamicOutput. The
// sums equal the reference kernel's exactly.
#ifndef MACE_OPS_CPU_DYNAMIC_QUANTIZED_FULLY_CONNECTED_GEMM_H_
#define MACE_OPS_CPU_DYNAMIC_QUANTIZED_FULLY_CONNECTED_GEMM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/ref/dynamic_quantized_fully_connected.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class DynamicInt8Gemm {
 public:
  // Null where the table has no uint8 GEMM or the reduction is so deep
  // that the int32 sums could overflow. `weight` is [units][depth]. The
  // input rows are quantized by `row_kernels`' row_range and quantize_row
  // (the portable ones when null), bit for bit the reference.
  static std::unique_ptr<DynamicInt8Gemm> Create(const KernelTable& table, int64_t units,
                                                 int64_t depth, const ref::DynamicWeight& weight,
                                                 const TransformerKernels* row_kernels = nullptr);

  // `p` must have this GEMM's units and depth; `pool` may be null.
  // `per_tensor`: one scale and zero point for the whole input.
  void Run(const ref::FullyConnectedParams& p, const float* input, bool per_tensor,
           const float* weight_scale, const float* bias, float* output, ThreadPool* pool);

  int64_t HeldBytes() const;

 private:
  DynamicInt8Gemm() = default;
  // Quantizes the input rows into packed_input_ and fills the per-row
  // terms.
  void PackInput(const float* input, int64_t batch, bool per_tensor, ThreadPool* pool);

  // A row's range, by the row kernels.
  ref::DynamicRange RowRange(const float* row, int64_t count) const;

  QuantizedGemmKernel gemm_ = nullptr;
  const TransformerKernels* row_kernels_ = nullptr;
  QuantGemmFormat format_ = kQuantPairsInt16;
  int64_t units_ = 0, depth_ = 0;
  int64_t per_word_ = 2;  // k values per packed word
  int64_t words_ = 0;     // packed words per row or column
  int64_t cols_ = 0;      // units, padded to kQuantGemmCols
  int64_t width_ = 0;     // columns per block (the last one may be narrower)
  // Blocks of [words_][block width] words: the weight as the format wants it.
  std::vector<int32_t> packed_weight_;
  std::vector<int32_t> weight_sums_;   // per unit: sum_k B over the depth
  std::vector<int32_t> weight_zeros_;  // per unit: B's offset + the zero point
  // Each run's weight scales and bias (0 without), padded to cols_.
  std::vector<float> weight_scales_, bias_;
  // Per run, for its batch (rows_ padded to kQuantGemmRows): the input rows
  // as A words [rows_][words_], the quantized rows, each row's scale and
  // whether it was finite, and its terms: sum = C + row_factor *
  // weight_sums_[unit] + row_term * weight_zeros_[unit] (modulo 2^32).
  int64_t rows_ = 0;
  // A's words as bytes (int16 pairs or bytes, as the format wants them).
  std::vector<uint8_t> packed_input_;
  std::vector<uint8_t> rows_q_;
  std::vector<ref::DynamicRow> row_params_;
  std::vector<ref::DynamicRange> row_ranges_;  // per tensor: each row's range
  std::vector<int32_t> row_terms_;
  std::vector<int32_t> row_factors_;
  std::vector<int32_t> sums_;  // per thread: [kPieceRows][width_]
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DYNAMIC_QUANTIZED_FULLY_CONNECTED_GEMM_H_
