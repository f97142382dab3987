// armv7's chained kernel-row assembly (sgemm_neon_armv7.h), the direct
// convolution's runs, alone against plain sums: built into
// cpu_conv_2d_test on armv7 (BUILD.bazel, TEST_PORT_SRCS).
#include <algorithm>
#include <cstdint>
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

// armv7's runs of 6-, 4- and 2-row tiles over 3x3 and 7x7 kernels, whose
// taps form one chain through the padded image (rows of a channel one step
// apart, channels another): 1 to 3 input channels, stride-1 tap steps and
// stride-2 ones (even, then odd columns), 1 or 3 tiles, with and without a
// row bias, no clamp, a low one or both; and offsets whose second
// channel's rows step otherwise, which are no chain and take the per-row
// offsets. C's margin and the rows past the tile's stay.
TEST(Conv2dKernelTest, Armv7ChainedKernelRows) {
  constexpr int kMr = 6, kNr = 8, kPitch = 40;
  const std::vector<float> bias = RandomFloats(kMr, 52);
  const float bounds[2] = {-0.2f, 0.3f};
  for (int kw : {3, 7}) {
    const int taps = kw * kw, plane = kw * kPitch + 8;
    const std::vector<float> image = RandomFloats(3 * plane + 3 * kNr, 51);
    for (int channels = 1; channels <= 3; ++channels) {
      const int kc = taps * channels;
      const std::vector<float> a = RandomFloats(kc * kMr, 53);
      for (int variant = 0; variant < 24; ++variant) {
        const bool stride2 = variant % 2 != 0;  // odd columns 20 on
        const int tiles = variant / 2 % 2 == 0 ? 1 : 3;
        const bool with_bias = variant / 4 % 2 == 0;
        const int mode = variant / 8;  // no clamp, low, both
        const bool uneven = channels > 1 && variant % 5 == 0;
        std::vector<int64_t> offsets(kc);
        for (int k = 0; k < kc; ++k) {
          const int ch = k / taps, row = k / kw % kw, tap = k % kw;
          const int column = !stride2 ? tap : tap % 2 == 0 ? tap / 2 : 20 + tap / 2;
          offsets[k] = ch * plane + row * (uneven && ch == 1 ? kPitch + 1 : kPitch) + column;
        }
        const int ldc = tiles * kNr + 3;
        const int rows = 2 + 2 * (variant % 3);
        std::vector<float> c(kMr * ldc, -7.f);
        SCOPED_TRACE(::testing::Message() << "kernel " << kw << " channels " << channels
                                          << " variant " << variant << " rows " << rows);
        int32_t chain[4];
        const bool chained = arm::Armv7ConvKernelRowsChain(kc, kw, offsets.data(), chain);
        ASSERT_EQ(chained, !uneven);
        ASSERT_TRUE(arm::Armv7ConvKernelRowsRun(
            rows, tiles, kc, kw, a.data(), image.data(), offsets.data(), c.data(),
            ldc * static_cast<int>(sizeof(float)), with_bias ? bias.data() : nullptr, mode > 0,
            mode == 2, bounds, chained ? chain : nullptr));
        for (int i = rows; i < kMr; ++i) {
          for (int j = 0; j < ldc; ++j) EXPECT_EQ(c[i * ldc + j], -7.f);
        }
        std::vector<float> got, expected;
        for (int i = 0; i < rows; ++i) {
          for (int j = 0; j < tiles * kNr; ++j) {
            double sum = with_bias ? bias[i] : 0.0;
            for (int k = 0; k < kc; ++k) {
              sum += static_cast<double>(a[k * kMr + i]) * image[offsets[k] + j];
            }
            float v = static_cast<float>(sum);
            if (mode > 0) v = std::max(v, bounds[0]);
            if (mode == 2) v = std::min(v, bounds[1]);
            expected.push_back(v);
            got.push_back(c[i * ldc + j]);
          }
          for (int j = tiles * kNr; j < ldc; ++j) EXPECT_EQ(c[i * ldc + j], -7.f);
        }
        ExpectNear(got, expected, 1e-4f, 1e-4f);
      }
    }
  }
}

// armv7's chained tiles over several output rows in one call: rows of 1
// or 2 whole tiles and a ragged one tail_back columns before the next
// (0: none), 2- to 6-row tiles, 3x3 kernels over 3 channels (the stems'
// straight chain) and 7x7 ones, a row bias or none, each clamp. Columns
// past a row's last and C's margin stay.
TEST(Conv2dKernelTest, Armv7ChainedKernelRowsOverRows) {
  constexpr int kMr = 6, kNr = 8, kPitch = 40, kOutRows = 3;
  const std::vector<float> bias = RandomFloats(kMr, 62);
  const float bounds[2] = {-0.2f, 0.3f};
  for (int kw : {3, 7}) {
    const int taps = kw * kw, channels = 3, kc = taps * channels;
    const int plane = (kw + kOutRows) * kPitch + 8;
    const std::vector<float> image = RandomFloats(channels * plane + 3 * kNr, 61);
    const std::vector<float> a = RandomFloats(kc * kMr, 63);
    std::vector<int64_t> offsets(kc);
    for (int k = 0; k < kc; ++k) {
      offsets[k] = k / taps * plane + k / kw % kw * kPitch + k % kw;
    }
    int32_t chain[4];
    ASSERT_TRUE(arm::Armv7ConvKernelRowsChain(kc, kw, offsets.data(), chain));
    for (int variant = 0; variant < 12; ++variant) {
      const int tiles = 1 + variant % 2;
      const int tail_back = variant % 4 == 1 ? 0 : variant % 8;
      const int rows = 2 + 2 * (variant % 3);
      const bool with_bias = variant % 5 != 0;
      const int mode = variant % 3;  // no clamp, low, both
      const int width = tiles * kNr + (tail_back > 0 ? kNr - tail_back : 0);
      const int row_c = width + 3, ldc = kOutRows * row_c;
      std::vector<float> c(kMr * ldc, -7.f);
      SCOPED_TRACE(::testing::Message() << "kernel " << kw << " variant " << variant);
      ASSERT_TRUE(arm::Armv7ConvKernelRowsRows(
          rows, kOutRows, tiles, tail_back, kPitch, row_c, kc, kw, a.data(), image.data(),
          offsets.data(), c.data(), ldc * static_cast<int>(sizeof(float)),
          with_bias ? bias.data() : nullptr, mode > 0, mode == 2, bounds, chain));
      std::vector<float> got, expected;
      for (int i = 0; i < kMr; ++i) {
        for (int r = 0; r < kOutRows; ++r) {
          for (int j = 0; j < row_c; ++j) {
            const float value = c[i * ldc + r * row_c + j];
            if (i >= rows || j >= width) {
              EXPECT_EQ(value, -7.f);
              continue;
            }
            double sum = with_bias ? bias[i] : 0.0;
            for (int k = 0; k < kc; ++k) {
              sum += static_cast<double>(a[k * kMr + i]) * image[r * kPitch + offsets[k] + j];
            }
            float v = static_cast<float>(sum);
            if (mode > 0) v = std::max(v, bounds[0]);
            if (mode == 2) v = std::min(v, bounds[1]);
            expected.push_back(v);
            got.push_back(value);
          }
        }
      }
      ExpectNear(got, expected, 1e-4f, 1e-4f);
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
