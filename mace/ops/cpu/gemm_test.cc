#include "mace/ops/cpu/gemm.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/gemm_block.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ActivateReference;
using testing::ExpectNear;
using testing::RandomFloats;

struct Case {
  int64_t m, n, k;
  bool transpose_a = false, transpose_b = false;
  bool pack_a = false, pack_b = false;
  bool row_bias = false, col_bias = false;
  int32_t activation = kTileActNone;
  float hi = 6.f;  // the clamp's upper bound
};

std::vector<float> Reference(const Case& c, const std::vector<float>& a,
                             const std::vector<float>& b, const std::vector<float>& row_bias,
                             const std::vector<float>& col_bias) {
  std::vector<float> out(c.m * c.n);
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < c.k; ++l) {
        const float x = c.transpose_a ? a[l * c.m + i] : a[i * c.k + l];
        const float y = c.transpose_b ? b[j * c.k + l] : b[l * c.n + j];
        sum += static_cast<double>(x) * y;
      }
      if (c.row_bias) sum += row_bias[i];
      if (c.col_bias) sum += col_bias[j];
      float v = static_cast<float>(sum);
      if (c.activation == kTileActClamp) v = std::min(std::max(v, 0.f), c.hi);
      if (c.activation == kTileActHardSwish) v = v * std::min(std::max(v + 3.f, 0.f), 6.f) / 6.f;
      out[i * c.n + j] = v;
    }
  }
  return out;
}

// Reference() of a case's fixed data (RunCase's seeds), computed once: the
// tests run each case on every pool, and under qemu the double-precision
// reference costs more than the kernels.
const std::vector<float>& CachedReference(const Case& c, const std::vector<float>& a,
                                          const std::vector<float>& b,
                                          const std::vector<float>& row_bias,
                                          const std::vector<float>& col_bias) {
  using Key = std::array<int64_t, 9>;
  static std::map<Key, std::vector<float>> cache;
  int32_t hi_bits;
  std::memcpy(&hi_bits, &c.hi, sizeof(hi_bits));
  const Key key{c.m,        c.n,        c.k,          c.transpose_a, c.transpose_b,
                c.row_bias, c.col_bias, c.activation, hi_bits};
  auto found = cache.find(key);
  if (found == cache.end()) {
    found = cache.emplace(key, Reference(c, a, b, row_bias, col_bias)).first;
  }
  return found->second;
}

// The deepest reduction the driver runs as one block (table.kc, deeper on
// arm64 NEON): one past it takes two blocks, the later adding to C.
int64_t OneBlockDepth(const KernelTable& table) {
  int64_t k = table.kc;
  while (k < 4096 && GemmReductionDepth(table, k + 1) >= k + 1) ++k;
  return k;
}

void RunCase(const KernelTable& table, ThreadPool* pool, const Case& c) {
  SCOPED_TRACE(::testing::Message()
               << table.name << " threads " << NumThreads(pool) << " m " << c.m << " n " << c.n
               << " k " << c.k << " ta " << c.transpose_a << " tb " << c.transpose_b << " pa "
               << c.pack_a << " pb " << c.pack_b << " act " << c.activation << " hi " << c.hi);
  const std::vector<float> a = RandomFloats(c.m * c.k, 11);
  const std::vector<float> b = RandomFloats(c.k * c.n, 12);
  const std::vector<float> row_bias = RandomFloats(c.m, 13);
  const std::vector<float> col_bias = RandomFloats(c.n, 14);
  GemmOperand lhs, rhs;
  lhs.data = a.data();
  lhs.stride = c.transpose_a ? 1 : c.k;
  lhs.depth_stride = c.transpose_a ? c.m : 1;
  rhs.data = b.data();
  rhs.stride = c.transpose_b ? c.k : 1;
  rhs.depth_stride = c.transpose_b ? 1 : c.n;
  PackedPanels packed_a, packed_b;
  if (c.pack_a) {
    packed_a.Pack(lhs.data, c.m, c.k, lhs.stride, lhs.depth_stride, table.mr);
    lhs.packed = &packed_a;
  }
  if (c.pack_b) {
    packed_b.Pack(rhs.data, c.n, c.k, rhs.stride, rhs.depth_stride, table.nr);
    rhs.packed = &packed_b;
  }
  TileEpilogue epilogue;
  epilogue.row_bias = c.row_bias ? row_bias.data() : nullptr;
  epilogue.col_bias = c.col_bias ? col_bias.data() : nullptr;
  epilogue.activation = c.activation;
  epilogue.lo = 0.f;
  epilogue.hi = c.hi;
  // A wider C than n checks that ldc is honoured and the margin untouched.
  const int64_t ldc = c.n + 3;
  std::vector<float> out(c.m * ldc, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> scratch(
      NumThreads(pool) * GemmScratchFloatsPerThread(table, c.m, c.n, c.k, lhs, rhs) + 1);
  Gemm(table, c.m, c.n, c.k, lhs, rhs, out.data(), ldc, epilogue, pool, scratch.data());
  std::vector<float> got(c.m * c.n);
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) got[i * c.n + j] = out[i * ldc + j];
    for (int64_t j = c.n; j < ldc; ++j) ASSERT_TRUE(std::isnan(out[i * ldc + j]));
  }
  const float tolerance = 2e-6f * static_cast<float>(c.k) + 1e-5f;
  ExpectNear(got, CachedReference(c, a, b, row_bias, col_bias), tolerance, 1e-5f);
}

