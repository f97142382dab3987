// The ARM port's GEMM family: NEON tiles on arm64 and armv7 (armv7 adds
// runs of tiles; arm64 the stepped direct-convolution rows and narrow
// pairs). Like every kernel_family_* file, built with the build's baseline
// flags and filled after the CPU feature check.
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/cpu/kernel_tables.h"

namespace mace {
namespace ops {

bool PortFillGemmKernels(KernelIsa isa, const CpuFeatures& /*features*/, GemmKernels* k) {
  if (isa != KernelIsa::kNeon) return false;
  k->mr = arm::kNeonGemmMr;
  k->nr = arm::kNeonGemmNr;
  // Phone L1s are 32-64 KiB and L2s 256 KiB-1 MiB per core or cluster.
  k->mc = 96;
  k->kc = 256;
  k->nc = 768;
  k->gemm = arm::NeonGemm;
  k->gemm_partial = arm::NeonGemmPartial;
#if !defined(__aarch64__)
  k->gemm_run = arm::NeonGemmRun;
#endif
  k->conv_rows = arm::NeonConvRows;
#if defined(__aarch64__)
  k->conv_rows_stepped = arm::NeonConvRowsStepped;
  k->gemm_narrow_pair = arm::NeonGemmNarrowPair;
#endif
  k->panel_dot = arm::NeonPanelDot;
  k->fma_peak = arm::NeonFmaPeak;
  k->mac_lanes = 8;
  return true;
}

}  // namespace ops
}  // namespace mace
