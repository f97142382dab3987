// uint8 MatMul on the uint8 GEMM of Conv2D (cpu/conv_2d_uint8_gemm.h), with
// its zero-point corrections and fused output step: C = A B with A [rows,
// depth] and B [depth, cols] is the 1x1 convolution of one image of `cols`
// positions and `depth` channels (B) by the filter A, whose output channels
// are C's rows. Transposed operands are copied into that layout first. The
// results equal ref::quantized::MatMul bit for bit.
#ifndef MACE_OPS_CPU_MAT_MUL_UINT8_GEMM_H_
#define MACE_OPS_CPU_MAT_MUL_UINT8_GEMM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "mace/ops/cpu/conv_2d_uint8_gemm.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/quantized/mat_mul.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class MatMulUint8Gemm {
 public:
  // One product of `shape` (its batch is ignored: one matrix each of A, B
  // and C), quantized as for ref::quantized::MatMul: input_zero_point is
  // A's, filter_zero_point B's, one multiplier.
  MatMulUint8Gemm(const KernelTable& table, const ref::quantized::MatMulShape& shape,
                  const ref::quantized::ConvQuantization& quant);

  // Packs A (again only where `a` differs from the last call's or
  // `a_changed`). False, with nothing written, where the table has no uint8
  // GEMM or the depth is too great for its exact int32 sums: the caller
  // then runs the reference kernel.
  bool Run(const uint8_t* a, bool a_changed, const uint8_t* b, uint8_t* output,
           ThreadPool* pool);

 private:
  const KernelTable& table_;
  ref::quantized::MatMulShape shape_;
  ref::quantized::ConvQuantization quant_;
  ref::Conv2DParams conv_;
  std::unique_ptr<Conv2dUint8Gemm> gemm_;
  const uint8_t* packed_a_ = nullptr;  // the A gemm_ was made from
  bool unavailable_ = false;  // no GEMM for this shape and table
  std::vector<uint8_t> a_rows_;  // A as [rows, depth] where it is transposed
  std::vector<uint8_t> b_rows_;  // B as [depth, cols] where it is transposed
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_MAT_MUL_UINT8_GEMM_H_