// A plain A with adjacent depth is read in place by tables with a
// gemm_direct_a kernel: the same multiply-adds in the same order as the
// packed tiles, so the same bits, at tile, panel and cache-block edges
// (partial row and column panels, several reduction blocks), with
// prepacked and plain B, bias and activation, on every pool.
TEST(GemmTest, DirectAMatchesPackedBitForBit) {
  int tables = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->gemm_direct_a == nullptr) continue;
    ++tables;
    KernelTable packed_only = *table;
    packed_only.gemm_direct_a = nullptr;
    const int mr = table->mr, nr = table->nr;
    for (auto& pool : testing::PoolsUnderTest()) {
      for (int64_t m : {int64_t{1}, int64_t{mr} - 1, int64_t{mr} + 3, int64_t{4} * mr,
                        int64_t{table->mc} + mr + 1}) {
        for (int64_t n : {int64_t{nr}, int64_t{nr} + 5, int64_t{3} * nr}) {
          for (int64_t k : {int64_t{1}, int64_t{7}, int64_t{table->kc} + 9}) {
            for (bool pack_b : {false, true}) {
              SCOPED_TRACE(::testing::Message()
                           << table->name << " threads " << NumThreads(pool.get()) << " m " << m
                           << " n " << n << " k " << k << " pack_b " << pack_b);
              const std::vector<float> a = RandomFloats(m * k, 31);
              const std::vector<float> b = RandomFloats(k * n, 32);
              const std::vector<float> bias = RandomFloats(n, 33);
              GemmOperand lhs, rhs;
              lhs.data = a.data();
              lhs.stride = k;
              lhs.depth_stride = 1;
              rhs.data = b.data();
              rhs.stride = 1;
              rhs.depth_stride = n;
              PackedPanels packed_b;
              if (pack_b) {
                packed_b.Pack(b.data(), n, k, 1, n, nr);
                rhs.packed = &packed_b;
              }
              TileEpilogue epilogue;
              epilogue.col_bias = bias.data();
              epilogue.activation = kTileActClamp;
              epilogue.lo = 0.f;
              epilogue.hi = 1.5f;
              std::vector<float> scratch(NumThreads(pool.get()) *
                                             GemmScratchFloatsPerThread(*table, m, n, k, lhs, rhs) +
                                         1);
              std::vector<float> direct(m * n, -1.f), packed(m * n, -2.f);
              Gemm(*table, m, n, k, lhs, rhs, direct.data(), n, epilogue, pool.get(),
                   scratch.data());
              Gemm(packed_only, m, n, k, lhs, rhs, packed.data(), n, epilogue, pool.get(),
                   scratch.data());
              ASSERT_EQ(0,
                        std::memcmp(direct.data(), packed.data(), direct.size() * sizeof(float)));
            }
          }
        }
      }
    }
  }
  // Which tables must have the kernel: x86/gemm_x86_64_test.cc.
  RecordProperty("tables_with_direct_a", tables);
}

TEST(GemmTest, TileAndBlockBoundaries) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int mr = table->mr, nr = table->nr;
    for (auto& pool : testing::PoolsUnderTest()) {
      for (int64_t m : {1, mr - 1, mr, mr + 1, 2 * mr + 1}) {
        for (int64_t n : {1, nr - 1, nr, nr + 1, 3 * nr + 5}) {
          // NEON arm64 runs k in steps of 8, then 4, then 1 to 3 more.
          for (int64_t k : {1, 3, 4, 8, 12, 15, 17}) {
            RunCase(*table, pool.get(), {m, n, k});
          }
        }
      }
    }
  }
}

// Every row tail up to 9, column tail up to 13 and depth tail of the
// kernels' loops (1, 2, 3, 5), and depths just around kc and two kc, with
// a row bias or none and no clamp, ReLU or a ReLU6-like clamp that binds
// (hi 0.5, below many sums).
TEST(GemmTest, RowColumnAndDepthTails) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t kc = table->kc;
    int variant = 0;
    for (int64_t k : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{5}, kc - 1, kc + 1, 2 * kc + 1}) {
      for (int64_t m = 1; m <= 9; ++m) {
        for (int64_t n = 1; n <= 13; ++n, ++variant) {
          Case c{m, n, k};
          c.row_bias = variant % 2 == 0;
          c.activation = variant % 3 == 0 ? kTileActNone : kTileActClamp;
          c.hi = variant % 3 == 2 ? 0.5f : std::numeric_limits<float>::infinity();
          c.pack_a = variant % 5 < 2;
          RunCase(*table, nullptr, c);
        }
      }
    }
  }
}

TEST(GemmTest, ReductionAndCacheBlocks) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    for (auto& pool : testing::PoolsUnderTest()) {
      // k across one and two kc blocks, m across an mc block, n across nc.
      RunCase(*table, pool.get(), {2 * table->mr + 1, 2 * table->nr + 3, table->kc - 1});
      RunCase(*table, pool.get(), {table->mr + 2, table->nr + 1, table->kc + 1});
      // The same across the deepest single block, into two and three blocks.
      const int64_t block = OneBlockDepth(*table);
      RunCase(*table, pool.get(), {2 * table->mr + 1, 2 * table->nr + 3, block});
      RunCase(*table, pool.get(), {table->mr + 2, 3 * table->nr + 1, block + 1});
      Case three{2 * table->mr + 2, 2 * table->nr + 4, 2 * block + 3};
      three.row_bias = true;
      three.activation = kTileActClamp;
      three.hi = 0.5f;
      RunCase(*table, pool.get(), three);
      RunCase(*table, pool.get(), {table->mc + table->mr + 1, table->nr - 1, 9});
      RunCase(*table, pool.get(), {3, table->nc + table->nr + 1, 5});
    }
  }
}

// Each cache block just below, at and above its size, the others small.
TEST(GemmTest, EachCacheBlockEdge) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr;
    const int64_t kc = table->kc, mc = table->mc, nc = table->nc;
    for (auto& pool : testing::PoolsUnderTest()) {
      // 2 kc: armv7 NEON's driver blocks the reduction at twice its kc.
      for (int64_t k : {kc - 1, kc, kc + 1, 2 * kc - 1, 2 * kc, 2 * kc + 1}) {
        RunCase(*table, pool.get(), {mr + 1, nr - 1, k});
      }
      for (int64_t m : {mc - 1, mc, mc + 1}) RunCase(*table, pool.get(), {m, nr + 1, 7});
      // arm64 NEON lets a rest of up to nc / 16 columns join the last block.
      for (int64_t n : {nc - 1, nc, nc + 1, nc + nc / 16, nc + nc / 16 + 1, 2 * nc + 3}) {
        RunCase(*table, pool.get(), {mr - 1, n, 5});
      }
    }
  }
}

