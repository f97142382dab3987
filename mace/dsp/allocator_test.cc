// The DSP allocator, compiled for the host.
#include "mace/dsp/allocator.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "mace/dsp/self_test.h"

namespace mace {
namespace dsp {
namespace {

class AllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    memory_.resize(64 * 1024 + 77);
    heap_.Init(memory_.data() + 3, 64 * 1024);  // a misaligned base
  }
  std::vector<uint8_t> memory_;
  Allocator heap_;
};

TEST_F(AllocatorTest, AlignsAndRefusesWhatDoesNotFit) {
  void* a = heap_.Allocate(1);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % Allocator::kAlignment, 0u);
  EXPECT_EQ(heap_.Allocate(0), nullptr);
  EXPECT_EQ(heap_.Allocate(64 * 1024), nullptr);
  EXPECT_EQ(heap_.Allocate(0xffffffffu), nullptr);
  EXPECT_TRUE(heap_.CheckConsistency());
}

TEST_F(AllocatorTest, ReusesAndMergesFreedBlocks) {
  void* a = heap_.Allocate(1000);
  void* b = heap_.Allocate(1000);
  void* c = heap_.Allocate(1000);
  void* guard = heap_.Allocate(10);
  ASSERT_TRUE(a && b && c && guard);
  heap_.Free(a);
  heap_.Free(c);
  heap_.Free(b);  // merges with both neighbours
  EXPECT_TRUE(heap_.CheckConsistency());
  // The merged block holds one allocation of the three blocks' size.
  void* big = heap_.Allocate(3 * 1024 + 2 * Allocator::kAlignment - 200);
  EXPECT_EQ(big, a);
  heap_.Free(big);
  heap_.Free(guard);  // the top block returns everything to the bump region
  EXPECT_EQ(heap_.used_bytes(), 0u);
  EXPECT_TRUE(heap_.CheckConsistency());
  EXPECT_NE(heap_.Allocate(64 * 1024 - 2 * Allocator::kAlignment), nullptr);
}

TEST_F(AllocatorTest, SplitsLargeFreeBlocks) {
  void* a = heap_.Allocate(4096);
  void* guard = heap_.Allocate(10);
  heap_.Free(a);
  void* small = heap_.Allocate(100);
  void* second = heap_.Allocate(100);
  EXPECT_EQ(small, a);
  EXPECT_EQ(static_cast<uint8_t*>(second), static_cast<uint8_t*>(a) + 2 * Allocator::kAlignment);
  EXPECT_TRUE(heap_.CheckConsistency());
  heap_.Free(guard);
  heap_.Free(small);
  heap_.Free(second);
  EXPECT_EQ(heap_.used_bytes(), 0u);
  EXPECT_TRUE(heap_.CheckConsistency());
}

TEST(AllocatorStressTest, PassesOnTheHost) {
  std::vector<uint8_t> memory(256 * 1024);
  char text[400];
  Text failures(text, sizeof(text));
  EXPECT_EQ(AllocatorStress(memory.data(), memory.size(), &failures), 0u)
      << std::string(failures.data(), failures.size());
}

}  // namespace
}  // namespace dsp
}  // namespace mace
