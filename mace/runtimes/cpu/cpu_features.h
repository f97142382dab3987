// Which SIMD kernels this CPU can run, decided once at run time.
//
// x86-64: AVX2 and FMA from cpuid, and only if the OS saves the YMM registers
// (OSXSAVE plus XCR0 bits 1 and 2 via xgetbv); AVX-512 F, DQ and VL on top of
// that, and only if the OS also saves the opmask and ZMM registers (XCR0 bits
// 5, 6 and 7). The binary itself stays baseline x86-64. ARM: NEON is baseline
// on arm64; on armv7 the kernel's AT_HWCAP must carry HWCAP_NEON. Anything
// else runs the reference kernels.
//
// MACE_CPU_KERNELS in the environment overrides the choice: "ref" forces the
// reference kernels, which helps to bisect a wrong result to a fast kernel,
// and "avx2" or "avx512" picks that family on a CPU that has it, so the AVX2
// kernels stay testable on an AVX-512 machine.
#ifndef MACE_RUNTIMES_CPU_CPU_FEATURES_H_
#define MACE_RUNTIMES_CPU_CPU_FEATURES_H_

#include <cstdint>

namespace mace {

// Data cache sizes in bytes, 0 where unknown. L1d and L2 are one core's
// (the cache a thread has, even where two cores share it), L3 the whole
// last level a core reaches.
struct CacheSizes {
  int64_t l1d = 0;
  int64_t l2 = 0;
  int64_t l3 = 0;
};

enum class KernelIsa { kReference = 0, kAvx2Fma = 1, kNeon = 2, kAvx512 = 3 };

struct CpuFeatures {
  bool avx2_fma = false;  // AVX2 and FMA3, with OS support for YMM state
  bool avx512 = false;    // AVX-512 F, DQ and VL, with OS support for ZMM state
  // AVX-512 executed on 256-bit units, two passes per instruction (AMD
  // family 19h, Zen 4): no more multiply-adds per cycle than AVX2. Intel
  // cores with a single 512-bit FMA port are not told apart and count as
  // full rate.
  bool avx512_half_rate = false;
  bool neon = false;  // Advanced SIMD with single-precision float
  // AVX-512 VNNI (vpdpbusd), on top of `avx512`: the uint8 GEMM's dot products.
  bool avx512_vnni = false;
  // AVX-512 BW (byte and word ops on zmm), on top of `avx512`.
  bool avx512_bw = false;
  // AVX-512 VBMI (byte permutes), on top of `avx512_bw`.
  bool avx512_vbmi = false;
  // The ARMv8.2 dot product (udot/sdot), arm64 only: AT_HWCAP's ASIMDDP.
  bool neon_dotprod = false;
  // ARMv8.2 half-precision arithmetic, scalar and vector (fmla on .8h),
  // arm64 only: AT_HWCAP's FPHP and ASIMDHP.
  bool neon_fp16 = false;
  // From cpuid's deterministic cache leaves (4 on Intel, 0x8000001D on
  // AMD), else sysconf; 0 where neither says.
  CacheSizes caches;
};

// The size in bytes of the cache one subleaf of cpuid leaf 4 (Intel) or
// 0x8000001D (AMD) describes: both lay out EBX and ECX alike. Pure, for tests.
int64_t CpuidCacheBytes(unsigned ebx, unsigned ecx);

// Folds one such subleaf (EAX, EBX, ECX) into `caches`: data or unified
// caches of levels 1 to 3; instruction caches and others are skipped.
void AddCpuidCacheLeaf(unsigned eax, unsigned ebx, unsigned ecx, CacheSizes* caches);

// Parses a MACE_CPU_CACHE_SIZES value, "L1D,L2[,L3]" with optional K or M
// suffixes (e.g. "32K,1M,36M"), over `caches`. False, and `caches`
// unchanged, where it does not parse or a size is not positive.
bool ParseCacheSizes(const char* value, CacheSizes* caches);

// The caches the kernels size their blocks for: the detected ones, each
// unknown level replaced by a default (32 KiB L1d, 1 MiB L2, 8 MiB L3), and
// MACE_CPU_CACHE_SIZES over them when set (to time one binary as if on
// another part). Decided on first use and fixed for the process.
const CacheSizes& HostCacheSizes();

// Whether cpuid's vendor string and leaf 1 EAX name a CPU whose AVX-512 runs
// at half rate (see CpuFeatures). Pure, for tests.
bool Avx512IsHalfRate(const char* vendor, unsigned leaf1_eax);

// Probes the CPU (no caching). The only place that asks the CPU or the OS
// which instructions exist: everything else reads the result.
CpuFeatures DetectCpuFeatures();

// This CPU's features, probed on first use and fixed for the process.
const CpuFeatures& HostCpuFeatures();

// Whether this build and `features` can run `isa` (kReference always).
bool SupportsKernelIsa(const CpuFeatures& features, KernelIsa isa);

// The fastest kernel family that both this build and `features` support:
// AVX-512, then AVX2, then the reference kernels on x86-64.
KernelIsa BestKernelIsa(const CpuFeatures& features);

// The family the ops use: BestKernelIsa of this CPU unless MACE_CPU_KERNELS
// says otherwise. Decided on first use and fixed for the process.
KernelIsa ActiveKernelIsa();

// Parses a MACE_CPU_KERNELS value: "" or "auto" gives `best`, "ref" gives
// kReference, and "avx2" or "avx512" gives that family when `best` includes it
// (AVX-512 includes AVX2). Anything else is reported and gives `best`.
KernelIsa ResolveKernelIsa(const char* env_value, KernelIsa best);

const char* KernelIsaName(KernelIsa isa);

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_CPU_FEATURES_H_
