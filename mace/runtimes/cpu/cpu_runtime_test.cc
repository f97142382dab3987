#include "mace/runtimes/cpu/cpu_runtime.h"

#include <atomic>
#include <cstdint>

#include "gtest/gtest.h"

namespace mace {
namespace {

TEST(CpuRuntimeTest, OwnsPoolAndScratch) {
  CpuRuntime runtime(2, CPUAffinityPolicy::AFFINITY_NONE);
  Runtime* base = &runtime;
  EXPECT_EQ(base->thread_pool(), nullptr);  // created by Init
  ASSERT_TRUE(base->Init().ok());
  ASSERT_NE(base->thread_pool(), nullptr);
  EXPECT_LE(base->thread_pool()->num_threads(), 2);
  EXPECT_TRUE(base->BeforeRun().ok());
  ASSERT_NE(base->scratch(), nullptr);
  EXPECT_TRUE(base->scratch()->Reserve(1000));
  EXPECT_GE(base->scratch()->size(), 1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(base->scratch()->data()) % ScratchBuffer::kAlignment, 0u);
}

// Per-thread regions start on 128-byte boundaries and end with a 128-byte
// guard, so two threads' regions never share a pair of cache lines or sit in
// each other's next line.
TEST(CpuRuntimeTest, ThreadRegionsAreWholeUnitsWithAGuard) {
  EXPECT_EQ(ScratchBuffer::kAlignment % kThreadRegionBytes, 0);
  constexpr int64_t kUnitFloats = kThreadRegionBytes / sizeof(float);
  for (int64_t floats : {0, 1, 31, 32, 33, 63, 64, 1000, 4097}) {
    const int64_t region = ThreadRegionFloats(floats);
    EXPECT_EQ(region % kUnitFloats, 0) << floats;
    EXPECT_GE(region, floats + kUnitFloats) << floats;
    EXPECT_LT(region, floats + 2 * kUnitFloats) << floats;
  }
}

TEST(CpuRuntimeTest, AffinityPoliciesInitAndRun) {
  for (auto policy : {CPUAffinityPolicy::AFFINITY_NONE, CPUAffinityPolicy::AFFINITY_BIG_ONLY,
                      CPUAffinityPolicy::AFFINITY_LITTLE_ONLY}) {
    CpuRuntime runtime(-1, policy);
    ASSERT_TRUE(runtime.Init().ok());
    EXPECT_TRUE(runtime.BeforeRun().ok());
    std::atomic<int> ran{0};
    runtime.thread_pool()->ParallelFor(
        16, [&](int64_t begin, int64_t end) { ran.fetch_add(static_cast<int>(end - begin)); });
    EXPECT_EQ(ran.load(), 16);
  }
}

}  // namespace
}  // namespace mace
