// armv7's 6 x 8 GEMM assembly (sgemm_neon_armv7.h) alone, against plain
// sums: built into cpu_gemm_test on armv7 (BUILD.bazel, TEST_PORT_SRCS).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/arm/sgemm_neon_armv7.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::RandomFloats;

// armv7's runs of 6 x 8 tiles alone: `runs` column panels of `tiles` row
// panels (a run's A panels and biases step down a column), more tiles than
// a run builds start tiles for at once (16), shallow and deep (halves), from
// the row biases of each tile, the same 6 biases for all, zero or C,
// clamped below, on both sides or not. C's margin must stay NaN.
TEST(GemmTest, Armv7RunsOfTilesStarts) {
  constexpr int kMr = 6, kNr = 8;
  const float bounds[2] = {-0.5f, 1.5f};
  for (int k : {1, 16, 24, 32, 33, 64, 70, 90}) {
    for (int tiles : {1, 2, 17, 20}) {
      for (int runs : {1, 3}) {
        const int rows = tiles * kMr, cols = runs * kNr, ldc = cols + 3;
        const std::vector<float> a = RandomFloats(rows * k, 41);
        const std::vector<float> b = RandomFloats(cols * k, 42);
        const std::vector<float> bias = RandomFloats(rows, 43);
        const std::vector<float> start = RandomFloats(rows * ldc, 44);
        for (int variant = 0; variant < 24; ++variant) {
          // bias_mode 0: none, 1: a tile's own, 2: the first tile's for all,
          // 3: from C.
          const int bias_mode = variant % 4, clamp_mode = variant / 4 % 3;
          const bool panels = variant >= 12;
          const bool from_c = bias_mode == 3;
          const bool clamp = clamp_mode > 0, clamp_hi = clamp_mode > 1;
          SCOPED_TRACE(::testing::Message()
                       << "k " << k << " tiles " << tiles << " runs " << runs << " bias "
                       << bias_mode << " clamp " << clamp_mode << " panels " << panels);
          std::vector<float> c(rows * ldc, std::numeric_limits<float>::quiet_NaN());
          for (int i = 0; i < rows; ++i) {
            for (int j = 0; j < cols; ++j) c[i * ldc + j] = start[i * ldc + j];
          }
          const float* row_bias = bias_mode == 1 || bias_mode == 2 ? bias.data() : nullptr;
          const int bias_step = bias_mode == 1 ? kMr : 0;
          if (panels) {
            arm::Armv7GemmRun6x8Panels(runs, kNr * k, kNr, tiles, k, a.data(), kMr * k, b.data(), 0,
                                       c.data(), kMr * ldc, ldc * 4, from_c, row_bias, bias_step,
                                       clamp, clamp_hi, bounds, nullptr);
          } else {
            for (int r = 0; r < runs; ++r) {
              arm::Armv7GemmRun6x8(tiles, k, a.data(), kMr * k, b.data() + r * kNr * k, 0,
                                   c.data() + r * kNr, kMr * ldc, ldc * 4, from_c, row_bias,
                                   bias_step, clamp, clamp_hi, bounds, 0);
            }
          }
          std::vector<float> got, expected;
          for (int i = 0; i < rows; ++i) {
            for (int j = 0; j < cols; ++j) {
              double sum = from_c           ? start[i * ldc + j]
                           : bias_mode == 1 ? bias[i]
                           : bias_mode == 2 ? bias[i % kMr]
                                            : 0.0;
              for (int l = 0; l < k; ++l) {
                sum += static_cast<double>(a[(i / kMr) * kMr * k + l * kMr + i % kMr]) *
                       b[(j / kNr) * kNr * k + l * kNr + j % kNr];
              }
              float v = static_cast<float>(sum);
              if (clamp) v = std::max(v, bounds[0]);
              if (clamp_hi) v = std::min(v, bounds[1]);
              expected.push_back(v);
              got.push_back(c[i * ldc + j]);
            }
            for (int j = cols; j < ldc; ++j) ASSERT_TRUE(std::isnan(c[i * ldc + j]));
          }
          ExpectNear(got, expected, 2e-6f * static_cast<float>(k) + 1e-5f, 1e-5f);
        }
      }
    }
  }
}

