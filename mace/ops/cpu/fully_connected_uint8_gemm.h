// FullyConnected on the uint8 GEMM of Conv2D (cpu/conv_2d_uint8_gemm.h): a
// fully connected layer over `batch` rows of `depth` values is a 1x1
// convolution of `batch` images of one position with `depth` channels, and
// its weight [units, depth] is that convolution's filter. The results equal
// ref::quantized::FullyConnected bit for bit. Each image is one GEMM column
// (padded to the micro-kernel's width), so a batch of one uses a 32nd of
// the tile; it still beats the scalar reference kernel.
#ifndef MACE_OPS_CPU_FULLY_CONNECTED_UINT8_GEMM_H_
#define MACE_OPS_CPU_FULLY_CONNECTED_UINT8_GEMM_H_

#include <memory>

#include "mace/ops/cpu/conv_2d_uint8_gemm.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/quantized/mat_mul.h"

namespace mace {
namespace ops {

// Null where Conv2dUint8Gemm::Create gives none (no uint8 GEMM, or a
// reduction too deep for exact int32 sums).
inline std::unique_ptr<Conv2dUint8Gemm> MakeFullyConnectedGemm(
    const KernelTable& table, const ref::quantized::FullyConnectedShape& shape,
    const ref::quantized::ConvQuantization& quant, const void* weight, bool int8_weight) {
  ref::Conv2DParams p;
  p.batch = shape.batch;
  p.in_channels = shape.depth;
  p.in_h = p.in_w = 1;
  p.out_channels = shape.units;
  p.out_h = p.out_w = 1;
  p.kernel_h = p.kernel_w = 1;
  return Conv2dUint8Gemm::Create(table, p, quant, weight, int8_weight);
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_FULLY_CONNECTED_UINT8_GEMM_H_
