// The ARM port's 3x3 depthwise bands (NEON).
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/cpu/kernel_tables.h"

namespace mace {
namespace ops {

bool PortFillDepthwiseKernels(KernelIsa isa, const CpuFeatures& /*features*/,
                              DepthwiseKernels* k) {
  if (isa != KernelIsa::kNeon) return false;
  k->depthwise3x3_s1 = arm::NeonDepthwise3x3S1;
  k->depthwise3x3_s2 = arm::NeonDepthwise3x3S2;
  return true;
}

}  // namespace ops
}  // namespace mace
