#include "mace/runtimes/cpu/cpu_features.h"

#include <cstdio>

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

TEST(CpuFeaturesTest, BestIsaFollowsBuildAndFeatures) {
  CpuFeatures none;
  EXPECT_EQ(BestKernelIsa(none), KernelIsa::kReference);
  const CpuFeatures host = DetectCpuFeatures();
#if defined(__aarch64__)
  EXPECT_TRUE(host.neon);
  EXPECT_EQ(BestKernelIsa(host), KernelIsa::kNeon);
#elif defined(__x86_64__)
  EXPECT_FALSE(host.neon);
  EXPECT_EQ(BestKernelIsa(host), host.avx2_fma ? KernelIsa::kAvx2Fma : KernelIsa::kReference);
#endif
  std::printf("kernels on this CPU: %s (active: %s)\n", KernelIsaName(BestKernelIsa(host)),
              KernelIsaName(ActiveKernelIsa()));
}

}  // namespace
}  // namespace mace