// armv7's deep runs down one column panel, whose B panel the halves read
// as a split copy from 5 tiles on (32 or 64 to 512 depths): runs of 4 to
// 6 and 16 tiles, each depth tail of the halves and of the copy (8 depths
// a loop) around 32, 64, 256 and 512, whole 32-depth passes of the
// 8-wide halves (64, 96) and 64-depth ones of the split halves (64, 128,
// 192, 512; 96 and 160 are not),
// from each tile's biases, zero or C, clamped on both sides with bounds
// that bind; as one call over two column panels (on the panels or on
// their split copy), or a call a panel with the first 3 tiles or all
// prefetching A. C's margin must stay NaN.
TEST(GemmTest, Armv7SplitPanelRuns) {
  constexpr int kMr = 6, kNr = 8;
  const float bounds[2] = {-0.5f, 0.5f};
  for (int k :
       {31, 32, 33, 63, 64, 65, 66, 67, 68, 69, 70, 96, 128, 160, 192, 255, 257, 511, 512, 513}) {
    for (int tiles : {4, 5, 6, 16}) {
      const int rows = tiles * kMr, cols = 2 * kNr, ldc = cols + 3;
      const std::vector<float> a = RandomFloats(rows * k, 51);
      const std::vector<float> b = RandomFloats(cols * k, 52);
      const std::vector<float> bias = RandomFloats(rows, 53);
      const std::vector<float> start = RandomFloats(rows * ldc, 54);
      // The panels split before the call (Armv7SplitPanels), as the driver
      // splits a B block for its row blocks.
      std::vector<float> split(cols * k, std::numeric_limits<float>::quiet_NaN());
      arm::Armv7SplitPanels(2, k, b.data(), kNr * k, split.data());
      for (int variant = 0; variant < 16; ++variant) {
        // variant % 4 0: the biases, clamped; 1: zero; 2: from C; 3: the
        // biases. variant / 4: tiles prefetching (-1: the panels' call;
        // variant 12 on: the panels' call on the split panels).
        const int start_mode = variant % 4;
        const int prefetch = variant < 4 || variant >= 12 ? -1 : variant < 8 ? 3 : tiles;
        const float* b_split = variant >= 12 ? split.data() : nullptr;
        const bool from_c = start_mode == 2, clamp = start_mode == 0;
        const float* row_bias = start_mode == 0 || start_mode == 3 ? bias.data() : nullptr;
        SCOPED_TRACE(::testing::Message() << "k " << k << " tiles " << tiles << " start "
                                          << start_mode << " prefetch " << prefetch << " split "
                                          << (b_split != nullptr));
        std::vector<float> c(rows * ldc, std::numeric_limits<float>::quiet_NaN());
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < cols; ++j) c[i * ldc + j] = start[i * ldc + j];
        }
        if (prefetch < 0) {
          arm::Armv7GemmRun6x8Panels(2, kNr * k, kNr, tiles, k, a.data(), kMr * k, b.data(), 0,
                                     c.data(), kMr * ldc, ldc * 4, from_c, row_bias, kMr, clamp,
                                     clamp, bounds, b_split);
        } else {
          for (int r = 0; r < 2; ++r) {
            arm::Armv7GemmRun6x8(tiles, k, a.data(), kMr * k, b.data() + r * kNr * k, 0,
                                 c.data() + r * kNr, kMr * ldc, ldc * 4, from_c, row_bias, kMr,
                                 clamp, clamp, bounds, prefetch);
          }
        }
        std::vector<float> got, expected;
        int bound = 0;
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < cols; ++j) {
            double sum = from_c ? start[i * ldc + j] : row_bias != nullptr ? bias[i] : 0.0;
            for (int l = 0; l < k; ++l) {
              sum += static_cast<double>(a[(i / kMr) * kMr * k + l * kMr + i % kMr]) *
                     b[(j / kNr) * kNr * k + l * kNr + j % kNr];
            }
            float v = static_cast<float>(sum);
            bound += v < bounds[0] || v > bounds[1];
            if (clamp) v = std::min(std::max(v, bounds[0]), bounds[1]);
            expected.push_back(v);
            got.push_back(c[i * ldc + j]);
          }
          for (int j = cols; j < ldc; ++j) ASSERT_TRUE(std::isnan(c[i * ldc + j]));
        }
        if (clamp) {
          ASSERT_GT(bound, rows * cols / 8);
        }
        ExpectNear(got, expected, 2e-6f * static_cast<float>(k) + 1e-5f, 1e-5f);
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