TEST(GemmTest, OperandLayoutsBiasAndActivation) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    for (auto& pool : testing::PoolsUnderTest()) {
      for (int variant = 0; variant < 16; ++variant) {
        Case c{table->mr + 3, table->nr + 5, 37};
        c.transpose_a = variant & 1;
        c.transpose_b = variant & 2;
        c.pack_a = variant & 4;
        c.pack_b = variant & 8;
        c.row_bias = variant % 3 == 0;
        c.col_bias = variant % 3 == 1;
        c.activation = variant % 3;
        RunCase(*table, pool.get(), c);
      }
      Case both{2 * table->mr, 2 * table->nr, table->kc + 7};
      both.row_bias = both.col_bias = true;
      both.activation = kTileActHardSwish;
      RunCase(*table, pool.get(), both);
      // A column bias alone (a FullyConnected's) over three reduction
      // blocks, with full, short and narrow tiles, clamped or not.
      for (int variant = 0; variant < 4; ++variant) {
        Case column{3 * table->mr + 5, 3 * table->nr + 1, 2 * OneBlockDepth(*table) + 3};
        column.col_bias = true;
        column.pack_a = variant & 1;
        column.activation = variant & 2 ? kTileActClamp : kTileActNone;
        RunCase(*table, pool.get(), column);
      }
    }
  }
}

// Partial tiles of every width (on x86 one vector, two, and narrow tails
// computed column by column, alone or after a whole vector), and rows short
// of mr, with biases and an activation; k not a multiple of the unroll, and
// k across kc blocks so partial tiles add to what C holds, and the same
// with no bias or activation. Also with the staging tile instead of the
// partial kernel.
TEST(GemmTest, PartialTiles) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    KernelTable staged = *table;
    staged.gemm_partial = nullptr;
    for (const KernelTable* variant : {table, static_cast<const KernelTable*>(&staged)}) {
      const int64_t mr = variant->mr, nr = variant->nr;
      std::vector<int64_t> widths;
      for (int64_t n = 1; n < nr; ++n) widths.push_back(n);
      widths.push_back(2 * nr + nr / 2 + 3);
      widths.push_back(nr + 1);
      for (auto& pool : testing::PoolsUnderTest()) {
        for (int64_t n : widths) {
          for (int64_t m : {mr - 1, 2 * mr + 3}) {
            for (int64_t k : {int64_t{1}, int64_t{6}, int64_t{13}, OneBlockDepth(*variant) + 5}) {
              Case c{m, n, k};
              c.row_bias = c.col_bias = true;
              c.activation = n % 3 == 0 ? kTileActHardSwish : kTileActClamp;
              RunCase(*variant, pool.get(), c);
              // No epilogue at all: a kernel may store such a tile from
              // its registers (and add to C there on later blocks).
              RunCase(*variant, pool.get(), Case{m, n, k});
            }
          }
        }
      }
    }
  }
}

// Last column panels of at most 4 columns under full row panels, and last
// row panels of at most 4 rows (m = 16 as 16 output channels, 14 as 32 or
// 128, a panel of 2), with the epilogues a convolution gives (a row bias,
// or none, with a clamp or none): armv7 runs these on half of the B panel
// or part of the A panel. Depths around the loops' 4 and 8 depths and across kc blocks
// (later blocks add to C); A packed or not; n = 49 and 196 as 7x7 and 14x14 maps.
TEST(GemmTest, NarrowLastPanels) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr, kc = table->kc;
    const int64_t block = OneBlockDepth(*table);
    for (int64_t n :
         {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{5}, nr, nr + 4, int64_t{49}, int64_t{196}}) {
      for (int64_t m :
           {int64_t{2}, int64_t{4}, int64_t{5}, mr, 2 * mr + 1, 2 * mr + 2, int64_t{16}}) {
        for (int64_t k : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{7}, int64_t{8}, int64_t{12},
                          int64_t{15}, int64_t{17}, kc + 5, block > kc ? block + 5 : 2 * kc + 1}) {
          for (int variant = 0; variant < 4; ++variant) {
            Case c{m, n, k};
            c.row_bias = variant % 2 == 0;
            c.activation = variant < 2 ? kTileActClamp : kTileActNone;
            c.pack_a = (n + k) % 2 == 0;
            RunCase(*table, nullptr, c);
          }
        }
      }
    }
  }
}

// ShuffleNet v2's 1x1 layers: 58, 116 and 232 output channels (row tails
// of 4, 2 and 4 under full panels of 6) on maps of 784, 196 and 49
// positions (column tails of 0, 4 and 1), here smaller where the shape
// does not matter, with a row bias and ReLU; odd m and shallow odd k,
// every n up to past a tile, and pointwise depths from 24 to 232.
TEST(GemmTest, ShuffleNetShapes) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    for (int64_t m : {int64_t{58}, int64_t{116}, int64_t{13}}) {
      std::vector<int64_t> ns = {49, 196};
      for (int64_t n = 1; n <= 13; ++n) ns.push_back(n);
      for (int64_t n : ns) {
        for (int64_t k : {int64_t{3}, int64_t{17}, int64_t{24}, int64_t{58}}) {
          Case c{m, n, k};
          c.pack_a = true;
          c.row_bias = (n + k) % 3 != 0;
          c.activation = n % 2 == 0 ? kTileActClamp : kTileActNone;
          RunCase(*table, nullptr, c);
        }
      }
    }
    for (int64_t k : {int64_t{116}, int64_t{232}}) {
      Case c{2 * table->mr + 4, 49, k};
      c.pack_a = true;
      c.row_bias = true;
      c.activation = kTileActClamp;
      RunCase(*table, nullptr, c);
    }
  }
}

// ShuffleNet v2's 1x1 layers: 58 and 116 output channels (last row panels
// of 2 and 4 rows on arm64's 8, which run on rows of their own), 21 (an odd
// panel of 5); maps of 1 to 13 positions, 49 and 196 (7x7 and 14x14);
// shallow and odd depths, and one across kc blocks. With the epilogue a
// convolution gives (row bias and ReLU) and with none; A packed or not.
TEST(GemmTest, ShortLastRowPanels) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t kc = table->kc, block = OneBlockDepth(*table);
    for (int64_t m : {int64_t{58}, int64_t{116}, int64_t{21}}) {
      for (int64_t n : {int64_t{1}, int64_t{4}, int64_t{5}, int64_t{12}, int64_t{13}, int64_t{49},
                        int64_t{196}}) {
        for (int64_t k : {int64_t{3}, int64_t{24}, int64_t{58}, kc + 3, block + 3}) {
          if (n * k > 196 * 58) continue;  // the deep case on small maps only
          for (int variant = 0; variant < 2; ++variant) {
            Case c{m, n, k};
            c.row_bias = variant == 0;
            c.activation = variant == 0 ? kTileActClamp : kTileActNone;
            c.pack_a = (n + k + variant) % 2 == 0;
            RunCase(*table, nullptr, c);
          }
        }
      }
    }
  }
}

