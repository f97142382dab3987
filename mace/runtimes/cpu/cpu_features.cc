#include "mace/runtimes/cpu/cpu_features.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) || defined(__arm__)
#include <sys/auxv.h>
#endif

#include "mace/utils/logging.h"

namespace mace {
namespace {

#if defined(__x86_64__)
bool DetectAvx2Fma() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  const bool fma = (ecx >> 12) & 1;
  const bool osxsave = (ecx >> 27) & 1;
  const bool avx = (ecx >> 28) & 1;
  if (!fma || !osxsave || !avx) return false;
  // xgetbv is read with inline asm so this file needs no -mxsave: XCR0 bit 1
  // (SSE state) and bit 2 (AVX state) mean the OS preserves YMM registers.
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6) != 0x6) return false;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return (ebx >> 5) & 1;  // AVX2
}
#endif

}  // namespace

CpuFeatures DetectCpuFeatures() {
  CpuFeatures features;
#if defined(__x86_64__)
  features.avx2_fma = DetectAvx2Fma();
#elif defined(__aarch64__)
  features.neon = true;  // Advanced SIMD is mandatory in ARMv8-A
#elif defined(__arm__)
  // HWCAP_NEON from the kernel's arch/arm/include/uapi/asm/hwcap.h.
  constexpr unsigned long kHwcapNeon = 1ul << 12;
  features.neon = (getauxval(AT_HWCAP) & kHwcapNeon) != 0;
#endif
  return features;
}

KernelIsa BestKernelIsa(const CpuFeatures& features) {
#if defined(__x86_64__)
  if (features.avx2_fma) return KernelIsa::kAvx2Fma;
#elif defined(__aarch64__) || (defined(__arm__) && defined(__ARM_NEON))
  if (features.neon) return KernelIsa::kNeon;
#endif
  (void)features;
  return KernelIsa::kReference;
}

KernelIsa ResolveKernelIsa(const char* env_value, KernelIsa best) {
  if (env_value == nullptr || env_value[0] == '\0' || std::strcmp(env_value, "auto") == 0) {
    return best;
  }
  if (std::strcmp(env_value, "ref") == 0) return KernelIsa::kReference;
  LOG(WARNING) << "MACE_CPU_KERNELS='" << env_value << "' is not 'ref' or 'auto'; using "
               << KernelIsaName(best);
  return best;
}

KernelIsa ActiveKernelIsa() {
  static const KernelIsa isa = [] {
    const CpuFeatures features = DetectCpuFeatures();
    const KernelIsa chosen =
        ResolveKernelIsa(std::getenv("MACE_CPU_KERNELS"), BestKernelIsa(features));
    VLOG(1) << "CPU kernels: " << KernelIsaName(chosen);
    return chosen;
  }();
  return isa;
}

const char* KernelIsaName(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::kReference:
      return "ref";
    case KernelIsa::kAvx2Fma:
      return "avx2_fma";
    case KernelIsa::kNeon:
      return "neon";
  }
  return "unknown";
}

}  // namespace mace
