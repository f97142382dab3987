#include "mace/runtimes/cpu/cpu_features.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mace {
namespace {

TEST(CpuFeaturesTest, EnvironmentOverride) {
  EXPECT_EQ(ResolveKernelIsa("ref", KernelIsa::kAvx2Fma), KernelIsa::kReference);
  EXPECT_EQ(ResolveKernelIsa("auto", KernelIsa::kNeon), KernelIsa::kNeon);
  EXPECT_EQ(ResolveKernelIsa("", KernelIsa::kNeon), KernelIsa::kNeon);
  EXPECT_EQ(ResolveKernelIsa(nullptr, KernelIsa::kAvx2Fma), KernelIsa::kAvx2Fma);
  EXPECT_EQ(ResolveKernelIsa("bogus", KernelIsa::kAvx2Fma), KernelIsa::kAvx2Fma);
}

// "avx2" and "avx512" pick a family only where the best one includes it.
TEST(CpuFeaturesTest, EnvironmentPicksAFamilyTheCpuHas) {
  EXPECT_EQ(ResolveKernelIsa("avx2", KernelIsa::kAvx512), KernelIsa::kAvx2Fma);
  EXPECT_EQ(ResolveKernelIsa("avx2", KernelIsa::kAvx2Fma), KernelIsa::kAvx2Fma);
  EXPECT_EQ(ResolveKernelIsa("avx512", KernelIsa::kAvx512), KernelIsa::kAvx512);
  EXPECT_EQ(ResolveKernelIsa("auto", KernelIsa::kAvx512), KernelIsa::kAvx512);
  EXPECT_EQ(ResolveKernelIsa("ref", KernelIsa::kAvx512), KernelIsa::kReference);
  // Not available: keep the best.
  EXPECT_EQ(ResolveKernelIsa("avx512", KernelIsa::kAvx2Fma), KernelIsa::kAvx2Fma);
  EXPECT_EQ(ResolveKernelIsa("avx512", KernelIsa::kReference), KernelIsa::kReference);
  EXPECT_EQ(ResolveKernelIsa("avx2", KernelIsa::kNeon), KernelIsa::kNeon);
  EXPECT_EQ(ResolveKernelIsa("avx2", KernelIsa::kReference), KernelIsa::kReference);
}

TEST(CpuFeaturesTest, SupportedFamiliesNest) {
  const CpuFeatures host = DetectCpuFeatures();
  EXPECT_TRUE(SupportsKernelIsa(host, KernelIsa::kReference));
  EXPECT_TRUE(SupportsKernelIsa(host, BestKernelIsa(host)));
  // The AVX-512 table reuses AVX2 kernels, so detection never reports it alone.
  if (host.avx512) {
    EXPECT_TRUE(host.avx2_fma);
  }
  CpuFeatures avx512_host;
  avx512_host.avx512 = true;
  avx512_host.avx2_fma = true;
#if defined(__x86_64__)
  EXPECT_EQ(BestKernelIsa(avx512_host), KernelIsa::kAvx512);
  EXPECT_TRUE(SupportsKernelIsa(avx512_host, KernelIsa::kAvx2Fma));
  EXPECT_FALSE(SupportsKernelIsa(avx512_host, KernelIsa::kNeon));
#else
  EXPECT_FALSE(SupportsKernelIsa(avx512_host, KernelIsa::kAvx512));
  EXPECT_FALSE(SupportsKernelIsa(avx512_host, KernelIsa::kAvx2Fma));
#endif
}

// The features every caller reads are probed once and are the probe's.
TEST(CpuFeaturesTest, HostFeaturesAreTheProbed) {
  const CpuFeatures& host = HostCpuFeatures();
  EXPECT_EQ(&host, &HostCpuFeatures());
  const CpuFeatures probed = DetectCpuFeatures();
  EXPECT_EQ(host.avx2_fma, probed.avx2_fma);
  EXPECT_EQ(host.avx512, probed.avx512);
  EXPECT_EQ(host.avx512_vnni, probed.avx512_vnni);
  EXPECT_EQ(host.avx512_bw, probed.avx512_bw);
  EXPECT_EQ(host.avx512_vbmi, probed.avx512_vbmi);
  EXPECT_EQ(host.neon, probed.neon);
  EXPECT_EQ(host.neon_dotprod, probed.neon_dotprod);
  EXPECT_EQ(host.neon_fp16, probed.neon_fp16);
  // Each AVX-512 subset comes on top of the one it needs.
  EXPECT_TRUE(!host.avx512_vbmi || host.avx512_bw);
  EXPECT_TRUE(!host.avx512_bw || host.avx512);
}

TEST(CpuFeaturesTest, BestIsaFollowsBuildAndFeatures) {
  CpuFeatures none;
  EXPECT_EQ(BestKernelIsa(none), KernelIsa::kReference);
  const CpuFeatures host = DetectCpuFeatures();
#if defined(__aarch64__)
  EXPECT_TRUE(host.neon);
  EXPECT_EQ(BestKernelIsa(host), KernelIsa::kNeon);
#elif defined(__x86_64__)
  EXPECT_FALSE(host.neon);
  const KernelIsa x86_best = host.avx512     ? KernelIsa::kAvx512
                             : host.avx2_fma ? KernelIsa::kAvx2Fma
                                             : KernelIsa::kReference;
  EXPECT_EQ(BestKernelIsa(host), x86_best);
  // The kernel's own view, where it has one: its flags line lists what the
  // CPU reports and the OS enables.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::set<std::string> flags;
  for (std::string line; flags.empty() && std::getline(cpuinfo, line);) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string word; words >> word;) flags.insert(word);
  }
  // libgcc's probe, a second reading of cpuid and XCR0. Where it and the
  // kernel's flags disagree, this process's cpuid is not the kernel's: an
  // emulated CPU model (qemu-x86_64 -cpu Haswell on an AVX-512 host, as
  // tools/test.sh runs this test) or rewritten cpuid instructions. The
  // features are then checked against libgcc's view.
  __builtin_cpu_init();
  const auto gcc = [](bool avx2, bool fma, bool f, bool dq, bool vl, bool bw, bool vbmi) {
    return std::vector<bool>{avx2 && fma, avx2 && fma && f && dq && vl, bw, vbmi};
  };
  const std::vector<bool> probed =
      gcc(__builtin_cpu_supports("avx2"), __builtin_cpu_supports("fma"),
          __builtin_cpu_supports("avx512f"), __builtin_cpu_supports("avx512dq"),
          __builtin_cpu_supports("avx512vl"), __builtin_cpu_supports("avx512bw"),
          __builtin_cpu_supports("avx512vbmi"));
  std::vector<bool> seen = probed;
  if (!flags.empty()) {
    const auto has = [&flags](const char* flag) { return flags.count(flag) > 0; };
    const std::vector<bool> kernel = gcc(has("avx2"), has("fma"), has("avx512f"), has("avx512dq"),
                                         has("avx512vl"), has("avx512bw"), has("avx512vbmi"));
    if (kernel[0] == probed[0] && kernel[1] == probed[1]) {
      seen = kernel;
    } else {
      std::printf("cpuid is not the kernel's (an emulated CPU model): checked against libgcc\n");
    }
  }
  EXPECT_EQ(host.avx2_fma, seen[0]);
  EXPECT_EQ(host.avx512, host.avx2_fma && seen[1]);
  EXPECT_EQ(host.avx512_bw, host.avx512 && seen[2]);
  EXPECT_EQ(host.avx512_vbmi, host.avx512_bw && seen[3]);
