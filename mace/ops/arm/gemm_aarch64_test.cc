// arm64's GEMM runs of 8 x 12 tiles (sgemm_neon_runs.h) alone, against
// plain sums, and its kernel tables: built into cpu_gemm_test on arm64
// (BUILD.bazel, TEST_PORT_SRCS).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/arm/sgemm_neon_runs.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ActivateReference;
using testing::ExpectNear;
using testing::RandomFloats;

// arm64's runs from a widened row bias alone: down a column panel (A
// panels and biases advance), along a row panel (B panels advance) and
// with panels apart (the general walk), every depth tail, the 4k + 2
// depths and whole blocks of 16 (one to three: the tiles without the
// tail's tests), each fixed clamp (none, below, both sides) with an upper
// bound that products pass. C starts as NaN; outside the tiles it stays
// NaN.
TEST(GemmTest, WideBiasRunsEachClamp) {
  constexpr int64_t mr = arm::kNeonGemmMr, nr = arm::kNeonGemmNr, tiles = 3, gap = 4;
  for (int64_t k : {1, 2, 3, 4, 5, 6, 7, 9, 13, 16, 24, 27, 32, 48, 58}) {
    for (int layout = 0; layout < 3; ++layout) {
      const bool along_rows = layout != 1;
      // Panels of the walk's operand are a panel apart, or a gap further.
      const int64_t a_step = !along_rows ? 0 : mr * k + (layout == 2 ? gap : 0);
      const int64_t b_step = along_rows ? 0 : nr * k;
      const int64_t rows = along_rows ? tiles * mr : mr;
      const int64_t col_step = nr + 2, ldc = along_rows ? nr + 3 : tiles * col_step + 1;
      const int64_t c_step = along_rows ? mr * ldc : col_step;
      const std::vector<float> a = RandomFloats((along_rows ? tiles : 1) * (mr * k + gap), 41);
      const std::vector<float> b = RandomFloats((along_rows ? 1 : tiles) * nr * k, 42);
      const std::vector<float> row_bias = RandomFloats(rows, 43);
      std::vector<float> wide(rows * nr);
      arm::NeonWidenRowBias(row_bias.data(), rows, wide.data());
      for (int clamp = 0; clamp < 3; ++clamp) {
        TileEpilogue epilogue;
        epilogue.row_bias = row_bias.data();
        epilogue.activation = clamp == 0 ? kTileActNone : kTileActClamp;
        epilogue.lo = -0.25f;
        epilogue.hi = clamp == 1 ? std::numeric_limits<float>::infinity() : 0.5f;
        epilogue.accumulate = false;
        epilogue.last = true;
        SCOPED_TRACE(::testing::Message()
                     << "k " << k << " layout " << layout << " clamp " << clamp);
        std::vector<float> c(rows * ldc, std::numeric_limits<float>::quiet_NaN());
        arm::NeonGemmRunWideBias(tiles, k, a.data(), a_step, b.data(), b_step, c.data(), c_step,
                                 ldc, wide.data(), along_rows ? mr * nr : 0, epilogue);
        std::vector<float> got, expected;
        int64_t above = 0;
        for (int64_t t = 0; t < tiles; ++t) {
          const float* a_panel = a.data() + (along_rows ? t * a_step : 0);
          const float* b_panel = b.data() + (along_rows ? 0 : t * b_step);
          for (int64_t i = 0; i < mr; ++i) {
            const int64_t row = along_rows ? t * mr + i : i;
            for (int64_t j = 0; j < nr; ++j) {
              double sum = row_bias[row];
              for (int64_t l = 0; l < k; ++l) {
                sum += static_cast<double>(a_panel[l * mr + i]) * b_panel[l * nr + j];
              }
              above += sum > epilogue.hi;
              expected.push_back(ActivateReference(static_cast<float>(sum), epilogue));
              float& out = c[row * ldc + (along_rows ? 0 : t * col_step) + j];
              got.push_back(out);
              out = std::numeric_limits<float>::quiet_NaN();
            }
          }
        }
        if (clamp == 2) {
          ASSERT_GT(above, tiles);
        }
        for (float v : c) ASSERT_TRUE(std::isnan(v));
        ExpectNear(got, expected, 2e-6f * static_cast<float>(k) + 1e-5f, 1e-5f);
      }
    }
  }
}

