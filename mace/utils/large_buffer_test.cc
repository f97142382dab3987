#include "mace/utils/large_buffer.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace mace
