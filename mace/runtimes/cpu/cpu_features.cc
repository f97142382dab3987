#include "mace/runtimes/cpu/cpu_features.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) || defined(__arm__)
#include <sys/auxv.h>
#endif

#include "mace/utils/debug_overrides.h"
#include "mace/utils/logging.h"

namespace mace {
namespace {

#if defined(__x86_64__)
// cpuid leaf 0's vendor string ("GenuineIntel", "AuthenticAMD", ...).
void ReadVendor(char vendor[13]) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __cpuid(0, eax, ebx, ecx, edx);
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  vendor[12] = '\0';
}

// The deterministic cache parameters: leaf 4 on Intel, 0x8000001D on AMD
// and Hygon where TOPOEXT (0x80000001 ECX bit 22) says the leaf exists.
// Leaf 2's descriptors and AMD's older 0x80000005/6 are not read: every
// part with AVX2 has the leaves above.
void DetectX86Caches(CacheSizes* caches) {
  char vendor[13] = {};
  ReadVendor(vendor);
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  unsigned leaf = 0;
  if (std::strcmp(vendor, "GenuineIntel") == 0) {
    if (__get_cpuid_max(0, nullptr) >= 4) leaf = 4;
  } else if (std::strcmp(vendor, "AuthenticAMD") == 0 || std::strcmp(vendor, "HygonGenuine") == 0) {
    if (__get_cpuid_max(0x80000000, nullptr) >= 0x8000001D &&
        __get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) && ((ecx >> 22) & 1)) {
      leaf = 0x8000001D;
    }
  }
  if (leaf == 0) return;
  // Subleaves end with a null cache type; the bound guards against a
  // hypervisor that never says so.
  for (unsigned sub = 0; sub < 16; ++sub) {
    __cpuid_count(leaf, sub, eax, ebx, ecx, edx);
    if ((eax & 0x1f) == 0) break;
    AddCpuidCacheLeaf(eax, ebx, ecx, caches);
  }
}
#endif

// Levels cpuid left unknown, from the C library (glibc reads cpuid itself
// on x86, and sysfs-like sources elsewhere, where it often answers 0).
void FillCachesFromSysconf(CacheSizes* caches) {
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && \
    defined(_SC_LEVEL3_CACHE_SIZE)
  if (caches->l1d <= 0) caches->l1d = std::max<long>(sysconf(_SC_LEVEL1_DCACHE_SIZE), 0);
  if (caches->l2 <= 0) caches->l2 = std::max<long>(sysconf(_SC_LEVEL2_CACHE_SIZE), 0);
  if (caches->l3 <= 0) caches->l3 = std::max<long>(sysconf(_SC_LEVEL3_CACHE_SIZE), 0);
#else
  (void)caches;
#endif
}

// Parses one size with an optional K or M suffix; false unless positive.
bool ParseCacheSize(const char* begin, const char* end, int64_t* bytes) {
  // strtoll would skip spaces and take a sign.
  if (begin == end || *begin < '0' || *begin > '9') return false;
  char* stop = nullptr;
  const long long value = std::strtoll(begin, &stop, 10);
  int64_t scale = 1;
  if (stop != end && (*stop == 'K' || *stop == 'k')) {
    scale = int64_t{1} << 10;
    ++stop;
  } else if (stop != end && (*stop == 'M' || *stop == 'm')) {
    scale = int64_t{1} << 20;
    ++stop;
  }
  // Up to 1 TiB: anything larger is a typo, and the products stay in range.
  if (stop != end || value <= 0 || value > (int64_t{1} << 40) / scale) return false;
  *bytes = value * scale;
  return true;
}

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
  features->avx512_bw = features->avx512 && ((ebx >> 30) & 1);
  features->avx512_vbmi = features->avx512_bw && ((ecx >> 1) & 1);
  char vendor[13] = {};
  ReadVendor(vendor);
  features->avx512_half_rate = features->avx512 && Avx512IsHalfRate(vendor, signature);
}
#endif

}  // namespace

int64_t CpuidCacheBytes(unsigned ebx, unsigned ecx) {
  const int64_t ways = ((ebx >> 22) & 0x3ff) + 1;
  const int64_t partitions = ((ebx >> 12) & 0x3ff) + 1;
  const int64_t line = (ebx & 0xfff) + 1;
  const int64_t sets = int64_t{ecx} + 1;
  return ways * partitions * line * sets;
}

void AddCpuidCacheLeaf(unsigned eax, unsigned ebx, unsigned ecx, CacheSizes* caches) {
  const unsigned type = eax & 0x1f;  // 1 data, 2 instruction, 3 unified
  const unsigned level = (eax >> 5) & 0x7;
  if (type != 1 && type != 3) return;
  const int64_t bytes = CpuidCacheBytes(ebx, ecx);
  if (level == 1) caches->l1d = bytes;
  if (level == 2) caches->l2 = bytes;
  if (level == 3) caches->l3 = bytes;
}

bool ParseCacheSizes(const char* value, CacheSizes* caches) {
  if (value == nullptr) return false;
  int64_t sizes[3] = {0, 0, 0};
  int count = 0;
  const char* begin = value;
  while (true) {
    const char* end = std::strchr(begin, ',');
    if (end == nullptr) end = begin + std::strlen(begin);
    if (count == 3 || !ParseCacheSize(begin, end, &sizes[count])) return false;
    ++count;
    if (*end == '\0') break;
    begin = end + 1;
  }
  if (count < 2) return false;
  caches->l1d = sizes[0];
  caches->l2 = sizes[1];
  if (count == 3) caches->l3 = sizes[2];
  return true;
}

const CacheSizes& HostCacheSizes() {
  static const CacheSizes caches = [] {
    CacheSizes sizes = HostCpuFeatures().caches;
    if (sizes.l1d <= 0) sizes.l1d = int64_t{32} << 10;
    if (sizes.l2 <= 0) sizes.l2 = int64_t{1} << 20;
    if (sizes.l3 <= 0) sizes.l3 = int64_t{8} << 20;
    const char* setting = DebugOverrideValue(DebugOverride::kCpuCacheSizes);
    if (setting != nullptr && setting[0] != '\0' && !ParseCacheSizes(setting, &sizes)) {
      LOG(WARNING) << "MACE_CPU_CACHE_SIZES='" << setting
                   << "' is not L1D,L2[,L3] in bytes, K or M; using the detected sizes";
    }
    VLOG(1) << "Caches: L1d " << sizes.l1d << " B, L2 " << sizes.l2 << " B, L3 " << sizes.l3
            << " B";
    return sizes;
  }();
  return caches;
}

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
  DetectX86Caches(&features.caches);
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
  FillCachesFromSysconf(&features.caches);
  return features;
}

const CpuFeatures& HostCpuFeatures() {
  static const CpuFeatures features = DetectCpuFeatures();
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
    const KernelIsa chosen =
        ResolveKernelIsa(DebugOverrideValue(DebugOverride::kCpuKernels),
                         BestKernelIsa(HostCpuFeatures()));
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
