#include "mace/utils/large_buffer.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "mace/utils/huge_page_testing.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace mace {
namespace {

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(LargeBufferTest, SmallBuffersKeepTheirAlignment) {
  for (int64_t bytes :
       {int64_t{1}, int64_t{64}, int64_t{4096}, int64_t{100000}, kHugePageBytes - 1}) {
    void* p = AllocateLargeBuffer(bytes, 64);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(Address(p) % 64, 0u) << bytes;
    std::memset(p, 0x5a, static_cast<size_t>(bytes));  // the whole buffer is writable
    std::free(p);
  }
}

TEST(LargeBufferTest, LargeBuffersStartOnAHugePage) {
  for (int64_t bytes : {kHugePageBytes, kHugePageBytes + 4096, 3 * kHugePageBytes + 7}) {
    auto* p = static_cast<unsigned char*>(AllocateLargeBuffer(bytes, 64));
    ASSERT_NE(p, nullptr) << bytes;
    if (HugePagesEnabled()) {
      EXPECT_EQ(Address(p) % kHugePageBytes, 0u) << bytes;
    } else {
      EXPECT_EQ(Address(p) % 64, 0u) << bytes;
    }
    p[0] = 1;
    p[bytes - 1] = 2;
    std::free(p);
  }
}

TEST(LargeBufferTest, AStricterAlignmentIsKept) {
  const int64_t alignment = int64_t{4} << 20;
  void* p = AllocateLargeBuffer(kHugePageBytes, alignment);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(Address(p) % alignment, 0u);
  std::free(p);
}

TEST(LargeBufferTest, NothingForNoBytes) {
  EXPECT_EQ(AllocateLargeBuffer(0, 64), nullptr);
  EXPECT_EQ(AllocateLargeBuffer(-5, 64), nullptr);
}

TEST(LargeBufferTest, AdviceAtAllocationOrLater) {
  if (!CanSeeHugePageAdvice()) GTEST_SKIP() << "no transparent huge pages to advise here";
  void* advised = AllocateLargeBuffer(2 * kHugePageBytes, 64);
  void* later = AllocateLargeBuffer(2 * kHugePageBytes, 64, false);
  ASSERT_NE(advised, nullptr);
  ASSERT_NE(later, nullptr);
  EXPECT_TRUE(HugePagesAdvisedAt(advised));
  // Not advised, yet aligned so that the advice can come later.
  EXPECT_EQ(Address(later) % kHugePageBytes, 0u);
  EXPECT_FALSE(HugePagesAdvisedAt(later));
  std::memset(later, 0x33, 2 * kHugePageBytes);  // written on normal pages first
  EXPECT_TRUE(AdviseHugePages(later, 2 * kHugePageBytes));
  EXPECT_TRUE(HugePagesAdvisedAt(later));
  EXPECT_TRUE(HugePagesAdvisedAt(static_cast<char*>(later) + 2 * kHugePageBytes - 1));
  // The advice changes no byte.
  const auto* bytes = static_cast<const unsigned char*>(later);
  for (int64_t i = 0; i < 2 * kHugePageBytes; i += 4093) ASSERT_EQ(bytes[i], 0x33) << i;
  std::free(advised);
  std::free(later);
}

TEST(LargeBufferTest, AdviceCoversOnlyWholeHugePagesInside) {
  if (!CanSeeHugePageAdvice()) GTEST_SKIP() << "no transparent huge pages to advise here";
  auto* base = static_cast<char*>(AllocateLargeBuffer(3 * kHugePageBytes, 64, false));
  ASSERT_NE(base, nullptr);
  ASSERT_EQ(Address(base) % kHugePageBytes, 0u);
  // [base + 4 KiB, base + 4 KiB + 2 huge pages) holds one whole huge page.
  EXPECT_TRUE(AdviseHugePages(base + 4096, 2 * kHugePageBytes));
  EXPECT_FALSE(HugePagesAdvisedAt(base));
  EXPECT_FALSE(HugePagesAdvisedAt(base + kHugePageBytes - 1));
  EXPECT_TRUE(HugePagesAdvisedAt(base + kHugePageBytes));
  EXPECT_TRUE(HugePagesAdvisedAt(base + 2 * kHugePageBytes - 1));
  EXPECT_FALSE(HugePagesAdvisedAt(base + 2 * kHugePageBytes));
  // Less than a whole huge page: nothing to mark.
  EXPECT_FALSE(AdviseHugePages(base + 4096, kHugePageBytes));
  EXPECT_FALSE(AdviseHugePages(base, kHugePageBytes - 1));
  EXPECT_FALSE(AdviseHugePages(nullptr, 2 * kHugePageBytes));
  EXPECT_FALSE(HugePagesAdvisedAt(base));
  std::free(base);
}

bool AllZero(const unsigned char* p, int64_t bytes) {
  for (int64_t i = 0; i < bytes; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

TEST(LargeBufferTest, ZeroedBuffersAreZeroAndWritableOnBothPaths) {
  // Heap and memset below kZeroedMapBytes, a mapping of its own from there,
  // huge-page aligned from one huge page; odd sizes end inside a page.
  for (int64_t bytes : {int64_t{1}, int64_t{4097}, kZeroedMapBytes - 1, kZeroedMapBytes,
                        kZeroedMapBytes + 13, kHugePageBytes, 3 * kHugePageBytes + 4095}) {
    // Dirty memory first, so that a reused heap block would show through.
    for (int round = 0; round < 2; ++round) {
      auto* p = static_cast<unsigned char*>(AllocateZeroedBuffer(bytes));
      ASSERT_NE(p, nullptr) << bytes;
      EXPECT_EQ(Address(p) % 64, 0u) << bytes;
      if (bytes >= kHugePageBytes && HugePagesEnabled()) {
        EXPECT_EQ(Address(p) % kHugePageBytes, 0u) << bytes;
      }
      EXPECT_TRUE(AllZero(p, bytes)) << bytes << " round " << round;
      std::memset(p, 0xa5, static_cast<size_t>(bytes));
      EXPECT_EQ(p[bytes - 1], 0xa5) << bytes;
      FreeZeroedBuffer(p, bytes);
    }
  }
}

TEST(LargeBufferTest, NoZeroedBufferForNoBytes) {
  EXPECT_EQ(AllocateZeroedBuffer(0), nullptr);
  EXPECT_EQ(AllocateZeroedBuffer(-1), nullptr);
  FreeZeroedBuffer(nullptr, 0);  // a no-op, as free(nullptr) is
}

TEST(LargeBufferTest, PackedWeightsAreAdvisedLateByDefault) {
  if (std::getenv("MACE_HUGE_PAGES") != nullptr) GTEST_SKIP() << "MACE_HUGE_PAGES is set";
  EXPECT_TRUE(HugePagesLate());
}

TEST(LargeBufferTest, NothingToPopulateForNoBytes) {
  EXPECT_FALSE(PopulateForWrite(nullptr, 4096));
  int value = 3;
  EXPECT_FALSE(PopulateForWrite(&value, 0));
  EXPECT_FALSE(PopulateForWrite(&value, -1));
  EXPECT_EQ(value, 3);
}

#if defined(__linux__)
// Which of the `pages` pages from `base` are resident.
std::vector<bool> Resident(void* base, int64_t pages, int64_t page) {
  std::vector<unsigned char> flags(static_cast<size_t>(pages));
  if (mincore(base, static_cast<size_t>(pages * page), flags.data()) != 0) return {};
  std::vector<bool> resident;
  for (unsigned char f : flags) resident.push_back((f & 1) != 0);
  return resident;
}

TEST(LargeBufferTest, PopulateFaultsInTheCoveringPagesAndKeepsTheirBytes) {
  const int64_t page = sysconf(_SC_PAGESIZE);
  const int64_t pages = 16;
  void* map = mmap(nullptr, static_cast<size_t>(pages * page), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* base = static_cast<unsigned char*>(map);
  std::memset(base + page, 0x6b, 100);  // page 1 holds data already
  // From inside page 1 to one byte into page 6: pages 1 to 6.
  const int64_t start = page + 17, bytes = 5 * page - 17 + 1;
  if (!PopulateForWrite(base + start, bytes)) {
    munmap(map, static_cast<size_t>(pages * page));
    GTEST_SKIP() << "no working MADV_POPULATE_WRITE here (Linux 5.14, not under qemu)";
  }
  const std::vector<bool> resident = Resident(base, pages, page);
  ASSERT_EQ(resident.size(), static_cast<size_t>(pages));
  EXPECT_FALSE(resident[0]);
  for (int64_t i = 1; i <= 6; ++i) EXPECT_TRUE(resident[i]) << i;
  for (int64_t i = 7; i < pages; ++i) EXPECT_FALSE(resident[i]) << i;
  for (int64_t i = 0; i < 100; ++i) ASSERT_EQ(base[page + i], 0x6b) << i;
  for (int64_t i = 100; i < 6 * page; ++i) ASSERT_EQ(base[page + i], 0) << i;
  munmap(map, static_cast<size_t>(pages * page));
}
#endif

}  // namespace
}  // namespace mace