// arm64's first walk over weights deeper than a block: 1 to 5 tiles down a
// column panel whose A panels are a whole depth (more than the block's kc)
// apart, none, some or all of them prefetching; from a widened bias with
// each clamp, from the row bias, from zero and from C (a later block), at
// depths with every tail and whole blocks of 16. C's margin stays NaN.
TEST(GemmTest, PrefetchingRunsDownAPanel) {
  constexpr int64_t mr = arm::kNeonGemmMr, nr = arm::kNeonGemmNr;
  for (int64_t k : {1, 2, 3, 5, 7, 16, 33, 58, 64, 259}) {
    for (int64_t tiles : {1, 2, 5}) {
      const int64_t depth = 2 * k + 3;  // the panels' whole depth
      const int64_t rows = tiles * mr, ldc = nr + 3;
      const std::vector<float> a = RandomFloats(tiles * mr * depth, 61);
      const std::vector<float> b = RandomFloats(nr * k, 62);
      const std::vector<float> row_bias = RandomFloats(rows, 63);
      const std::vector<float> start = RandomFloats(rows * ldc, 64);
      std::vector<float> wide(rows * nr);
      arm::NeonWidenRowBias(row_bias.data(), rows, wide.data());
      for (int variant = 0; variant < 6; ++variant) {
        // 0-2: the widened bias, unclamped, clamped below, both sides;
        // 3: the row bias, clamped both sides; 4: zero; 5: from C.
        const int64_t prefetch = variant % 3 == 0 ? 0 : variant % 3 == 1 ? tiles - 2 : tiles;
        TileEpilogue epilogue;
        epilogue.row_bias = variant <= 3 ? row_bias.data() : nullptr;
        epilogue.activation = variant == 0 || variant >= 4 ? kTileActNone : kTileActClamp;
        epilogue.lo = -0.25f;
        epilogue.hi = variant == 1 ? std::numeric_limits<float>::infinity() : 0.5f;
        epilogue.accumulate = variant == 5;
        epilogue.last = true;
        SCOPED_TRACE(::testing::Message() << "k " << k << " tiles " << tiles << " variant "
                                          << variant << " prefetch " << prefetch);
        std::vector<float> c(rows * ldc, std::numeric_limits<float>::quiet_NaN());
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < nr; ++j) c[i * ldc + j] = start[i * ldc + j];
        }
        arm::NeonGemmRunPrefetchingA(tiles, prefetch, k, a.data(), mr * depth, b.data(),
                                     c.data(), mr * ldc, ldc, variant <= 2 ? wide.data() : nullptr,
                                     epilogue);
        std::vector<float> got, expected;
        int64_t above = 0;
        for (int64_t i = 0; i < rows; ++i) {
          const float* a_panel = a.data() + (i / mr) * mr * depth;
          for (int64_t j = 0; j < nr; ++j) {
            double sum = variant == 5                    ? start[i * ldc + j]
                         : epilogue.row_bias != nullptr ? row_bias[i]
                                                        : 0.0;
            for (int64_t l = 0; l < k; ++l) {
              sum += static_cast<double>(a_panel[l * mr + i % mr]) * b[l * nr + j];
            }
            above += sum > epilogue.hi;
            expected.push_back(ActivateReference(static_cast<float>(sum), epilogue));
            float& out = c[i * ldc + j];
            got.push_back(out);
            out = std::numeric_limits<float>::quiet_NaN();
          }
        }
        if (variant == 2 || variant == 3) {
          ASSERT_GT(above, tiles);
        }
        for (float v : c) ASSERT_TRUE(std::isnan(v));
        ExpectNear(got, expected, 2e-6f * static_cast<float>(k) + 1e-5f, 1e-5f);
      }
    }
  }
}

// The NEON table, and no x86 one.
TEST(GemmTest, Arm64KernelTables) {
  ASSERT_NE(KernelTableFor(KernelIsa::kNeon), nullptr);
  EXPECT_EQ(KernelTableFor(KernelIsa::kAvx2Fma), nullptr);
  EXPECT_EQ(KernelTableFor(KernelIsa::kAvx512), nullptr);
}

}  // namespace
}  // namespace ops
}  // namespace mace
