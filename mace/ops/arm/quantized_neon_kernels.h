// The uint8 GEMM micro-kernels for ARM (QuantizedGemmKernel, see
// mace/ops/cpu/quantized_micro_kernels.h), reached through
// mace/ops/cpu/kernel_table.cc.
#ifndef MACE_OPS_ARM_QUANTIZED_NEON_KERNELS_H_
#define MACE_OPS_ARM_QUANTIZED_NEON_KERNELS_H_

#include "mace/ops/cpu/quantized_micro_kernels.h"

namespace mace {
namespace ops {
namespace arm {

// kQuantPairsInt16 with widening multiply-accumulate (vmlal.s16 / smlal),
// on arm64 and armv7.
void NeonQuantizedGemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                       int64_t cols, int32_t* c);

// kQuantQuadsUint8Unsigned with the ARMv8.2 dot product (udot), on arm64
// CPUs whose HWCAP has ASIMDDP; built with +dotprod in its own library.
void DotprodQuantizedGemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                          int64_t cols, int32_t* c);

// The uint8 GEMM's output step (RequantizeRowKernel), 8 values at a time,
// on arm64 and armv7.
void NeonRequantizeRow(const RequantizeRow& row);

// Rows of a 3x3 uint8 depthwise convolution (DepthwiseUint8RowKernel), by
// horizontal stride, with widening multiply-accumulate (vmlal.s16 /
// smlal), on arm64 and armv7.
void NeonDepthwiseUint8S1(const DepthwiseUint8Row& row);
void NeonDepthwiseUint8S2(const DepthwiseUint8Row& row);

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ARM_QUANTIZED_NEON_KERNELS_H_
