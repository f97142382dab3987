// MaxPoolArgmax and MaxUnpool against naive versions written here: the
// pooling copies each plane into a padded box (padding marked, never a
// candidate) and scans every window; the unpooling decodes each index with
// floor division on non-negative values and checks the destination by hand.
// Cases cover odd sizes, TFLite SAME and VALID padding, stride below, equal
// to and above the kernel, batch and channels > 1, ties (values from a few
// levels) and NaN; then the pair end to end, hostile indices and the errors.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using I = std::vector<int64_t>;

struct Case {
  int64_t batch, channels, h, w, kh, kw, sh, sw;
  int64_t pads[4];  // top, left, bottom, right
};

std::vector<float> Values(int64_t count, uint32_t seed, int levels) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> level(0, levels - 1);
  std::vector<float> values(count);
  for (float& v : values) v = static_cast<float>(level(rng)) * 0.5f - 4.f;
  return values;
}

struct Pooled {
  std::vector<int64_t> shape;
  std::vector<float> values, indices;
};

Pooled NaivePool(const Case& c, const std::vector<float>& input) {
  const int64_t box_h = c.h + c.pads[0] + c.pads[2], box_w = c.w + c.pads[1] + c.pads[3];
  const int64_t out_h = (box_h - c.kh) / c.sh + 1, out_w = (box_w - c.kw) / c.sw + 1;
  Pooled p;
  p.shape = {c.batch, c.channels, out_h, out_w};
  for (int64_t plane = 0; plane < c.batch * c.channels; ++plane) {
    std::vector<float> box(box_h * box_w, 0.f);
    std::vector<bool> real(box_h * box_w, false);
    for (int64_t y = 0; y < c.h; ++y) {
      for (int64_t x = 0; x < c.w; ++x) {
        const int64_t at = (y + c.pads[0]) * box_w + x + c.pads[1];
        box[at] = input[(plane * c.h + y) * c.w + x];
        real[at] = true;
      }
    }
    for (int64_t oy = 0; oy < out_h; ++oy) {
      for (int64_t ox = 0; ox < out_w; ++ox) {
        bool found = false;
        float best = 0.f;
        int64_t best_k = 0;
        for (int64_t k = 0; k < c.kh * c.kw; ++k) {
          const int64_t at = (oy * c.sh + k / c.kw) * box_w + ox * c.sw + k % c.kw;
          if (!real[at] || std::isnan(box[at])) continue;
          if (!found || box[at] > best) {
            found = true;
            best = box[at];
            best_k = k;
          }
        }
        p.values.push_back(found ? best : std::numeric_limits<float>::lowest());
        p.indices.push_back(static_cast<float>(best_k) + 0.1f);
      }
    }
  }
  return p;
}

// Scatters with the index read as an integer k >= 0 at (dy, dx) =
// (k / kw, k % kw) of the window whose corner is (y * sh - top, x * sw - left).
std::vector<float> NaiveUnpool(const Case& c, const std::vector<int64_t>& in_shape,
                               const std::vector<float>& values, const std::vector<float>& indices,
                               int64_t out_h, int64_t out_w) {
  const int64_t h = in_shape[2], w = in_shape[3];
  std::vector<float> out(in_shape[0] * in_shape[1] * out_h * out_w, 0.f);
  for (int64_t plane = 0; plane < in_shape[0] * in_shape[1]; ++plane) {
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        const int64_t at = (plane * h + y) * w + x;
        const int64_t k = static_cast<int64_t>(std::floor(indices[at]));
        const int64_t oy = y * c.sh - c.pads[0] + k / c.kw;
        const int64_t ox = x * c.sw - c.pads[1] + k % c.kw;
        if (oy >= 0 && oy < out_h && ox >= 0 && ox < out_w) {
          out[(plane * out_h + oy) * out_w + ox] = values[at];
        }
      }
    }
  }
  return out;
}

std::vector<int64_t> Pads(const Case& c) { return {c.pads[0], c.pads[1], c.pads[2], c.pads[3]}; }

void CheckPair(const Case& c, const std::vector<float>& input) {
  const std::vector<int64_t> shape = {c.batch, c.channels, c.h, c.w};
  testing::OpTester pool("MaxPoolArgmax", RegisterMaxPoolArgmax);
  pool.Input("x", shape, input)
      .Output("y")
      .Output("i")
      .Args("kernels", I{c.kh, c.kw})
      .Args("strides", I{c.sh, c.sw})
      .Args("pads", Pads(c));
  const MaceStatus status = pool.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  const Pooled expected = NaivePool(c, input);
  ASSERT_EQ(pool.OutputShape("y"), expected.shape);
  ASSERT_EQ(pool.OutputShape("i"), expected.shape);
  EXPECT_EQ(pool.OutputData("y"), expected.values);
  EXPECT_EQ(pool.OutputData("i"), expected.indices);

  // Unpooled to MediaPipe's size, the input's times the kernel.
  const int64_t out_h = expected.shape[2] * c.kh, out_w = expected.shape[3] * c.kw;
  testing::OpTester unpool("MaxUnpool", RegisterMaxPoolArgmax);
  unpool.Input("y", expected.shape, expected.values)
      .Input("i", expected.shape, expected.indices)
      .Output("z")
      .Args("kernels", I{c.kh, c.kw})
      .Args("strides", I{c.sh, c.sw})
      .Args("pads", I{c.pads[0], c.pads[1]})
      .Args("output_size", I{out_h, out_w});
  const MaceStatus unpooled = unpool.Run();
  ASSERT_TRUE(unpooled.ok()) << unpooled.information();
  EXPECT_EQ(unpool.OutputShape("z"), (std::vector<int64_t>{c.batch, c.channels, out_h, out_w}));
  EXPECT_EQ(unpool.OutputData("z"),
            NaiveUnpool(c, expected.shape, expected.values, expected.indices, out_h, out_w));
}