// The full-tile micro-kernel alone, on panels in its layout (kc groups of
// mr A values, kc groups of nr B values), over every depth from 1 past two
// rounds of any unroll and some deep ones, with each epilogue: row and
// column bias, clamp with a finite or an infinite upper bound, hard-swish.
// The reduction is one block, or two as Gemm runs them (the first
// overwrites C, the second adds to it and is the last; both carry the
// biases, which a kernel adds once, with either block). C starts as NaN
// and is wider than the tile; its margin must stay NaN.
// Every depth from 1 past two rounds of the deepest unroll (arm64's 16
// steps) with every tail, and some deep ones.
std::vector<int64_t> MicroKernelDepths() {
  std::vector<int64_t> depths;
  for (int64_t k = 1; k <= 40; ++k) depths.push_back(k);
  for (int64_t k : {47, 63, 64, 255, 256, 257}) depths.push_back(k);
  return depths;
}

TEST(GemmTest, MicroKernelDepthsAndEpilogues) {
  const std::vector<int64_t> depths = MicroKernelDepths();
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr, ldc = nr + 5;
    for (int64_t k : depths) {
      const std::vector<float> a = RandomFloats(mr * k, 21);
      const std::vector<float> b = RandomFloats(nr * k, 22);
      const std::vector<float> row_bias = RandomFloats(mr, 23);
      const std::vector<float> col_bias = RandomFloats(nr, 24);
      for (int variant = 0; variant < 16; ++variant) {
        const int64_t first = variant & 1 ? (k + 1) / 2 : k;
        const int mode = variant >> 1;
        TileEpilogue epilogue;
        epilogue.row_bias = mode % 2 == 0 ? row_bias.data() : nullptr;
        epilogue.col_bias = mode == 3 || mode == 6 ? col_bias.data() : nullptr;
        epilogue.activation = mode < 2   ? kTileActNone
                              : mode < 6 ? kTileActClamp
                                         : kTileActHardSwish;
        epilogue.lo = -0.5f;
        epilogue.hi = mode == 2 || mode == 3 ? std::numeric_limits<float>::infinity() : 1.5f;
        SCOPED_TRACE(::testing::Message()
                     << table->name << " k " << k << " first block " << first << " mode " << mode);
        std::vector<float> expected(mr * nr);
        for (int64_t i = 0; i < mr; ++i) {
          for (int64_t j = 0; j < nr; ++j) {
            double sum = 0;
            for (int64_t l = 0; l < k; ++l)
              sum += static_cast<double>(a[l * mr + i]) * b[l * nr + j];
            if (epilogue.row_bias != nullptr) sum += row_bias[i];
            if (epilogue.col_bias != nullptr) sum += col_bias[j];
            expected[i * nr + j] = ActivateReference(static_cast<float>(sum), epilogue);
          }
        }
        std::vector<float> c(mr * ldc, std::numeric_limits<float>::quiet_NaN());
        epilogue.accumulate = false;
        epilogue.last = first == k;
        table->gemm(first, a.data(), b.data(), c.data(), ldc, epilogue);
        if (first < k) {
          epilogue.accumulate = true;
          epilogue.last = true;
          table->gemm(k - first, a.data() + first * mr, b.data() + first * nr, c.data(), ldc,
                      epilogue);
        }
        std::vector<float> got(mr * nr);
        for (int64_t i = 0; i < mr; ++i) {
          for (int64_t j = 0; j < nr; ++j) got[i * nr + j] = c[i * ldc + j];
          for (int64_t j = nr; j < ldc; ++j) ASSERT_TRUE(std::isnan(c[i * ldc + j]));
        }
        ExpectNear(got, expected, 2e-6f * static_cast<float>(k) + 1e-5f, 1e-5f);
      }
    }
  }
}

// The partial-tile micro-kernel alone, where a table has one: every width
// short of nr, with mr rows and fewer, and the whole width with 1 to mr - 1
// rows, over the same depths, in one
// reduction block or two (the biases on both, added once), with no epilogue
// (a kernel may store such a tile straight from its registers, as
// Winograd's products are), row bias and clamp, or column bias and
// hard-swish. C starts as NaN; outside the tile it must stay NaN.
TEST(GemmTest, PartialMicroKernelDepths) {
  const std::vector<int64_t> depths = MicroKernelDepths();
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->gemm_partial == nullptr) continue;
    const int64_t mr = table->mr, nr = table->nr, ldc = nr + 5;
    for (int64_t k : depths) {
      const std::vector<float> a = RandomFloats(mr * k, 41);
      const std::vector<float> b = RandomFloats(nr * k, 42);
      const std::vector<float> row_bias = RandomFloats(mr, 43);
      const std::vector<float> col_bias = RandomFloats(nr, 44);
      // Every width short of nr, at mr rows and fewer; and whole-width
      // tiles of a last row panel (1 to mr - 1 rows: arm64 runs 2 and 4 on
      // rows of their own, AVX2 issues 2, 4 or 6 rows' multiply-adds).
      std::vector<std::pair<int64_t, int64_t>> shapes;
      for (const int64_t rows : {mr, mr - 3, int64_t{1}}) {
        for (int64_t cols = 1; cols < nr; ++cols) shapes.emplace_back(rows, cols);
      }
      for (int64_t rows = 1; rows < mr; ++rows) shapes.emplace_back(rows, nr);
      for (const auto& [rows, cols] : shapes) {
        for (int variant = 0; variant < 6; ++variant) {
          const int64_t first = variant & 1 ? (k + 1) / 2 : k;
          const int mode = variant >> 1;
          TileEpilogue epilogue;
          epilogue.row_bias = mode == 1 ? row_bias.data() : nullptr;
          epilogue.col_bias = mode == 2 ? col_bias.data() : nullptr;
          epilogue.activation = mode == 0   ? kTileActNone
                                : mode == 1 ? kTileActClamp
                                            : kTileActHardSwish;
          epilogue.lo = -0.5f;
          // ReLU (no upper bound) at odd depths.
          epilogue.hi = k % 2 == 1 ? std::numeric_limits<float>::infinity() : 1.5f;
          SCOPED_TRACE(::testing::Message()
                       << table->name << " k " << k << " rows " << rows << " cols " << cols
                       << " first block " << first << " mode " << mode);
          std::vector<float> expected(rows * cols);
          for (int64_t i = 0; i < rows; ++i) {
            for (int64_t j = 0; j < cols; ++j) {
              double sum = 0;
              for (int64_t l = 0; l < k; ++l)
                sum += static_cast<double>(a[l * mr + i]) * b[l * nr + j];
              if (epilogue.row_bias != nullptr) sum += row_bias[i];
              if (epilogue.col_bias != nullptr) sum += col_bias[j];
              expected[i * cols + j] = ActivateReference(static_cast<float>(sum), epilogue);
            }
          }
          std::vector<float> c(mr * ldc, std::numeric_limits<float>::quiet_NaN());
          epilogue.accumulate = false;
          epilogue.last = first == k;
          table->gemm_partial(first, a.data(), b.data(), c.data(), ldc, static_cast<int>(rows),
                              static_cast<int>(cols), epilogue);
          if (first < k) {
            epilogue.accumulate = true;
            epilogue.last = true;
            table->gemm_partial(k - first, a.data() + first * mr, b.data() + first * nr, c.data(),
                                ldc, static_cast<int>(rows), static_cast<int>(cols), epilogue);
          }
          std::vector<float> got(rows * cols);
          for (int64_t i = 0; i < mr; ++i) {
            for (int64_t j = 0; j < ldc; ++j) {
              if (i < rows && j < cols) {
                got[i * cols + j] = c[i * ldc + j];
              } else {
                ASSERT_TRUE(std::isnan(c[i * ldc + j])) << "row " << i << " col " << j;
              }
            }
          }
          ExpectNear(got, expected, 2e-6f * static_cast<float>(k) + 1e-5f, 1e-5f);
        }
      }
    }
  }
}

