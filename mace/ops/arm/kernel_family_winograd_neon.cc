// The ARM port's Winograd transforms (NEON), F(6x6) runs included.
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/cpu/kernel_tables.h"

namespace mace {
namespace ops {

bool PortFillWinogradKernels(KernelIsa isa, const CpuFeatures& /*features*/,
                             WinogradKernels* k) {
  if (isa != KernelIsa::kNeon) return false;
  k->winograd_input = arm::NeonWinogradInput;
  k->winograd_output = arm::NeonWinogradOutput;
  k->winograd_max_tile = 6;
  return true;
}

}  // namespace ops
}  // namespace mace
