// The ARM port's Winograd transforms (NEON), F(6x6) runs included, with
// their every-channel forms; arm64's products at every position, armv7's
// runs on a block's narrow last panel.
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/cpu/kernel_tables.h"
#if !defined(__aarch64__)
#include "mace/ops/arm/sgemm_neon_armv7.h"
#endif

namespace mace {
namespace ops {

bool PortFillWinogradKernels(KernelIsa isa, const CpuFeatures& /*features*/,
                             WinogradKernels* k) {
  if (isa != KernelIsa::kNeon) return false;
  k->winograd_input = arm::NeonWinogradInput;
  k->winograd_output = arm::NeonWinogradOutput;
  k->winograd_max_tile = 6;
  k->winograd_input_channels = arm::NeonWinogradInputChannels;
  k->winograd_output_channels = arm::NeonWinogradOutputChannels;
#if defined(__aarch64__)
  k->winograd_position_gemms = arm::NeonWinogradGemms;
  k->winograd_partial_reads_vectors = true;
#else
  k->winograd_run_6x4 = arm::Armv7GemmRun6x4;
  k->winograd_run_12x4 = arm::Armv7GemmRun12x4;
  k->winograd_run_6x8_on_panels = arm::Armv7GemmRun6x8OnPanels;
  k->winograd_tile_6x1 = arm::Armv7GemmTile6x1;
#endif
  return true;
}

}  // namespace ops
}  // namespace mace