// Walks of many full tiles, which a table's run kernel takes in one call:
// rows outer (a shallow B block) and columns outer (k * n past the L1
// block), with packed weights (whose first tiles prefetch and run alone),
// each epilogue, and k across kc blocks.
TEST(GemmTest, FullTileRuns) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr, kc = table->kc;
    for (auto& pool : testing::PoolsUnderTest()) {
      for (int variant = 0; variant < 8; ++variant) {
        Case rows_outer{3 * mr + 1, 6 * nr + 2, 37};
        Case columns_outer{4 * mr + 2, 8192 / kc + 5 * nr + 3,
                           variant % 2 == 0 ? kc + 9 : OneBlockDepth(*table) + 9};
        // Three row blocks, the last of 12 rows: each block's row bias
        // (arm64 widens it per block) at its own rows.
        Case row_blocks{2 * table->mc + mr + 4, 5 * nr + 3, 8192 / (5 * nr) + 11};
        // The same over two reduction blocks, both deep (armv7 splits each
        // B block once for its row blocks; the second starts from C).
        Case deep_row_blocks = row_blocks;
        deep_row_blocks.k = OneBlockDepth(*table) + 100;
        // Both with a last panel of 4 columns or 1 (armv7 copies it dense
        // with the block's split and its 6 x 4 or 6 x 1 tiles read the
        // copy), a depth tail of 1 to 7.
        Case four_columns = row_blocks;
        four_columns.n = 5 * nr + 4;
        four_columns.k += variant % 4 == 0 ? 0 : variant;
        Case deep_four_columns = deep_row_blocks;
        deep_four_columns.n = 5 * nr + 4;
        Case one_column = four_columns;
        one_column.n = 5 * nr + 1;
        one_column.k += 2;
        Case deep_one_column = deep_row_blocks;
        deep_one_column.n = 5 * nr + 1;
        for (Case c : {rows_outer, columns_outer, row_blocks, deep_row_blocks, four_columns,
                       deep_four_columns, one_column, deep_one_column}) {
          c.pack_a = variant & 1;
          c.row_bias = variant & 2;
          c.activation = variant & 4 ? kTileActClamp : kTileActNone;
          if (variant == 7) {
            c.col_bias = true;
            c.activation = kTileActHardSwish;
          }
          RunCase(*table, pool.get(), c);
        }
      }
    }
  }
}

