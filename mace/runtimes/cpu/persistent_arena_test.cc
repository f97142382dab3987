#include "mace/runtimes/cpu/persistent_arena.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "gtest/gtest.h"
#include "mace/utils/huge_page_testing.h"
#include "mace/runtimes/cpu/cpu_runtime.h"

namespace mace {
namespace {

bool Aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % PersistentArena::kAlignment == 0;
}

TEST(PersistentArenaTest, BlocksAreAlignedZeroedAndDisjoint) {
  PersistentArena arena;
  EXPECT_EQ(arena.used_bytes(), 0);
  EXPECT_EQ(arena.reserved_bytes(), 0);
  std::vector<unsigned char*> blocks;
  const int64_t sizes[] = {1, 63, 64, 65, 4000, 0, 100000};
  for (int64_t size : sizes) {
    auto* block = static_cast<unsigned char*>(arena.Allocate(size));
    ASSERT_NE(block, nullptr) << size;
    EXPECT_TRUE(Aligned(block)) << size;
    for (int64_t i = 0; i < size; ++i) ASSERT_EQ(block[i], 0) << size;
    std::memset(block, 0xab, static_cast<size_t>(size));
    blocks.push_back(block);
  }
  // Writing every block in full never touched another one.
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (int64_t i = 0; i < sizes[b]; ++i) ASSERT_EQ(blocks[b][i], 0xab);
  }
  // 1, 63, 64 -> 64 each; 65 -> 128; 4000 -> 4032; 0 -> 0; 100000 -> 100032.
  EXPECT_EQ(arena.used_bytes(), 64 * 3 + 128 + 4032 + 100032);
  EXPECT_EQ(arena.reserved_bytes(), PersistentArena::kChunkBytes);
  EXPECT_EQ(arena.Allocate(-1), nullptr);
}

TEST(PersistentArenaTest, LargeBlocksGetChunksOfTheirOwn) {
  PersistentArena arena;
  ASSERT_NE(arena.Allocate(1000), nullptr);
  const int64_t big = 3 * PersistentArena::kChunkBytes + 5;
  auto* large = static_cast<unsigned char*>(arena.Allocate(big));
  ASSERT_NE(large, nullptr);
  EXPECT_TRUE(Aligned(large));
  large[big - 1] = 1;
  // The small chunk keeps filling after the large one.
  auto* small = static_cast<unsigned char*>(arena.Allocate(1000));
  ASSERT_NE(small, nullptr);
  EXPECT_TRUE(small >= large + big || small + 1000 <= large);
  const int64_t big_rounded = (big + 63) / 64 * 64;
  EXPECT_EQ(arena.reserved_bytes(), PersistentArena::kChunkBytes + big_rounded);
  EXPECT_EQ(arena.used_bytes(), 1024 + big_rounded + 1024);
  // A block that no longer fits opens a new chunk: a huge page's worth, now
  // that the arena holds more than its small chunks.
  ASSERT_NE(arena.Allocate(PersistentArena::kChunkBytes - 1024), nullptr);
  EXPECT_EQ(arena.reserved_bytes(), PersistentArena::kChunkBytes + big_rounded + kHugePageBytes);
}

bool HugeAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kHugePageBytes == 0; }

TEST(PersistentArenaTest, ChunksGrowToHugePagesPastTheSmallOnes) {
  PersistentArena arena;
  const int64_t chunk = PersistentArena::kChunkBytes;
  // Two small chunks, filled whole.
  auto* first = arena.Allocate(chunk);
  auto* second = arena.Allocate(chunk);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(arena.reserved_bytes(), PersistentArena::kSmallChunksBytes);
  // The third chunk is one huge page, aligned to one when huge pages are on.
  auto* third = static_cast<unsigned char*>(arena.Allocate(100));
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(arena.reserved_bytes(), PersistentArena::kSmallChunksBytes + kHugePageBytes);
  if (HugePagesEnabled()) {
    EXPECT_TRUE(HugeAligned(third));
  }
  // It fills up to a huge page before another chunk opens.
  ASSERT_NE(arena.Allocate(kHugePageBytes - 128), nullptr);
  EXPECT_EQ(arena.reserved_bytes(), PersistentArena::kSmallChunksBytes + kHugePageBytes);
  ASSERT_NE(arena.Allocate(64), nullptr);
  EXPECT_EQ(arena.reserved_bytes(), PersistentArena::kSmallChunksBytes + 2 * kHugePageBytes);
  for (int64_t i = 0; i < 100; ++i) ASSERT_EQ(third[i], 0);
}

