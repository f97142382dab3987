// The x86-64 port's 3x3 depthwise bands: AVX2 and AVX-512.
#include "mace/ops/cpu/kernel_tables.h"
#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {

bool PortFillDepthwiseKernels(KernelIsa isa, const CpuFeatures& /*features*/,
                              DepthwiseKernels* k) {
  if (isa == KernelIsa::kAvx2Fma) {
    k->depthwise3x3_s1 = x86::Avx2Depthwise3x3S1;
    k->depthwise3x3_s2 = x86::Avx2Depthwise3x3S2;
    return true;
  }
  if (isa == KernelIsa::kAvx512) {
    k->depthwise3x3_s1 = x86::Avx512Depthwise3x3S1;
    k->depthwise3x3_s2 = x86::Avx512Depthwise3x3S2;
    return true;
  }
  return false;
}

}  // namespace ops
}  // namespace mace