// The run kernel alone, where a table has one: three tiles along a column
// of C (A panels, C rows and row biases advance) or a row (B panels, C
// columns and column biases advance), in one reduction block or two, with
// each epilogue; C's margin between and beside the tiles must stay NaN.
// The driver's run kernel: the table's, or its port's (arm64's).
TEST(GemmTest, RunKernelSteps) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const GemmRunMicroKernel gemm_run = GemmRunKernel(*table);
    if (gemm_run == nullptr) continue;
    const int64_t mr = table->mr, nr = table->nr, tiles = 3;
    // Depths around armv7's 16-step pass, which the first pass enters
    // part-way, and ShuffleNet v2's 24 and 58; from 64 on, armv7's
    // unclamped blocks from C or zero run as 6 x 4 halves in passes of 8
    // units of 4 depths, entered after 0 to 7 units and 0 to 3 depths.
    for (int64_t k : {1, 2, 7, 8, 13, 15, 16, 17, 24, 31, 33, 58, 64, 70, 76, 90, 101, 150, 259}) {
      for (bool along_rows : {true, false}) {
        const int64_t rows = along_rows ? tiles * mr : mr, cols = along_rows ? nr : tiles * nr;
        // A gap of 2 floats between tile columns checks the C step.
        const int64_t col_step = nr + 2, ldc = along_rows ? nr + 3 : tiles * col_step + 1;
        const std::vector<float> a = RandomFloats(rows * k, 31);
        const std::vector<float> b = RandomFloats(cols * k, 32);
        const std::vector<float> row_bias = RandomFloats(rows, 33);
        const std::vector<float> col_bias = RandomFloats(cols, 34);
        for (int variant = 0; variant < 16; ++variant) {
          const int64_t first = variant & 1 ? (k + 1) / 2 : k;
          // Modes 6 and 7: a column bias alone (a FullyConnected's),
          // clamped or not.
          const int mode = variant >> 1;
          TileEpilogue epilogue;
          epilogue.row_bias = mode != 1 && mode < 6 ? row_bias.data() : nullptr;
          epilogue.col_bias = mode >= 5 ? col_bias.data() : nullptr;
          epilogue.activation = mode < 2 || mode == 7 ? kTileActNone
                                : mode == 5           ? kTileActHardSwish
                                                      : kTileActClamp;
          epilogue.lo = -0.5f;
          epilogue.hi = mode == 3 ? std::numeric_limits<float>::infinity() : 1.5f;
          SCOPED_TRACE(::testing::Message()
                       << table->name << " k " << k << " along rows " << along_rows << " first "
                       << first << " mode " << mode);
          // Tile t's element (i, j) is row t * mr + i (along rows) or
          // column t * nr + j of the product.
          const auto c_index = [&](int64_t t, int64_t i, int64_t j) {
            return along_rows ? (t * mr + i) * ldc + j : i * ldc + t * col_step + j;
          };
          std::vector<float> c(rows * ldc, std::numeric_limits<float>::quiet_NaN());
          const int64_t c_step = along_rows ? mr * ldc : col_step;
          const int64_t row_step = along_rows ? mr : 0, col_step_bias = along_rows ? 0 : nr;
          // Panels of one tile hold k groups; the second block starts
          // `first` groups in.
          epilogue.accumulate = false;
          epilogue.last = first == k;
          std::vector<float> a_first, b_first, a_second, b_second;
          for (int64_t t = 0; t < (along_rows ? tiles : 1); ++t) {
            const float* p = a.data() + t * mr * k;
            a_first.insert(a_first.end(), p, p + first * mr);
            a_second.insert(a_second.end(), p + first * mr, p + k * mr);
          }
          for (int64_t t = 0; t < (along_rows ? 1 : tiles); ++t) {
            const float* p = b.data() + t * nr * k;
            b_first.insert(b_first.end(), p, p + first * nr);
            b_second.insert(b_second.end(), p + first * nr, p + k * nr);
          }
          const int64_t second = k - first;
          gemm_run(tiles, first, a_first.data(), along_rows ? mr * first : 0, b_first.data(),
                   along_rows ? 0 : nr * first, c.data(), c_step, ldc, row_step, col_step_bias,
                   epilogue);
          if (second > 0) {
            epilogue.accumulate = true;
            epilogue.last = true;
            gemm_run(tiles, second, a_second.data(), along_rows ? mr * second : 0, b_second.data(),
                     along_rows ? 0 : nr * second, c.data(), c_step, ldc, row_step, col_step_bias,
                     epilogue);
          }
          std::vector<float> got, expected;
          for (int64_t t = 0; t < tiles; ++t) {
            for (int64_t i = 0; i < mr; ++i) {
              for (int64_t j = 0; j < nr; ++j) {
                const int64_t row = along_rows ? t * mr + i : i;
                const int64_t col = along_rows ? j : t * nr + j;
                const float* a_panel = a.data() + (along_rows ? t * mr * k : 0);
                const float* b_panel = b.data() + (along_rows ? 0 : t * nr * k);
                double sum = 0;
                for (int64_t l = 0; l < k; ++l) {
                  sum += static_cast<double>(a_panel[l * mr + i]) * b_panel[l * nr + j];
                }
                if (epilogue.row_bias != nullptr) sum += row_bias[row];
                if (epilogue.col_bias != nullptr) sum += col_bias[col];
                expected.push_back(ActivateReference(static_cast<float>(sum), epilogue));
                got.push_back(c[c_index(t, i, j)]);
                c[c_index(t, i, j)] = std::numeric_limits<float>::quiet_NaN();
              }
            }
          }
          // Everything the tiles did not cover is still NaN.
          for (float v : c) ASSERT_TRUE(std::isnan(v));
          ExpectNear(got, expected, 2e-6f * static_cast<float>(k) + 1e-5f, 1e-5f);
        }
      }
    }
  }
}

// MobileNet v2's and SqueezeNet 1.1's 1x1 layers, smaller: 16, 24 and 96
// output channels and an odd count, 16 and 24 input channels and an odd
// count, on maps of 1 to 13 positions, 7x7 and 13x13; then walks with
// columns outer (k * n past the L1 block) whose full panels run in one call,
// shallow (6 x 8 tiles) and from 64 deep (6 x 4 halves), with the row bias
// starting each tile or zero, clamped or not.
TEST(GemmTest, MobileNetV2AndSqueezeNetShapes) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    for (int64_t m : {int64_t{16}, int64_t{24}, int64_t{23}}) {
      for (int64_t k : {int64_t{16}, int64_t{24}, int64_t{17}}) {
        for (int64_t n = 1; n <= 13; ++n) {
          Case c{m, n, k};
          c.row_bias = true;
          c.activation = kTileActClamp;
          RunCase(*table, nullptr, c);
        }
        for (int64_t n : {int64_t{49}, int64_t{169}}) {
          for (int variant = 0; variant < 4; ++variant) {
            Case c{m, n, k};
            c.row_bias = variant & 1;
            c.activation = variant & 2 ? kTileActClamp : kTileActNone;
            c.pack_a = variant == 3;
            RunCase(*table, nullptr, c);
          }
        }
      }
    }
    for (Case c : {Case{96, 600, 16}, Case{24, 400, 24}, Case{31, 300, 33}, Case{30, 130, 70},
                   Case{24, 140, 96}}) {
      for (int variant = 0; variant < 4; ++variant) {
        c.row_bias = variant & 1;
        c.activation = variant & 2 ? kTileActClamp : kTileActNone;
        c.pack_a = variant == 1;
        RunCase(*table, nullptr, c);
      }
    }
  }
}

