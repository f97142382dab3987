// The ARM port's channel-blocked kernels: blocks of 4 channels. Not the
// default layout on ARM (blocked_layout_pays stays false): qemu counts more
// instructions per inference with it.
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/cpu/kernel_tables.h"

namespace mace {
namespace ops {

bool PortFillBlockedKernels(KernelIsa isa, const CpuFeatures& /*features*/,
                            BlockedKernels* k) {
  if (isa != KernelIsa::kNeon) return false;
  k->channel_block = 4;
#if defined(__aarch64__)
  k->blocked_conv_blocks = 3;
#else
  k->blocked_conv_blocks = 2;
#endif
  k->blocked_conv = arm::NeonBlockedConv;
  k->blocked_window = arm::NeonBlockedWindow;
  k->blocked_winograd_input = arm::NeonBlockedWinogradInput;
  k->blocked_winograd_output = arm::NeonBlockedWinogradOutput;
  return true;
}

}  // namespace ops
}  // namespace mace
