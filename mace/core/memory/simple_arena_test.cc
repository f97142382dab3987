// The online arena, including the expected offsets of TFLite's
// SimpleMemoryArena tests.
#include "mace/core/memory/simple_arena.h"

#include <cstdint>
#include <cstring>

#include "gtest/gtest.h"

namespace mace {
namespace memory {
namespace {

ArenaAllocation Allocate(SimpleArena* arena, size_t alignment, size_t size) {
  ArenaAllocation allocation;
  const Status status = arena->Allocate(alignment, size, &allocation);
  EXPECT_TRUE(status.ok()) << status.message();
  return allocation;
}

TEST(SimpleArenaTest, BasicArenaOperations) {
  SimpleArena arena(64);
  ArenaAllocation allocs[6];
  allocs[0] = Allocate(&arena, 32, 2047);
  allocs[1] = Allocate(&arena, 32, 2047);
  allocs[2] = Allocate(&arena, 32, 2047);
  ASSERT_TRUE(arena.Deallocate(allocs[0]).ok());
  allocs[3] = Allocate(&arena, 32, 1023);
  allocs[4] = Allocate(&arena, 32, 2047);
  ASSERT_TRUE(arena.Deallocate(allocs[1]).ok());
  allocs[5] = Allocate(&arena, 32, 1023);

  EXPECT_EQ(allocs[0].offset, 0u);
  EXPECT_EQ(allocs[1].offset, 2048u);
  EXPECT_EQ(allocs[2].offset, 4096u);
  EXPECT_EQ(allocs[3].offset, 0u);
  EXPECT_EQ(allocs[4].offset, 6144u);
  EXPECT_EQ(allocs[5].offset, 1024u);
  EXPECT_EQ(arena.high_water_mark(), 6144u + 2047u);
}

TEST(SimpleArenaTest, TestAfterClear) {
  SimpleArena arena(64);
  ArenaAllocation allocs[6];
  allocs[0] = Allocate(&arena, 32, 2047);
  allocs[1] = Allocate(&arena, 32, 2047);
  allocs[2] = Allocate(&arena, 32, 2047);
  ASSERT_TRUE(arena.Commit().ok());
  EXPECT_EQ(allocs[0].offset, 0u);
  EXPECT_EQ(allocs[1].offset, 2048u);
  EXPECT_EQ(allocs[2].offset, 4096u);
  char* before = nullptr;
  ASSERT_TRUE(arena.ResolveAlloc(allocs[0], &before).ok());

  // A new, smaller plan reuses the committed buffer.
  arena.ClearPlan();
  EXPECT_EQ(arena.high_water_mark(), 0u);
  allocs[3] = Allocate(&arena, 32, 1023);
  allocs[4] = Allocate(&arena, 32, 2047);
  allocs[5] = Allocate(&arena, 32, 1023);
  ASSERT_TRUE(arena.Commit().ok());
  EXPECT_EQ(allocs[3].offset, 0u);
  EXPECT_EQ(allocs[4].offset, 1024u);
  EXPECT_EQ(allocs[5].offset, 3072u);
  char* after = nullptr;
  ASSERT_TRUE(arena.ResolveAlloc(allocs[3], &after).ok());
  EXPECT_EQ(before, after);
}

TEST(SimpleArenaTest, FirstFitTakesTheLowestGap) {
  SimpleArena arena(8);
  const ArenaAllocation a = Allocate(&arena, 8, 100);  // [0, 100)
  const ArenaAllocation b = Allocate(&arena, 8, 8);    // [104, 112)
  const ArenaAllocation c = Allocate(&arena, 8, 40);   // [112, 152)
  const ArenaAllocation d = Allocate(&arena, 8, 8);    // [152, 160)
  ASSERT_TRUE(arena.Deallocate(a).ok());
  ASSERT_TRUE(arena.Deallocate(c).ok());
  // Both gaps hold 40 bytes; the lower one wins even though the other is
  // a tighter fit.
  EXPECT_EQ(Allocate(&arena, 8, 40).offset, 0u);
  EXPECT_EQ(b.offset, 104u);
  EXPECT_EQ(d.offset, 152u);
}

TEST(SimpleArenaTest, ZeroSizeResolvesToNull) {
  SimpleArena arena;
  const ArenaAllocation empty = Allocate(&arena, 16, 0);
  EXPECT_EQ(empty.size, 0u);
  EXPECT_EQ(arena.high_water_mark(), 0u);
  ASSERT_TRUE(arena.Commit().ok());
  char* pointer = reinterpret_cast<char*>(1);
  ASSERT_TRUE(arena.ResolveAlloc(empty, &pointer).ok());
  EXPECT_EQ(pointer, nullptr);
  EXPECT_TRUE(arena.Deallocate(empty).ok());
}

TEST(SimpleArenaTest, ResolvedPointersAreAlignedAndDistinct) {
  SimpleArena arena(64);
  const ArenaAllocation a = Allocate(&arena, 64, 10);
  const ArenaAllocation b = Allocate(&arena, 16, 10);
  ASSERT_TRUE(arena.Commit().ok());
  char* pa = nullptr;
  char* pb = nullptr;
  ASSERT_TRUE(arena.ResolveAlloc(a, &pa).ok());
  ASSERT_TRUE(arena.ResolveAlloc(b, &pb).ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pa) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pb) % 16, 0u);
  EXPECT_EQ(pb - pa, 16);
  std::memset(pa, 1, 10);  // the bytes are really there (ASan checks)
  std::memset(pb, 2, 10);
  EXPECT_EQ(pa[9], 1);
}

TEST(SimpleArenaTest, GrowingKeepsContents) {
  SimpleArena arena(32);
  const ArenaAllocation a = Allocate(&arena, 32, 16);
  ASSERT_TRUE(arena.Commit().ok());
  char* pointer = nullptr;
  ASSERT_TRUE(arena.ResolveAlloc(a, &pointer).ok());
  std::memcpy(pointer, "persistent bytes", 16);
  const ArenaAllocation big = Allocate(&arena, 32, 4096);
  // Not committed for the new size yet.
  EXPECT_FALSE(arena.ResolveAlloc(big, &pointer).ok());
  ASSERT_TRUE(arena.Commit().ok());
  ASSERT_TRUE(arena.ResolveAlloc(a, &pointer).ok());
  EXPECT_EQ(std::memcmp(pointer, "persistent bytes", 16), 0);
  EXPECT_GE(arena.buffer_size(), 4096u + 32u);
}

TEST(SimpleArenaTest, Errors) {
  SimpleArena arena(16);
  ArenaAllocation allocation;
  EXPECT_FALSE(arena.Allocate(32, 8, &allocation).ok());  // above the arena's alignment
  EXPECT_FALSE(arena.Allocate(3, 8, &allocation).ok());   // not a power of two
  EXPECT_FALSE(arena.Allocate(0, 8, &allocation).ok());
  const ArenaAllocation a = Allocate(&arena, 16, 8);
  char* pointer = nullptr;
  EXPECT_FALSE(arena.ResolveAlloc(a, &pointer).ok());  // not committed
  EXPECT_FALSE(arena.Deallocate({a.offset, a.size + 1}).ok());
  ASSERT_TRUE(arena.Deallocate(a).ok());
  EXPECT_FALSE(arena.Deallocate(a).ok());  // freed twice

  SimpleArena odd(48);
  EXPECT_FALSE(odd.Allocate(16, 8, &allocation).ok());
  EXPECT_FALSE(odd.Commit().ok());
}

TEST(SimpleArenaTest, ReleaseBufferKeepsThePlan) {
  SimpleArena arena;
  const ArenaAllocation a = Allocate(&arena, 8, 100);
  ASSERT_TRUE(arena.Commit().ok());
  arena.ReleaseBuffer();
  EXPECT_FALSE(arena.committed());
  EXPECT_EQ(arena.high_water_mark(), 100u);
  ASSERT_TRUE(arena.Commit().ok());
  char* pointer = nullptr;
  EXPECT_TRUE(arena.ResolveAlloc(a, &pointer).ok());
}

}  // namespace
}  // namespace memory
}  // namespace mace