// Clamps whose upper bound the products pass (0.5, where random values
// stay below ReLU6's 6) through the driver, on the walks that run from a
// widened row bias on arm64: rows outer, columns outer, several row
// blocks and ShuffleNet v2's shapes. Without them a wrong upper clamp
// (skipped, or at another bound) goes unseen.
TEST(GemmTest, UpperClampOnBiasedRuns) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr, kc = table->kc;
    const Case shapes[] = {
        {3 * mr + 1, 6 * nr + 2, 37},
        {4 * mr + 2, 8192 / kc + 5 * nr + 3, 24},
        {2 * table->mc + mr + 4, 5 * nr + 3, 8192 / (5 * nr) + 11},
        {58, 49, 58},
        {116, 196, 58},
        {58, 784, 24},
    };
    for (Case c : shapes) {
      for (bool pack_a : {false, true}) {
        c.pack_a = pack_a;
        c.row_bias = true;
        c.activation = kTileActClamp;
        c.hi = 0.5f;
        // The bound is met: some products (with their bias) lie above it.
        Case unclamped = c;
        unclamped.activation = kTileActNone;
        const std::vector<float> sums =
            Reference(unclamped, RandomFloats(c.m * c.k, 11), RandomFloats(c.k * c.n, 12),
                      RandomFloats(c.m, 13), RandomFloats(c.n, 14));
        ASSERT_GT(std::count_if(sums.begin(), sums.end(), [&](float v) { return v > c.hi; }),
                  c.m * c.n / 8);
        RunCase(*table, nullptr, c);
      }
    }
  }
}

// PackPanels on rows `stride` apart (a weight matrix packed as B^T, a
// row-major A), with the depth contiguous (the fast path; on x86-64 and ARM
// 4x4 transposes for groups of four rows and an interleave for two more: 2,
// 6 and 10 have those pairs) or
// `depth_stride` apart: full panels, a zero-padded last one, depths below,
// at and past steps of four, every float written (the output starts as
// NaN).
TEST(GemmTest, PackPanelsStridedRows) {
  for (int width : {2, 6, 8, 10, 12, 16, 32}) {
    for (int64_t rows : {int64_t{1}, int64_t{width} - 1, int64_t{width} + 1, int64_t{2} * width,
                         int64_t{3} * width + 5}) {
      for (int64_t depth : {1, 3, 4, 5, 8, 33}) {
        for (int64_t depth_stride : {1, 2}) {
          const int64_t stride = depth * depth_stride + 3;
          const std::vector<float> src = RandomFloats(rows * stride, 22);
          const int64_t panels = (rows + width - 1) / width;
          std::vector<float> got(panels * width * depth, std::numeric_limits<float>::quiet_NaN());
          PackPanels(src.data(), rows, depth, stride, depth_stride, width, got.data());
          for (int64_t p = 0; p < panels; ++p) {
            for (int64_t d = 0; d < depth; ++d) {
              for (int i = 0; i < width; ++i) {
                const int64_t row = p * width + i;
                const float want = row < rows ? src[row * stride + d * depth_stride] : 0.f;
                ASSERT_EQ(got[(p * depth + d) * width + i], want)
                    << "width " << width << " rows " << rows << " depth " << depth
                    << " depth stride " << depth_stride;
              }
            }
          }
        }
      }
    }
  }
}

// The row-major fast path of PackPanels (rows adjacent in memory), for each
// panel width a table uses and one it does not: full panels, a zero-padded
// last panel, and a source row pitch wider than the rows; depths below, at
// and past arm64's four rows a loop.
TEST(GemmTest, PackPanelsAdjacentRows) {
  for (int width : {6, 8, 12, 16, 32}) {
    // Last panels (at arm64's width of 12) of 1, 11, 0, 5, 4, 8 and 1
    // (after whole panels: armv7's 8-wide one-column tail) rows.
    for (int64_t rows : {int64_t{1}, int64_t{width} - 1, int64_t{width}, int64_t{3} * width + 5,
                         int64_t{2} * width + 4, int64_t{2} * width + 8, int64_t{2} * width + 1}) {
      // armv7's 8-wide panels take eight depth rows a loop, then four, then
      // single ones.
      for (int64_t depth : {1, 4, 7, 8, 9, 12, 13, 16, 23}) {
        const int64_t pitch = rows + 3;
        const std::vector<float> src = RandomFloats(depth * pitch, 21);
        const int64_t panels = (rows + width - 1) / width;
        std::vector<float> got(panels * width * depth, std::numeric_limits<float>::quiet_NaN());
        PackPanels(src.data(), rows, depth, 1, pitch, width, got.data());
        for (int64_t p = 0; p < panels; ++p) {
          for (int64_t d = 0; d < depth; ++d) {
            for (int i = 0; i < width; ++i) {
              const int64_t row = p * width + i;
              const float want = row < rows ? src[d * pitch + row] : 0.f;
              ASSERT_EQ(got[(p * depth + d) * width + i], want)
                  << "width " << width << " rows " << rows << " depth " << depth;
            }
          }
        }
      }
    }
  }
}

// PackedPanels packed again (attention's K and V, every run): the same size
// keeps its storage, another size takes new storage, and the panels hold
// the latest source either way.
TEST(GemmTest, PackedPanelsRepack) {
  PackedPanels packed;
  const float* first_storage = nullptr;
  // (rows, depth): the same size twice, then more and fewer floats.
  const int64_t shapes[][2] = {{37, 20}, {37, 20}, {70, 20}, {5, 3}};
  uint32_t seed = 31;
  for (const auto& shape : shapes) {
    const int64_t rows = shape[0], depth = shape[1];
    const std::vector<float> src = RandomFloats(rows * depth, seed++);
    packed.Pack(src.data(), rows, depth, depth, 1, 16);
    if (first_storage == nullptr) first_storage = packed.Panel(0);
    if (rows == 37) {
      EXPECT_EQ(packed.Panel(0), first_storage) << "same size, same storage";
    }
    ASSERT_EQ(packed.rows(), rows);
    ASSERT_EQ(packed.depth(), depth);
    for (int64_t row = 0; row < (rows + 15) / 16 * 16; ++row) {
      for (int64_t d = 0; d < depth; ++d) {
        const float want = row < rows ? src[row * depth + d] : 0.f;
        ASSERT_EQ(packed.Panel(row / 16)[d * 16 + row % 16], want)
            << "rows " << rows << " depth " << depth << " row " << row << " d " << d;
      }
    }
  }
}

