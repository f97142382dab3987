#include "mace/ops/cpu/cache_blocks.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace mace {
namespace ops {
namespace {

constexpr int64_t kKiB = 1 << 10;
constexpr int64_t kMiB = 1 << 20;

CacheSizes Caches(int64_t l1d, int64_t l2) {
  CacheSizes caches;
  caches.l1d = l1d;
  caches.l2 = l2;
  caches.l3 = 32 * kMiB;
  return caches;
}

// The blocks measured on a 48 KiB / 2 MiB core come out of the rule there.
TEST(CacheBlocksTest, GemmBlocksOfTheReferenceCore) {
  const GemmBlocks avx512 = DeriveGemmBlocks(8, 32, kReferenceCaches);
  EXPECT_EQ(avx512.kc, 256);
  EXPECT_EQ(avx512.mc, 336);
  EXPECT_EQ(avx512.nc, 512);
  const GemmBlocks avx2 = DeriveGemmBlocks(6, 16, Caches(32 * kKiB, 1 * kMiB));
  EXPECT_EQ(avx2.kc, 256);
  EXPECT_EQ(avx2.mc, 168);
}

// On 32 KiB / 1 MiB (Cascade Lake class) and Zen parts the B micro-panel
// keeps a third of L1d free and the A and B blocks fit L2 together.
TEST(CacheBlocksTest, GemmBlocksFitEveryCore) {
  const CacheSizes cores[] = {Caches(32 * kKiB, 1 * kMiB),   Caches(32 * kKiB, 512 * kKiB),
                              Caches(48 * kKiB, 2 * kMiB),   Caches(48 * kKiB, 1280 * kKiB),
                              Caches(64 * kKiB, 256 * kKiB), Caches(16 * kKiB, 128 * kKiB)};
  const int tiles[][2] = {{8, 32}, {6, 16}, {12, 32}, {14, 32}, {8, 12}};
  for (const CacheSizes& caches : cores) {
    for (const auto& tile : tiles) {
      const int mr = tile[0], nr = tile[1];
      SCOPED_TRACE(::testing::Message()
                   << caches.l1d << " B L1d, " << caches.l2 << " B L2, " << mr << "x" << nr);
      const GemmBlocks b = DeriveGemmBlocks(mr, nr, caches);
      EXPECT_GT(b.kc, 0);
      EXPECT_LE(b.kc, 256);
      EXPECT_EQ(b.kc % 8, 0);
      EXPECT_EQ(b.mc % mr, 0);
      EXPECT_EQ(b.nc % nr, 0);
      EXPECT_GE(b.mc, mr);
      EXPECT_GE(b.nc, nr);
      EXPECT_LE(int64_t{b.kc} * nr * 4, caches.l1d * 2 / 3);
      EXPECT_LE(int64_t{b.kc} * (b.mc + b.nc) * 4, caches.l2 * 5 / 12);
    }
  }
  const GemmBlocks cascade = DeriveGemmBlocks(8, 32, Caches(32 * kKiB, 1 * kMiB));
  EXPECT_EQ(cascade.kc, 168);
  EXPECT_EQ(cascade.mc, 256);
  EXPECT_EQ(cascade.nc, 384);
}

// Caches too small for the rule still give one micro-tile per block.
TEST(CacheBlocksTest, TinyOrUnknownCachesGiveMinimalBlocks) {
  for (const CacheSizes& caches : {Caches(0, 0), Caches(-1, -1)}) {
    const GemmBlocks b = DeriveGemmBlocks(8, 32, caches);
    EXPECT_EQ(b.kc, 8);
    EXPECT_EQ(b.mc, 8);
    EXPECT_EQ(b.nc, 32);
    EXPECT_EQ(ReductionPartChannels(caches, 4, 16, 512), 16);
  }
  const GemmBlocks tiny = DeriveGemmBlocks(8, 32, Caches(1 * kKiB, 4 * kKiB));
  EXPECT_EQ(tiny.kc, 8);
  EXPECT_EQ(tiny.mc, 16);
  EXPECT_EQ(tiny.nc, 32);
  EXPECT_EQ(ReductionPartChannels(Caches(1 * kKiB, 4 * kKiB), 4, 16, 512), 16);
}

TEST(CacheBlocksTest, ReductionPartsStayInL1) {
  // 128 channels, as measured, on the reference core and wherever it fits.
  EXPECT_EQ(ReductionPartChannels(kReferenceCaches, 4, 16, 512), 128);
  EXPECT_EQ(ReductionPartChannels(kReferenceCaches, 3, 16, 1024), 128);
  EXPECT_EQ(ReductionPartChannels(Caches(32 * kKiB, kMiB), 2, 8, 512), 128);
  EXPECT_EQ(ReductionPartChannels(Caches(32 * kKiB, kMiB), 3, 4, 512), 128);
  EXPECT_EQ(ReductionPartChannels(Caches(32 * kKiB, kMiB), 3, 16, 1024), 128);
  // Four AVX-512 blocks on 32 KiB: 96 channels, 24 KiB of weights.
  EXPECT_EQ(ReductionPartChannels(Caches(32 * kKiB, kMiB), 4, 16, 512), 96);
  // Up to 128 channels go whole, whatever the cache.
  EXPECT_EQ(ReductionPartChannels(Caches(32 * kKiB, kMiB), 4, 16, 128), 128);
  EXPECT_EQ(ReductionPartChannels(Caches(16 * kKiB, kMiB), 4, 16, 100), 100);
  EXPECT_EQ(ReductionPartChannels(Caches(16 * kKiB, kMiB), 4, 16, 3), 3);
  EXPECT_EQ(ReductionPartChannels(Caches(16 * kKiB, kMiB), 4, 16, 0), 1);
  for (int64_t l1d : {16 * kKiB, 32 * kKiB, 48 * kKiB, 64 * kKiB}) {
    for (int64_t blocks : {1, 2, 3, 4}) {
      for (int64_t block : {4, 8, 16}) {
        const int64_t part = ReductionPartChannels(Caches(l1d, kMiB), blocks, block, 1000);
        EXPECT_EQ(part % block, 0);
        EXPECT_GE(part, block);
        EXPECT_LE(part, 128);
        EXPECT_LE(part * blocks * block * 4, std::max(l1d * 3 / 4, blocks * block * block * 4));
      }
    }
  }
}

TEST(CacheBlocksTest, SharesScaleWithTheCache) {
  EXPECT_EQ(WindowPartBytes(kReferenceCaches), 40 * kKiB);
  EXPECT_EQ(L2Share(kReferenceCaches, 1, 16), 128 * kKiB);
  EXPECT_EQ(L2Share(Caches(32 * kKiB, kMiB), 1, 2), 512 * kKiB);
}

// The x86 tables follow the host's caches; the others keep the reference.
TEST(CacheBlocksTest, TablesUseTheHostCaches) {
  KernelTable neon;
  neon.isa = KernelIsa::kNeon;
  EXPECT_EQ(CachesFor(neon).l1d, kReferenceCaches.l1d);
  EXPECT_EQ(CachesFor(neon).l2, kReferenceCaches.l2);
  const CacheSizes& host = HostCacheSizes();
  EXPECT_GT(host.l1d, 0);
  EXPECT_GT(host.l2, 0);
  EXPECT_GT(host.l3, 0);
  for (KernelIsa isa : {KernelIsa::kAvx2Fma, KernelIsa::kAvx512}) {
    const KernelTable* table = KernelTableFor(isa);
    if (table == nullptr) continue;
    EXPECT_EQ(CachesFor(*table).l1d, host.l1d);
    const GemmBlocks blocks = DeriveGemmBlocks(table->mr, table->nr, host);
    EXPECT_EQ(table->mc, blocks.mc);
    EXPECT_EQ(table->kc, blocks.kc);
    EXPECT_EQ(table->nc, blocks.nc);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