// TFLite's SAME padding: ceil(in / s) windows, the odd pixel at the end.
Case Same(int64_t batch, int64_t channels, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh,
          int64_t sw) {
  Case c = {batch, channels, h, w, kh, kw, sh, sw, {0, 0, 0, 0}};
  const int64_t total_h = std::max<int64_t>(((h + sh - 1) / sh - 1) * sh + kh - h, 0);
  const int64_t total_w = std::max<int64_t>(((w + sw - 1) / sw - 1) * sw + kw - w, 0);
  c.pads[0] = total_h / 2;
  c.pads[1] = total_w / 2;
  c.pads[2] = total_h - total_h / 2;
  c.pads[3] = total_w - total_w / 2;
  return c;
}

TEST(MaxPoolArgmaxTest, AgainstNaive) {
  const Case cases[] = {
      Same(1, 1, 4, 4, 2, 2, 2, 2),            // the segmentation models' window
      Same(2, 3, 5, 7, 2, 2, 2, 2),            // odd sizes
      Same(1, 2, 7, 6, 3, 3, 2, 2),            // stride below the kernel
      Same(1, 2, 9, 8, 3, 2, 1, 1),            // stride 1: every side padded
      Same(1, 1, 7, 9, 2, 2, 3, 3),            // stride above the kernel
      Same(1, 3, 1, 5, 3, 3, 2, 2),            // a one-row input
      {1, 2, 7, 5, 3, 2, 2, 2, {0, 0, 0, 0}},  // VALID, trailing pixels dropped
      {2, 1, 6, 6, 2, 3, 2, 3, {0, 0, 0, 0}},  // VALID, exact
      {1, 1, 5, 5, 3, 3, 1, 2, {2, 1, 0, 2}},  // padding wider than SAME's
  };
  uint32_t seed = 11;
  for (const Case& c : cases) {
    const int64_t count = c.batch * c.channels * c.h * c.w;
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", " << c.h << "x" << c.w << " kernel "
                                      << c.kh << "x" << c.kw);
    CheckPair(c, Values(count, seed++, 1000));  // distinct values, mostly
    CheckPair(c, Values(count, seed++, 2));     // ties: the first maximum wins
  }
}

// NaN is never a maximum; a window of NaN alone gives the lowest float.
TEST(MaxPoolArgmaxTest, NanIsNeverTheMaximum) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Case c = {1, 1, 2, 4, 2, 2, 2, 2, {0, 0, 0, 0}};
  CheckPair(c, {nan, 1.f, nan, nan, 3.f, nan, nan, nan});
  testing::OpTester pool("MaxPoolArgmax", RegisterMaxPoolArgmax);
  pool.Input("x", {1, 1, 2, 4}, {nan, 1.f, nan, nan, 3.f, nan, nan, nan})
      .Output("y")
      .Output("i")
      .Args("kernels", I{2, 2})
      .Args("strides", I{2, 2});
  ASSERT_TRUE(pool.Run().ok());
  EXPECT_EQ(pool.OutputData("y"), (std::vector<float>{3.f, std::numeric_limits<float>::lowest()}));
  EXPECT_EQ(pool.OutputData("i"), (std::vector<float>{2.1f, 0.1f}));
}

