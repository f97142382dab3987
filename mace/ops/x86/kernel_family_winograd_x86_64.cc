// The x86-64 port's Winograd transforms: AVX2 and AVX-512 (F(6x6) through
// memory, so the cost model stops at F(4x4)).
#include "mace/ops/cpu/kernel_tables.h"
#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {

bool PortFillWinogradKernels(KernelIsa isa, const CpuFeatures& /*features*/,
                             WinogradKernels* k) {
  if (isa == KernelIsa::kAvx2Fma) {
    k->winograd_input = x86::Avx2WinogradInput;
    k->winograd_output = x86::Avx2WinogradOutput;
    k->winograd_filter = x86::Avx2WinogradFilter;
    return true;
  }
  if (isa == KernelIsa::kAvx512) {
    k->winograd_input = x86::Avx512WinogradInput;
    k->winograd_output = x86::Avx512WinogradOutput;
    k->winograd_filter = x86::Avx512WinogradFilter;
    return true;
  }
  return false;
}

}  // namespace ops
}  // namespace mace
