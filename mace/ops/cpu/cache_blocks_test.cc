#include "mace/ops/cpu/cache_blocks.h"

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_table.h"

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
  }
  const GemmBlocks tiny = DeriveGemmBlocks(8, 32, Caches(1 * kKiB, 4 * kKiB));
  EXPECT_EQ(tiny.kc, 8);
  EXPECT_EQ(tiny.mc, 16);
  EXPECT_EQ(tiny.nc, 32);
}

// The x86 tables' GEMM blocks follow the host's caches.
TEST(CacheBlocksTest, TablesUseTheHostCaches) {
  const CacheSizes& host = HostCacheSizes();
  EXPECT_GT(host.l1d, 0);
  EXPECT_GT(host.l2, 0);
  EXPECT_GT(host.l3, 0);
  for (KernelIsa isa : {KernelIsa::kAvx2Fma, KernelIsa::kAvx512}) {
    const KernelTable* table = KernelTableFor(isa);
    if (table == nullptr) continue;
    const GemmBlocks blocks = DeriveGemmBlocks(table->mr, table->nr, host);
    EXPECT_EQ(table->mc, blocks.mc);
    EXPECT_EQ(table->kc, blocks.kc);
    EXPECT_EQ(table->nc, blocks.nc);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