// m == 1 against a packed B, and n == 1 against a packed A, take the
// matrix-vector path; depths around its steps of 4 (and none whole).
TEST(GemmTest, MatrixVector) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    for (auto& pool : testing::PoolsUnderTest()) {
      for (int64_t rows :
           {int64_t{1}, int64_t{5}, int64_t{16}, int64_t{17}, int64_t{45}, int64_t{table->mr} + 1,
            int64_t{table->nr} - 1, int64_t{table->nr} + 1}) {
        for (int64_t k : {1, 3, 4, 7, 8, 12, 15, 300, 1001}) {
          Case row{1, rows, k};
          row.pack_b = true;
          row.col_bias = true;
          row.activation = kTileActClamp;
          RunCase(*table, pool.get(), row);
          row.transpose_b = true;
          RunCase(*table, pool.get(), row);
          Case column{rows, 1, k};
          column.pack_a = true;
          column.row_bias = true;
          column.activation = kTileActHardSwish;
          RunCase(*table, pool.get(), column);
        }
      }
    }
  }
}

TEST(GemmTest, GridSplitBalancesTiles) {
  int tm = 0, tn = 0;
  SplitGemmGrid(800, 8, 8, 8, 4, 0, 0, &tm, &tn);
  EXPECT_EQ(tm, 4);
  EXPECT_EQ(tn, 1);
  SplitGemmGrid(8, 800, 8, 8, 4, 0, 0, &tm, &tn);
  EXPECT_EQ(tm, 1);
  EXPECT_EQ(tn, 4);
  SplitGemmGrid(64, 64, 8, 8, 4, 0, 0, &tm, &tn);
  EXPECT_EQ(tm * tn, 4);
}

// Packing counts: a 16-channel 1x1 convolution (2 row tiles, 3025 columns
// in 95 panels) splits its columns even though splitting rows balances
// tiles better, since each row range would pack all of B; a
// classifier-like product with prepacked weights and few columns splits
// its rows.
TEST(GemmTest, GridSplitCountsPacking) {
  int tm = 0, tn = 0;
  SplitGemmGrid(16, 3040, 8, 32, 2, 0.25, 0, &tm, &tn);
  EXPECT_EQ(tm, 2);  // tiles alone: 95 vs 96 (3040 = 95 panels exactly)
  SplitGemmGrid(16, 3025, 8, 32, 2, 0.25, 1.0, &tm, &tn);
  EXPECT_EQ(tm, 1);
  EXPECT_EQ(tn, 2);
  SplitGemmGrid(1000, 169, 8, 32, 2, 0.25, 1.0, &tm, &tn);
  EXPECT_EQ(tm, 2);
  EXPECT_EQ(tn, 1);
  // A 196-column product splits at column 96: 3 panels and 3 plus 4
  // columns, which balances it (MobileNet v2's 14x14 projections).
  SplitGemmGrid(64, 196, 8, 32, 2, 0.25, 1.0, &tm, &tn);
  EXPECT_EQ(tn, 2);
}

// FullyConnected's costs (activations packed, weight prepacked: an A
// panel 2 mr / nr, a B panel nr / mr quarters, ties to M). With AVX-512's
// 8 x 32 tiles, 128 tokens of 384 features split their columns, 1500
// tokens their rows, and 197 tokens of 192 features (a tie) their rows;
// with AVX2's 6 x 16, 197 tokens of 192 features their rows.
TEST(GemmTest, GridSplitFullyConnected) {
  int tm = 0, tn = 0;
  SplitGemmGrid(128, 384, 8, 32, 2, 0.5, 1.0, &tm, &tn, true);
  EXPECT_EQ(tm, 1);
  EXPECT_EQ(tn, 2);
  SplitGemmGrid(1500, 1536, 8, 32, 2, 0.5, 1.0, &tm, &tn, true);
  EXPECT_EQ(tm, 2);
  EXPECT_EQ(tn, 1);
  SplitGemmGrid(197, 192, 8, 32, 2, 0.5, 1.0, &tm, &tn, true);
  EXPECT_EQ(tm, 2);
  EXPECT_EQ(tn, 1);
  SplitGemmGrid(197, 192, 8, 32, 2, 0.5, 1.0, &tm, &tn);
  EXPECT_EQ(tn, 2);
  SplitGemmGrid(197, 192, 6, 16, 2, 0.75, 0.25 * 16 / 6, &tm, &tn, true);
  EXPECT_EQ(tm, 2);
  EXPECT_EQ(tn, 1);
}

// FullyConnected's orientation through the driver: a row split cut into
// several cells per thread (rows past four A blocks), and a column split.
TEST(GemmTest, PrepackedWeightCells) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    for (auto& pool : testing::PoolsUnderTest()) {
      Case rows{4 * table->mc + table->mr + 3, 3 * table->nr + 5, 40};
      rows.pack_b = rows.transpose_b = rows.col_bias = true;
      RunCase(*table, pool.get(), rows);
      Case columns{128, 12 * table->nr + 7, table->kc + 9};
      columns.pack_b = columns.transpose_b = columns.col_bias = true;
      RunCase(*table, pool.get(), columns);
    }
  }
}

TEST(GemmTest, AlignedRangesCoverInWholeTiles) {
  for (int64_t total : {1, 7, 31, 32, 33, 196, 3025}) {
    for (int parts : {1, 2, 3, 4, 8}) {
      int64_t expected_begin = 0;
      for (int part = 0; part < parts; ++part) {
        int64_t begin, end;
        AlignedRange(total, 32, parts, part, &begin, &end);
        EXPECT_EQ(begin, expected_begin);
        EXPECT_LE(begin, end);
        if (end < total) {
          EXPECT_EQ(end % 32, 0);
        }
        expected_begin = end;
      }
      EXPECT_EQ(expected_begin, total);
    }
  }
  int64_t begin, end;
  AlignedRange(196, 32, 2, 0, &begin, &end);
  EXPECT_EQ(end, 96);
}

TEST(GemmTest, KernelTablesMatchTheCpu) {
  EXPECT_EQ(KernelTableFor(KernelIsa::kReference), nullptr);
  for (const KernelTable* table : testing::TablesUnderTest()) {
    EXPECT_EQ(KernelTableFor(table->isa), table);
    EXPECT_EQ(table->mc % table->mr, 0);
    EXPECT_EQ(table->nc % table->nr, 0);
    // The staging tile for ragged edges holds 256 floats, at most 32 a side.
    EXPECT_LE(table->mr * table->nr, 256);
    EXPECT_LE(std::max(table->mr, table->nr), 32);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace