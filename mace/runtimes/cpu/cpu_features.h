// Which SIMD kernels this CPU can run, decided once at run time.
//
// x86-64: AVX2 and FMA from cpuid, and only if the OS saves the YMM registers
// (OSXSAVE plus XCR0 bits 1 and 2 via xgetbv); the binary itself stays
// baseline x86-64. ARM: NEON is baseline on arm64; on armv7 the kernel's
// AT_HWCAP must carry HWCAP_NEON. Anything else runs the reference kernels.
//
// MACE_CPU_KERNELS=ref in the environment forces the reference kernels, which
// helps to bisect a wrong result to a fast kernel.
#ifndef MACE_RUNTIMES_CPU_CPU_FEATURES_H_
#define MACE_RUNTIMES_CPU_CPU_FEATURES_H_

namespace mace {

enum class KernelIsa { kReference = 0, kAvx2Fma = 1, kNeon = 2 };

struct CpuFeatures {
  bool avx2_fma = false;  // AVX2 and FMA3, with OS support for YMM state
  bool neon = false;      // Advanced SIMD with single-precision float
};

// Probes the CPU (no caching).
CpuFeatures DetectCpuFeatures();

// The fastest kernel family that both this build and `features` support.
KernelIsa BestKernelIsa(const CpuFeatures& features);

// The family the ops use: BestKernelIsa of this CPU unless MACE_CPU_KERNELS
// says "ref". Decided on first use and fixed for the process.
KernelIsa ActiveKernelIsa();

// Parses a MACE_CPU_KERNELS value: "ref" gives kReference, "" or "auto"
// gives `best`; anything else is reported and treated as "auto".
KernelIsa ResolveKernelIsa(const char* env_value, KernelIsa best);

const char* KernelIsaName(KernelIsa isa);

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_CPU_FEATURES_H_
