#include "mace/ops/cpu/kernel_table.h"

#if defined(__x86_64__)
#include "mace/ops/x86/avx2_kernels.h"
#elif defined(__aarch64__) || defined(__ARM_NEON)
#include "mace/ops/arm/neon_kernels.h"
#endif

namespace mace {
namespace ops {
namespace {

#if defined(__x86_64__)
KernelTable MakeAvx2Table() {
  KernelTable table;
  table.isa = KernelIsa::kAvx2Fma;
  table.name = "avx2_fma";
  table.mr = x86::kAvx2GemmMr;
  table.nr = x86::kAvx2GemmNr;
  // kc x nr x 4 B = 16 KiB of B panel in L1; mc x kc x 4 B = 168 KiB of A in L2.
  table.mc = 168;
  table.kc = 256;
  table.nc = 1024;
  table.gemm = x86::Avx2Gemm6x16;
  table.depthwise3x3_s1 = x86::Avx2DepthwiseRow3x3S1;
  table.depthwise3x3_s2 = x86::Avx2DepthwiseRow3x3S2;
  table.fma_peak = x86::Avx2FmaPeak;
  return table;
}
#elif defined(__aarch64__) || defined(__ARM_NEON)
KernelTable MakeNeonTable() {
  KernelTable table;
  table.isa = KernelIsa::kNeon;
  table.name = "neon";
  table.mr = arm::kNeonGemmMr;
  table.nr = arm::kNeonGemmNr;
  // Phone L1s are 32-64 KiB and L2s 256 KiB-1 MiB per core or cluster.
  table.mc = 96;
  table.kc = 256;
  table.nc = 768;
  table.gemm = arm::NeonGemm;
  table.depthwise3x3_s1 = arm::NeonDepthwiseRow3x3S1;
  table.depthwise3x3_s2 = arm::NeonDepthwiseRow3x3S2;
  table.fma_peak = arm::NeonFmaPeak;
  return table;
}
#endif

}  // namespace

const KernelTable* KernelTableFor(KernelIsa isa) {
  if (isa == KernelIsa::kReference || BestKernelIsa(DetectCpuFeatures()) != isa) return nullptr;
#if defined(__x86_64__)
  static const KernelTable avx2 = MakeAvx2Table();
  if (isa == KernelIsa::kAvx2Fma) return &avx2;
#elif defined(__aarch64__) || defined(__ARM_NEON)
  static const KernelTable neon = MakeNeonTable();
  if (isa == KernelIsa::kNeon) return &neon;
#endif
  return nullptr;
}

const KernelTable* ActiveKernelTable() { return KernelTableFor(ActiveKernelIsa()); }

}  // namespace ops
}  // namespace mace