#endif
  std::printf("kernels on this CPU: %s (active: %s)\n", KernelIsaName(BestKernelIsa(host)),
              KernelIsaName(ActiveKernelIsa()));
}

// Leaf 1 EAX signatures (stepping, model, family, extended model and
// family) of real parts.
TEST(CpuFeaturesTest, HalfRateAvx512IsZen4Only) {
  EXPECT_TRUE(Avx512IsHalfRate("AuthenticAMD", 0x00A10F11));   // EPYC 9004 (Zen 4)
  EXPECT_TRUE(Avx512IsHalfRate("AuthenticAMD", 0x00A60F12));   // Ryzen 7000 (Zen 4)
  EXPECT_FALSE(Avx512IsHalfRate("AuthenticAMD", 0x00B00F21));  // EPYC 9005 (Zen 5)
  EXPECT_FALSE(Avx512IsHalfRate("AuthenticAMD", 0x00830F10));  // EPYC 7002 (Zen 2, 17h)
  EXPECT_FALSE(Avx512IsHalfRate("GenuineIntel", 0x000806F8));  // Sapphire Rapids
  EXPECT_FALSE(Avx512IsHalfRate("GenuineIntel", 0x00050654));  // Skylake-SP
  // A base family below 0xf ignores the extended family bits.
  EXPECT_FALSE(Avx512IsHalfRate("AuthenticAMD", 0x00A10611));
  const CpuFeatures features = DetectCpuFeatures();
  if (features.avx512_half_rate) {
    EXPECT_TRUE(features.avx512);
  }
}

