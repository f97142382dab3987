// The x86-64 port's GEMM family: AVX2 + FMA 6x16 tiles, AVX-512 8x32, each
// also with A read in place.
// Like every kernel_family_* file, built with baseline flags: the tables
// are filled before any AVX kernel runs, after the CPU feature check.
#include "mace/ops/cpu/cache_blocks.h"
#include "mace/ops/cpu/kernel_tables.h"
#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {

bool PortFillGemmKernels(KernelIsa isa, const CpuFeatures& features, GemmKernels* k) {
  if (isa == KernelIsa::kAvx2Fma) {
    k->mr = x86::kAvx2GemmMr;
    k->nr = x86::kAvx2GemmNr;
    k->gemm = x86::Avx2Gemm6x16;
    k->gemm_direct_a = x86::Avx2Gemm6x16DirectA;
    k->gemm_prefetches_a = true;
    k->panel_dot = x86::Avx2PanelDot;
    k->gemm_partial = x86::Avx2GemmPartial6x16;
    k->conv_rows = x86::Avx2ConvRows6x16;
    k->fma_peak = x86::Avx2FmaPeak;
    k->mac_lanes = 16;
  } else if (isa == KernelIsa::kAvx512) {
    k->mr = x86::kAvx512GemmMr;
    k->nr = x86::kAvx512GemmNr;
    k->gemm = x86::Avx512Gemm8x32;
    k->gemm_direct_a = x86::Avx512Gemm8x32DirectA;
    k->gemm_prefetches_a = true;
    k->panel_dot = x86::Avx512PanelDot;
    k->gemm_partial = x86::Avx512GemmPartial8x32;
    k->conv_rows = x86::Avx512ConvRows8x32;
    k->fma_peak = x86::Avx512FmaPeak;
    k->mac_lanes = features.avx512_half_rate ? 16 : 32;
  } else {
    return false;
  }
  // From the host's caches (cache_blocks.h). AVX2 on a 32 KiB L1d / 1 MiB
  // L2 core: kc 256 (a 16 KiB B micro-panel), mc 168 (168 KiB of A), nc 256.
  // AVX-512 on a 48 KiB L1d / 2 MiB L2 core (Sapphire Rapids class), where
  // they were measured: kc 256 (a 32 KiB B micro-panel beside an 8 KiB A
  // one), mc 336 (336 KiB of A) and nc 512 (512 KiB of B); on 32 KiB / 1 MiB
  // (Cascade Lake class) kc 168, mc 256 and nc 384: the 32 KiB panel would
  // fill L1d there.
  const GemmBlocks blocks = DeriveGemmBlocks(k->mr, k->nr, HostCacheSizes());
  k->mc = blocks.mc;
  k->kc = blocks.kc;
  k->nc = blocks.nc;
  return true;
}

}  // namespace ops
}  // namespace mace
