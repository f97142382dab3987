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
void DetectX86(CpuFeatures* features) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return;
  const unsigned signature = eax;  // family and model
  const bool fma = (ecx >> 12) & 1;
  const bool osxsave = (ecx >> 27) & 1;
  const bool avx = (ecx >> 28) & 1;
  if (!fma || !osxsave || !avx) return;
  // xgetbv is read with inline asm so this file needs no -mxsave. XCR0 bit 1
  // (SSE state) and bit 2 (AVX state) mean the OS preserves YMM registers;
  // bits 5-7 (opmask, upper halves of ZMM0-15, ZMM16-31) the ZMM state.
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6) != 0x6) return;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return;
  features->avx2_fma = (ebx >> 5) & 1;
  const bool avx512f = (ebx >> 16) & 1;
  const bool avx512dq = (ebx >> 17) & 1;
  const bool avx512vl = (ebx >> 31) & 1;
  const bool zmm_state = (xcr0_lo & 0xe0) == 0xe0;
  // The AVX-512 table reuses AVX2 kernels, so it needs AVX2 as well.
  features->avx512 = features->avx2_fma && avx512f && avx512dq && avx512vl && zmm_state;
  features->avx512_vnni = features->avx512 && ((ecx >> 11) & 1);
  char vendor[13] = {};
  __cpuid(0, eax, ebx, ecx, edx);
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  features->avx512_half_rate = features->avx512 && Avx512IsHalfRate(vendor, signature);
}
#endif

}  // namespace

bool Avx512IsHalfRate(const char* vendor, unsigned leaf1_eax) {
  // The displayed family: the base family, plus the extended family when
  // the base is 0xf.
  const unsigned base = (leaf1_eax >> 8) & 0xf;
  const unsigned family = base == 0xf ? base + ((leaf1_eax >> 20) & 0xff) : base;
  // Family 19h is Zen 3 (no AVX-512) and Zen 4; Zen 5 (1Ah) has full-width units.
  return std::strcmp(vendor, "AuthenticAMD") == 0 && family == 0x19;
}

CpuFeatures DetectCpuFeatures() {
  CpuFeatures features;
#if defined(__x86_64__)
  DetectX86(&features);
#elif defined(__aarch64__)
  features.neon = true;  // Advanced SIMD is mandatory in ARMv8-A
  // HWCAP_ASIMDDP from the kernel's arch/arm64/include/uapi/asm/hwcap.h.
  constexpr unsigned long kHwcapAsimdDp = 1ul << 20;
  features.neon_dotprod = (getauxval(AT_HWCAP) & kHwcapAsimdDp) != 0;
  // HWCAP_FPHP and HWCAP_ASIMDHP, from the same header.
  constexpr unsigned long kHwcapFp16 = (1ul << 9) | (1ul << 10);
  features.neon_fp16 = (getauxval(AT_HWCAP) & kHwcapFp16) == kHwcapFp16;
#elif defined(__arm__)
  // HWCAP_NEON from the kernel's arch/arm/include/uapi/asm/hwcap.h.
  constexpr unsigned long kHwcapNeon = 1ul << 12;
  features.neon = (getauxval(AT_HWCAP) & kHwcapNeon) != 0;
#endif
  return features;
}

bool SupportsKernelIsa(const CpuFeatures& features, KernelIsa isa) {
  switch (isa) {
    case KernelIsa::kReference:
      return true;
#if defined(__x86_64__)
    case KernelIsa::kAvx2Fma:
      return features.avx2_fma;
    case KernelIsa::kAvx512:
      return features.avx512;
#elif defined(__aarch64__) || (defined(__arm__) && defined(__ARM_NEON))
    case KernelIsa::kNeon:
      return features.neon;
#endif
    default:
      return false;
  }
}

KernelIsa BestKernelIsa(const CpuFeatures& features) {
  for (KernelIsa isa : {KernelIsa::kAvx512, KernelIsa::kAvx2Fma, KernelIsa::kNeon}) {
    if (SupportsKernelIsa(features, isa)) return isa;
  }
  return KernelIsa::kReference;
}

KernelIsa ResolveKernelIsa(const char* env_value, KernelIsa best) {
  if (env_value == nullptr || env_value[0] == '\0' || std::strcmp(env_value, "auto") == 0) {
    return best;
  }
  if (std::strcmp(env_value, "ref") == 0) return KernelIsa::kReference;
  // The x86 families nest: a CPU with AVX-512 kernels can run the AVX2 ones.
  const bool has_avx2 = best == KernelIsa::kAvx2Fma || best == KernelIsa::kAvx512;
  if (std::strcmp(env_value, "avx2") == 0 && has_avx2) return KernelIsa::kAvx2Fma;
  if (std::strcmp(env_value, "avx512") == 0 && best == KernelIsa::kAvx512) return best;
  LOG(WARNING) << "MACE_CPU_KERNELS='" << env_value
               << "' is not 'auto', 'ref' or a kernel family this CPU has; using "
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
    case KernelIsa::kAvx512:
      return "avx512";
    case KernelIsa::kNeon:
      return "neon";
  }
  return "unknown";
}

}  // namespace mace