// Leaf 4 of a Cascade Lake class Xeon (32 KiB L1d and L1i, 1 MiB L2,
// 35.75 MiB L3), subleaf by subleaf.
TEST(CpuFeaturesTest, CacheSizesFromIntelLeaf4) {
  const unsigned leaves[][3] = {{0x4000121, 0x1c0003f, 0x3f},
                                {0x4000122, 0x1c0003f, 0x3f},
                                {0x4000143, 0x3c0003f, 0x3ff},
                                {0x4004163, 0x280003f, 0xcfff}};
  CacheSizes caches;
  for (const auto& leaf : leaves) AddCpuidCacheLeaf(leaf[0], leaf[1], leaf[2], &caches);
  EXPECT_EQ(caches.l1d, 32 << 10);
  EXPECT_EQ(caches.l2, 1 << 20);
  EXPECT_EQ(caches.l3, int64_t{11} * 64 * 53248);
}

// 0x8000001D has leaf 4's layout: a Zen 4 core's 32 KiB 8-way L1d and
// 1 MiB 8-way L2, in 64-byte lines; an instruction cache is skipped.
TEST(CpuFeaturesTest, CacheSizesFromAmdLeaf) {
  const unsigned ways8_line64 = (7u << 22) | 63u;
  EXPECT_EQ(CpuidCacheBytes(ways8_line64, 63), 32 << 10);
  EXPECT_EQ(CpuidCacheBytes(ways8_line64, 2047), 1 << 20);
  CacheSizes caches;
  AddCpuidCacheLeaf(0x121, ways8_line64, 63, &caches);
  AddCpuidCacheLeaf(0x122, ways8_line64, 127, &caches);  // L1i
  AddCpuidCacheLeaf(0x143, ways8_line64, 2047, &caches);
  EXPECT_EQ(caches.l1d, 32 << 10);
  EXPECT_EQ(caches.l2, 1 << 20);
  EXPECT_EQ(caches.l3, 0);
}

TEST(CpuFeaturesTest, CacheSizesFromTheEnvironment) {
  CacheSizes caches;
  caches.l3 = 7;
  EXPECT_TRUE(ParseCacheSizes("48K,2M", &caches));
  EXPECT_EQ(caches.l1d, 48 << 10);
  EXPECT_EQ(caches.l2, 2 << 20);
  EXPECT_EQ(caches.l3, 7);
  EXPECT_TRUE(ParseCacheSizes("32768,1m,36M", &caches));
  EXPECT_EQ(caches.l1d, 32768);
  EXPECT_EQ(caches.l2, 1 << 20);
  EXPECT_EQ(caches.l3, 36 << 20);
  const CacheSizes before = caches;
  for (const char* bad : {"", "32K", "32K,", ",1M", "32K,1M,2M,4M", "32X,1M", "0,1M", "-1,1M",
                          "32K,1G", "99999999999999999999,1M", "32K, 1M"}) {
    EXPECT_FALSE(ParseCacheSizes(bad, &caches)) << bad;
    EXPECT_EQ(caches.l1d, before.l1d) << bad;
    EXPECT_EQ(caches.l2, before.l2) << bad;
  }
  EXPECT_FALSE(ParseCacheSizes(nullptr, &caches));
  // Whatever the host says, the sizes the kernels use are known.
  EXPECT_GT(HostCacheSizes().l1d, 0);
  EXPECT_GT(HostCacheSizes().l2, 0);
  EXPECT_GT(HostCacheSizes().l3, 0);
#if defined(__x86_64__)
  std::printf("caches: L1d %lld B, L2 %lld B, L3 %lld B\n",
              static_cast<long long>(DetectCpuFeatures().caches.l1d),
              static_cast<long long>(DetectCpuFeatures().caches.l2),
              static_cast<long long>(DetectCpuFeatures().caches.l3));
#endif
}

}  // namespace
}  // namespace mace