// 1 MiB filters with small biases between them, as a network's 512-channel
// 1x1 layers allocate: they fill 2 MiB chunks two at a time, the biases in
// the gaps, instead of one filter a chunk.
TEST(PersistentArenaTest, MixedBlocksShareChunks) {
  PersistentArena arena;
  const int64_t filter = int64_t{1} << 20, bias = 2048;
  std::vector<unsigned char*> blocks;
  for (int layer = 0; layer < 12; ++layer) {
    blocks.push_back(static_cast<unsigned char*>(arena.Allocate(filter)));
    blocks.push_back(static_cast<unsigned char*>(arena.Allocate(bias)));
  }
  for (unsigned char* block : blocks) ASSERT_NE(block, nullptr);
  const int64_t used = 12 * (filter + bias);
  EXPECT_EQ(arena.used_bytes(), used);
  // At most one huge page beyond what is used, and a little for the biases
  // that opened chunks of their own.
  EXPECT_LE(arena.reserved_bytes(), used + kHugePageBytes + 2 * PersistentArena::kChunkBytes);
  // Every block is whole and no two overlap.
  for (size_t b = 0; b < blocks.size(); ++b) {
    const int64_t size = b % 2 == 0 ? filter : bias;
    std::memset(blocks[b], static_cast<int>(b + 1), static_cast<size_t>(size));
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    const int64_t size = b % 2 == 0 ? filter : bias;
    ASSERT_EQ(blocks[b][0], static_cast<unsigned char>(b + 1)) << b;
    ASSERT_EQ(blocks[b][size - 1], static_cast<unsigned char>(b + 1)) << b;
  }
}

TEST(PersistentArenaTest, CpuRuntimeReportsItsMemory) {
  CpuRuntime runtime(1, CPUAffinityPolicy::AFFINITY_NONE);
  ASSERT_TRUE(runtime.Init().ok());
  ASSERT_NE(runtime.persistent_arena(), nullptr);
  ASSERT_NE(runtime.persistent_arena()->Allocate(256), nullptr);
  ASSERT_TRUE(runtime.scratch()->Reserve(1000));
  MemoryReport report;
  runtime.ReportMemory(&report);
  EXPECT_EQ(report.persistent_bytes, PersistentArena::kChunkBytes);
  EXPECT_EQ(report.scratch_bytes, 1024);
}

TEST(PersistentArenaTest, ChunksAreAdvisedAsTheyOpen) {
  if (!CanSeeHugePageAdvice()) GTEST_SKIP() << "no transparent huge pages to advise here";
  PersistentArena arena(true);
  EXPECT_TRUE(arena.huge_pages_advised());
  void* packed = arena.AllocateUnfilled(2 * kHugePageBytes);
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(packed) % kHugePageBytes, 0u);
  EXPECT_TRUE(HugePagesAdvisedAt(packed));
}

TEST(PersistentArenaTest, ChunksAreAdvisedForHugePagesWhenAsked) {
  if (!CanSeeHugePageAdvice()) GTEST_SKIP() << "no transparent huge pages to advise here";
  PersistentArena arena(false);
  // The first megabytes are advised as they open all the same.
  void* early = arena.AllocateUnfilled(PersistentArena::kAdvisedEarlyBytes);
  ASSERT_NE(early, nullptr);
  EXPECT_TRUE(HugePagesAdvisedAt(early));
  // A block larger than a chunk opens a chunk of its own, of whole huge pages.
  auto* packed = static_cast<unsigned char*>(arena.AllocateUnfilled(2 * kHugePageBytes));
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(packed) % kHugePageBytes, 0u);
  EXPECT_FALSE(arena.huge_pages_advised());
  EXPECT_FALSE(HugePagesAdvisedAt(packed));
  std::memset(packed, 0x7e, 2 * kHugePageBytes);  // the packer's writes
  arena.AdviseHugePages();
  EXPECT_TRUE(arena.huge_pages_advised());
  EXPECT_TRUE(HugePagesAdvisedAt(packed));
  EXPECT_EQ(packed[0], 0x7e);
  EXPECT_EQ(packed[2 * kHugePageBytes - 1], 0x7e);
  // From then on a new chunk is advised as it opens.
  void* later = arena.Allocate(3 * kHugePageBytes);
  ASSERT_NE(later, nullptr);
  EXPECT_TRUE(HugePagesAdvisedAt(later));
  // Asking again changes nothing.
  arena.AdviseHugePages();
  EXPECT_TRUE(HugePagesAdvisedAt(packed));
}

TEST(PersistentArenaTest, TheFirstRunAdvisesThePackedWeights) {
  if (!CanSeeHugePageAdvice()) GTEST_SKIP() << "no transparent huge pages to advise here";
  CpuRuntime runtime(1, CPUAffinityPolicy::AFFINITY_NONE);
  ASSERT_TRUE(runtime.Init().ok());
  // The first megabytes are advised as they open in any case.
  void* early = runtime.persistent_arena()->AllocateUnfilled(PersistentArena::kAdvisedEarlyBytes);
  ASSERT_NE(early, nullptr);
  EXPECT_TRUE(HugePagesAdvisedAt(early));
  void* packed = runtime.persistent_arena()->AllocateUnfilled(2 * kHugePageBytes);
  ASSERT_NE(packed, nullptr);
  // Past them, marked as it opened only with MACE_HUGE_PAGES=1.
  EXPECT_EQ(HugePagesAdvisedAt(packed), !HugePagesLate());
  ASSERT_TRUE(runtime.BeforeRun().ok());
  EXPECT_TRUE(HugePagesAdvisedAt(packed));
  ASSERT_TRUE(runtime.BeforeRun().ok());
  EXPECT_TRUE(runtime.persistent_arena()->huge_pages_advised());
}