// A 2x2 window at stride 2 over 1..16: each maximum is the window's bottom
// right, index 3; with one row and column of padding in front, the corner
// window's only real pixel is its bottom right too.
TEST(MaxPoolArgmaxTest, HandWorked) {
  std::vector<float> input(16);
  for (int i = 0; i < 16; ++i) input[i] = static_cast<float>(i + 1);
  testing::OpTester pool("MaxPoolArgmax", RegisterMaxPoolArgmax);
  pool.Input("x", {1, 1, 4, 4}, input)
      .Output("y")
      .Output("i")
      .Args("kernels", I{2, 2})
      .Args("strides", I{2, 2})
      .Args("pads", I{1, 1, 1, 1});
  ASSERT_TRUE(pool.Run().ok());
  EXPECT_EQ(pool.OutputShape("y"), (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(pool.OutputData("y"), (std::vector<float>{1, 3, 4, 9, 11, 12, 13, 15, 16}));
  EXPECT_EQ(pool.OutputData("i"),
            (std::vector<float>{3.1f, 3.1f, 2.1f, 3.1f, 3.1f, 2.1f, 1.1f, 1.1f, 0.1f}));
}

TEST(MaxPoolArgmaxTest, ValuesOnly) {
  const std::vector<float> input = Values(2 * 5 * 5, 7, 1000);
  testing::OpTester pool("MaxPoolArgmax", RegisterMaxPoolArgmax);
  pool.Input("x", {1, 2, 5, 5}, input).Output("y").Args("kernels", I{3, 3});
  ASSERT_TRUE(pool.Run().ok());
  const Case c = {1, 2, 5, 5, 3, 3, 1, 1, {0, 0, 0, 0}};
  EXPECT_EQ(pool.OutputData("y"), NaivePool(c, input).values);
}

// Indices a model cannot have produced: negative ones truncate toward zero
// as C's conversion and division do (-1.5 is -1: row 0, column -1 of the
// window), and NaN, infinities and values beyond int32 are skipped, as are
// destinations outside the output.
TEST(MaxUnpoolTest, HostileIndices) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<float> indices = {3.9f, -1.5f, std::nanf(""), inf, -inf, 3e9f, 99.f, 0.f};
  testing::OpTester unpool("MaxUnpool", RegisterMaxPoolArgmax);
  unpool.Input("y", {1, 1, 2, 4}, values)
      .Input("i", {1, 1, 2, 4}, indices)
      .Output("z")
      .Args("kernels", I{2, 2})
      .Args("strides", I{2, 2})
      .Args("output_size", I{4, 8});
  ASSERT_TRUE(unpool.Run().ok());
  std::vector<float> expected(32, 0.f);
  expected[1 * 8 + 1] = 1;  // (0, 0): 3 -> (1, 1)
  expected[0 * 8 + 1] = 2;  // (0, 1): -1 -> (0, 2 - 1)
  expected[2 * 8 + 6] = 8;  // (1, 3): 0 -> (2, 6); (1, 2): 99 is row 2 + 49
  EXPECT_EQ(unpool.OutputData("z"), expected);
}

// Two pooled pixels that name one destination (overlapping windows): the
// later one in row-major order wins.
TEST(MaxUnpoolTest, LaterPixelWins) {
  testing::OpTester unpool("MaxUnpool", RegisterMaxPoolArgmax);
  unpool.Input("y", {1, 1, 1, 2}, {5.f, 7.f})
      .Input("i", {1, 1, 1, 2}, {1.1f, 0.1f})
      .Output("z")
      .Args("kernels", I{1, 2})
      .Args("strides", I{1, 1})
      .Args("output_size", I{1, 3});
  ASSERT_TRUE(unpool.Run().ok());
  EXPECT_EQ(unpool.OutputData("z"), (std::vector<float>{0.f, 7.f, 0.f}));
}

TEST(MaxPoolArgmaxTest, Errors) {
  const std::vector<float> input = Values(9, 3, 10);
  {
    testing::OpTester t("MaxPoolArgmax", RegisterMaxPoolArgmax);
    t.Input("x", {1, 1, 3, 3}, input).Output("y");  // no kernels
    EXPECT_FALSE(t.Run().ok());
  }
  {
    testing::OpTester t("MaxPoolArgmax", RegisterMaxPoolArgmax);
    t.Input("x", {1, 3, 3}, input).Output("y").Args("kernels", I{1, 1});  // rank 3
    EXPECT_FALSE(t.Run().ok());
  }
  {
    testing::OpTester t("MaxPoolArgmax", RegisterMaxPoolArgmax);
    t.Input("x", {1, 1, 3, 3}, input).Output("y").Args("kernels", I{4, 1});  // too large
    EXPECT_FALSE(t.Run().ok());
  }
  {
    testing::OpTester t("MaxPoolArgmax", RegisterMaxPoolArgmax);
    t.Input("x", {1, 1, 3, 3}, input)
        .Output("y")
        .Args("kernels", I{2, 2})
        .Args("pads", I{0, -1, 0, 0});  // negative
    EXPECT_FALSE(t.Run().ok());
  }
  {
    testing::OpTester t("MaxUnpool", RegisterMaxPoolArgmax);
    t.Input("y", {1, 1, 3, 3}, input)
        .Input("i", {1, 1, 3, 3}, input)
        .Output("z")
        .Args("kernels", I{2, 2});  // no output_size
    EXPECT_FALSE(t.Run().ok());
  }
  {
    testing::OpTester t("MaxUnpool", RegisterMaxPoolArgmax);
    t.Input("y", {1, 1, 3, 3}, input)
        .Input("i", {1, 3, 3, 1}, input)  // shapes differ
        .Output("z")
        .Args("kernels", I{2, 2})
        .Args("output_size", I{6, 6});
    EXPECT_FALSE(t.Run().ok());
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
