// The ARM port's uint8 kernels: the NEON pair GEMM, its output step and the
// 3x3 depthwise rows; on arm64 with the ARMv8.2 dot product, the quad GEMM.
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/arm/quantized_neon_kernels.h"
#include "mace/ops/cpu/kernel_tables.h"

namespace mace {
namespace ops {

bool PortFillUint8Kernels(KernelIsa isa, const CpuFeatures& features, Uint8Kernels* k) {
  if (isa != KernelIsa::kNeon) return false;
  k->quantized_gemm = arm::NeonQuantizedGemm;
  k->quantized_format = kQuantPairsInt16;
  k->requantize_row = arm::NeonRequantizeRow;
  k->depthwise3x3_uint8_s1 = arm::NeonDepthwiseUint8S1;
  k->depthwise3x3_uint8_s2 = arm::NeonDepthwiseUint8S2;
#if defined(__aarch64__)
  if (features.neon_dotprod) {
    k->quantized_gemm = arm::DotprodQuantizedGemm;
    k->quantized_format = kQuantQuadsUint8Unsigned;
  }
#else
  (void)features;
#endif
  return true;
}

}  // namespace ops
}  // namespace mace