#if defined(__linux__)
// Whether the page that holds `address` is resident.
bool ResidentAt(const void* address) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  unsigned char flag = 0;
  void* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(address) / page * page);
  return mincore(start, page, &flag) == 0 && (flag & 1) != 0;
}

// One thread's runtime faults a block on 4 KiB pages in as it hands it out;
// several threads' leave the faults to the packers' writes.
TEST(PersistentArenaTest, OneThreadPopulatesBlocksOnSmallPages) {
  if (!HugePagesLate()) GTEST_SKIP() << "chunks are advised as they open";
  for (int threads : {1, 2}) {
    CpuRuntime runtime(threads, CPUAffinityPolicy::AFFINITY_NONE);
    ASSERT_TRUE(runtime.Init().ok());
    PersistentArena* arena = runtime.persistent_arena();
    // A chunk of its own, fresh from the OS: past the largest threshold
    // from which the C library maps an allocation rather than reuse heap.
    const int64_t bytes = 17 * kHugePageBytes + 4096;
    auto* unfilled = static_cast<unsigned char*>(arena->AllocateUnfilled(bytes));
    ASSERT_NE(unfilled, nullptr);
    auto* zeroed = static_cast<unsigned char*>(arena->Allocate(100));
    ASSERT_NE(zeroed, nullptr);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(zeroed[i], 0) << i;
    if (threads == 1 && PopulateForWrite(zeroed, 100)) {
      EXPECT_TRUE(ResidentAt(unfilled));
      EXPECT_TRUE(ResidentAt(unfilled + 9 * kHugePageBytes + 12345));
      EXPECT_TRUE(ResidentAt(unfilled + bytes - 1));
    } else if (threads == 2) {
      EXPECT_FALSE(ResidentAt(unfilled + 9 * kHugePageBytes + 12345));
    }
    std::memset(unfilled, 0x11, static_cast<size_t>(bytes));  // the packer's writes
    EXPECT_EQ(unfilled[bytes - 1], 0x11);
  }
}
#endif

TEST(PersistentFloatsTest, ArenaOrOwnStorageZeroFilled) {
  PersistentArena arena;
  PersistentFloats in_arena;
  in_arena.Allocate(100, &arena);
  EXPECT_TRUE(in_arena.in_arena());
  EXPECT_EQ(in_arena.size(), 100);
  EXPECT_EQ(arena.used_bytes(), 448);  // 400 bytes rounded to 64
  PersistentFloats own;
  own.Allocate(7, nullptr);
  EXPECT_FALSE(own.in_arena());
  for (int64_t i = 0; i < 7; ++i) EXPECT_EQ(own[i], 0.f);
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(in_arena[i], 0.f);
  // A move keeps the data where it is.
  const float* where = own.data();
  PersistentFloats moved = std::move(own);
  EXPECT_EQ(moved.data(), where);
}

// Unfilled blocks share the chunks and the accounting of zeroed ones, and a
// zeroed block after them is still zeroed (a Reset arena hands out memory
// that held data).
TEST(PersistentArenaTest, UnfilledBlocksShareChunksAndAccounting) {
  PersistentArena arena;
  auto* unfilled = static_cast<unsigned char*>(arena.AllocateUnfilled(100));
  ASSERT_NE(unfilled, nullptr);
  EXPECT_TRUE(Aligned(unfilled));
  std::memset(unfilled, 0xcd, 100);
  auto* zeroed = static_cast<unsigned char*>(arena.Allocate(64));
  ASSERT_NE(zeroed, nullptr);
  EXPECT_EQ(zeroed, unfilled + 128);
  EXPECT_EQ(arena.used_bytes(), 128 + 64);
  EXPECT_EQ(arena.reserved_bytes(), PersistentArena::kChunkBytes);
  EXPECT_EQ(arena.AllocateUnfilled(-1), nullptr);
  arena.Reset();
  auto* again = static_cast<unsigned char*>(arena.Allocate(100));
  EXPECT_EQ(again, unfilled);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(again[i], 0) << i;

  PersistentFloats floats;
  floats.AllocateUnfilled(10, &arena);
  EXPECT_TRUE(floats.in_arena());
  EXPECT_EQ(floats.size(), 10);
  PersistentFloats own;
  own.AllocateUnfilled(5, nullptr);
  ASSERT_NE(own.data(), nullptr);
  EXPECT_FALSE(own.in_arena());
}

}  // namespace
}  // namespace mace
