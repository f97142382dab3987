#include "mace/runtimes/cpu/cpu_runtime.h"

#include <atomic>
#include <cstdint>
#include <memory>

#include "gtest/gtest.h"

namespace mace {
namespace {

TEST(CpuRuntimeTest, OwnsPoolAndScratch) {
  CpuRuntime runtime(2, CPUAffinityPolicy::AFFINITY_NONE);
  EXPECT_EQ(runtime.thread_pool(), nullptr);  // created by Init
  Runtime* base = &runtime;
  ASSERT_TRUE(base->Init().ok());
  EXPECT_EQ(AsCpuRuntime(base), &runtime);
  ASSERT_NE(runtime.thread_pool(), nullptr);
  EXPECT_LE(runtime.thread_pool()->num_threads(), 2);
  EXPECT_TRUE(base->BeforeRun().ok());
  ASSERT_NE(runtime.scratch(), nullptr);
  EXPECT_TRUE(runtime.scratch()->Reserve(1000));
  EXPECT_GE(runtime.scratch()->size(), 1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(runtime.scratch()->data()) % ScratchBuffer::kAlignment, 0u);
}

TEST(CpuRuntimeTest, AllocatesHostBuffersOnly) {
  CpuRuntime runtime(1, CPUAffinityPolicy::AFFINITY_NONE, KernelIsa::kReference);
  EXPECT_EQ(runtime.kernel_isa(), KernelIsa::kReference);
  std::unique_ptr<Memory> memory;
  ASSERT_TRUE(runtime.Allocate(MemoryExtent::Buffer(MemoryType::CPU_BUFFER, 1000), &memory).ok());
  ASSERT_NE(memory->host(), nullptr);
  EXPECT_EQ(memory->bytes(), 1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(memory->host()) % 64, 0u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(memory->host()[i], 0) << i;
  unsigned char* host = nullptr;
  ASSERT_TRUE(runtime.Map(memory.get(), &host).ok());
  EXPECT_EQ(host, memory->host());
  // Copies go through the maps and are range-checked.
  std::unique_ptr<Memory> other;
  ASSERT_TRUE(runtime.Allocate(MemoryExtent::Buffer(MemoryType::CPU_BUFFER, 16), &other).ok());
  for (int i = 0; i < 16; ++i) other->host()[i] = static_cast<unsigned char>(i + 1);
  ASSERT_TRUE(runtime.Copy(other.get(), 4, memory.get(), 100, 8).ok());
  EXPECT_EQ(memory->host()[100], 5);
  EXPECT_EQ(memory->host()[107], 12);
  EXPECT_FALSE(runtime.Copy(other.get(), 12, memory.get(), 0, 8).ok());
  EXPECT_FALSE(runtime.Copy(other.get(), 0, memory.get(), 996, 8).ok());
  EXPECT_FALSE(runtime.Copy(other.get(), -1, memory.get(), 0, 1).ok());
  // Other memory types belong to other runtimes.
  std::unique_ptr<Memory> image;
  EXPECT_EQ(runtime.Allocate(MemoryExtent::Image(4, 4, 16), &image).code(),
            MaceStatus::MACE_UNSUPPORTED);
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
