// FullyConnected of one input row (batch 1) on the kernel table's uint8
// matrix-vector product (quantized_micro_kernels.h): the weight, as int8
// (uint8 weights shifted down by 128) in rows padded with zeros to
// kQuantGemvDepth, is packed at Create with each row's sum; Run copies the
// input into a padded vector, takes its sum, and threads split the rows.
// With w = w8 + offset (offset 128 for uint8 weights, else 0),
//   sum (x - zx)(w - zw) = sum x w8 + (offset - zw) sum x
//                          - zx sum w8 - depth zx (offset - zw),
// which with the bias is exact in int64 and requantized with the rule of
// common/quantize.h. The results equal ref::quantized::FullyConnected bit
// for bit.
#ifndef MACE_OPS_CPU_FULLY_CONNECTED_UINT8_GEMV_H_
#define MACE_OPS_CPU_FULLY_CONNECTED_UINT8_GEMV_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/quantized/mat_mul.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class FullyConnectedUint8Gemv {
 public:
  // Null unless the table has the matrix-vector kernel, the batch is 1 and
  // the depth is at most kQuantGemvMaxDepth. `weight` is [units, depth],
  // uint8 unless `int8_weight`.
  static std::unique_ptr<FullyConnectedUint8Gemv> Create(
      const KernelTable& table, const ref::quantized::FullyConnectedShape& shape,
      const ref::quantized::ConvQuantization& quant, const void* weight, bool int8_weight);

  // `pool` may be null (one thread).
  void Run(const uint8_t* input, const int32_t* bias, uint8_t* output, ThreadPool* pool);

  // Bytes kept for the op's lifetime: packed weights, sums and the input.
  int64_t HeldBytes() const { return VectorBytes(weight_, row_sums_, vector_, sums_); }

 private:
  FullyConnectedUint8Gemv() = default;

  QuantizedGemvKernel gemv_ = nullptr;
  ref::quantized::FullyConnectedShape shape_;
  ref::quantized::ConvQuantization quant_;
  int64_t padded_depth_ = 0;
  int32_t offset_ = 0;             // added back to the packed weights
  std::vector<int8_t> weight_;     // [units][padded_depth_]
  std::vector<int64_t> row_sums_;  // per unit: sum of its packed weights
  std::vector<uint8_t> vector_;    // the input, padded with zeros
  std::vector<int32_t> sums_;      // per unit
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_FULLY_CONNECTED_UINT8_GEMV_H_
