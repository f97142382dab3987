// MaxPool3D against a naive max pooling written here independently: it
// copies the input into a padded box (padding marked, never a candidate),
// sizes the output with floating-point ceil/floor, and finds each maximum
// by a row-major scan of the box; indices are then computed from the
// voxel's coordinates with explicit strides for either storage order. Cases
// cover stride 2, dilation 2, asymmetric pads, ceil_mode (with a trimmed
// last window), odd sizes, batch and channels > 1, and ties (values drawn
// from a few levels). Then hand-worked ONNX-style cases and the errors.
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

struct Case {
  int64_t batch, channels;
  int64_t in[3], kernel[3], stride[3], dilation[3];
  int64_t pads[6];  // begins then ends
  bool ceil_mode;
};

std::vector<float> Values(int64_t count, uint32_t seed, int levels) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> level(0, levels - 1);
  std::vector<float> values(count);
  for (float& v : values) v = static_cast<float>(level(rng)) * 0.25f - 3.f;
  return values;
}

struct Expected {
  std::vector<int64_t> shape;
  std::vector<float> values;
  std::vector<int32_t> indices;
};

Expected Naive(const Case& c, const std::vector<float>& input, bool column_major) {
  int64_t out[3], padded[3];
  for (int a = 0; a < 3; ++a) {
    padded[a] = c.in[a] + c.pads[a] + c.pads[a + 3];
    const double steps =
        static_cast<double>(padded[a] - (c.kernel[a] - 1) * c.dilation[a] - 1) / c.stride[a];
    out[a] = static_cast<int64_t>(c.ceil_mode ? std::ceil(steps) : std::floor(steps)) + 1;
    // ONNX: a last window may not start in the end padding.
    if (c.ceil_mode && (out[a] - 1) * c.stride[a] >= c.in[a] + c.pads[a]) --out[a];
  }
  const int64_t volume = c.in[0] * c.in[1] * c.in[2];
  const int64_t box = padded[0] * padded[1] * padded[2];
  // Strides of d, h and w within a plane, for the index.
  const int64_t step_row[3] = {c.in[1] * c.in[2], c.in[2], 1};
  const int64_t step_col[3] = {1, c.in[0], c.in[0] * c.in[1]};
  const int64_t* step = column_major ? step_col : step_row;
  Expected e;
  e.shape = {c.batch, c.channels, out[0], out[1], out[2]};
  for (int64_t plane = 0; plane < c.batch * c.channels; ++plane) {
    std::vector<float> x(box, 0.f);
    std::vector<bool> real(box, false);
    std::vector<int64_t> origin(box, -1);  // row-major offset in the plane
    for (int64_t d = 0; d < c.in[0]; ++d) {
      for (int64_t h = 0; h < c.in[1]; ++h) {
        for (int64_t w = 0; w < c.in[2]; ++w) {
          const int64_t at =
              ((d + c.pads[0]) * padded[1] + h + c.pads[1]) * padded[2] + w + c.pads[2];
          x[at] = input[plane * volume + (d * c.in[1] + h) * c.in[2] + w];
          real[at] = true;
          origin[at] = d * step[0] + h * step[1] + w * step[2];
        }
      }
    }
    for (int64_t od = 0; od < out[0]; ++od) {
      for (int64_t oh = 0; oh < out[1]; ++oh) {
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          int64_t best = -1;
          for (int64_t kd = 0; kd < c.kernel[0]; ++kd) {
            for (int64_t kh = 0; kh < c.kernel[1]; ++kh) {
              for (int64_t kw = 0; kw < c.kernel[2]; ++kw) {
                const int64_t pd = od * c.stride[0] + kd * c.dilation[0];
                const int64_t ph = oh * c.stride[1] + kh * c.dilation[1];
                const int64_t pw = ow * c.stride[2] + kw * c.dilation[2];
                // A ceil-mode window may reach past the box.
                if (pd >= padded[0] || ph >= padded[1] || pw >= padded[2]) continue;
                const int64_t at = (pd * padded[1] + ph) * padded[2] + pw;
                if (!real[at]) continue;
                if (best < 0 || x[at] > x[best]) best = at;
              }
            }
          }
          e.values.push_back(best < 0 ? 0.f : x[best]);
          e.indices.push_back(
              best < 0 ? -1 : static_cast<int32_t>(plane * volume + origin[best]));
        }
      }
    }
  }
  return e;
}

std::vector<int64_t> Vec(const int64_t* values, int count) {
  return std::vector<int64_t>(values, values + count);
}

void Check(const Case& c, uint32_t seed, int levels) {
  const std::vector<int64_t> shape = {c.batch, c.channels, c.in[0], c.in[1], c.in[2]};
  const std::vector<float> input =
      Values(c.batch * c.channels * c.in[0] * c.in[1] * c.in[2], seed, levels);
  for (int order : {0, 1}) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", storage_order " << order);
    testing::OpTester tester("MaxPool3D", RegisterMaxPool3D);
    tester.Input("x", shape, input)
        .Output("y")
        .Output("i", DT_INT32)
        .Args("kernels", Vec(c.kernel, 3))
        .Args("strides", Vec(c.stride, 3))
        .Args("dilations", Vec(c.dilation, 3))
        .Args("pads", Vec(c.pads, 6))
        .Arg("ceil_mode", c.ceil_mode ? 1 : 0)
        .Arg("storage_order", order);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    const Expected e = Naive(c, input, order == 1);
    ASSERT_EQ(tester.OutputShape("y"), e.shape);
    ASSERT_EQ(tester.OutputShape("i"), e.shape);
    EXPECT_EQ(tester.OutputData("y"), e.values);
    EXPECT_EQ(tester.OutputInts("i"), e.indices);
  }
}

TEST(MaxPool3DTest, AgainstNaive) {
  const Case cases[] = {
      // batch, channels, in, kernel, stride, dilation, pads, ceil_mode
      {1, 1, {4, 4, 4}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, false},
      {2, 3, {5, 7, 6}, {3, 2, 3}, {2, 2, 2}, {1, 1, 1}, {1, 0, 1, 1, 1, 0}, false},
      {1, 2, {7, 5, 9}, {2, 3, 2}, {2, 1, 2}, {2, 2, 1}, {0, 1, 1, 1, 1, 0}, false},
      {2, 2, {5, 6, 7}, {3, 3, 2}, {2, 2, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, true},
      {1, 3, {6, 5, 8}, {2, 2, 3}, {3, 2, 2}, {2, 1, 2}, {1, 1, 0, 0, 1, 1}, true},
      {1, 1, {1, 3, 5}, {1, 3, 3}, {1, 2, 2}, {1, 1, 1}, {0, 1, 1, 0, 1, 1}, true},
      {3, 1, {3, 3, 3}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {2, 2, 2, 2, 2, 2}, false},
      {1, 2, {9, 4, 5}, {1, 1, 1}, {2, 3, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, true},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    Check(c, seed++, 1000);  // distinct values, mostly
    Check(c, seed++, 3);     // many ties: the first maximum must win
  }
}

// 2x2x2 of 1..8 pooled by a whole-volume window: the maximum is the last
// voxel, (1, 1, 1), at 7 either way; a 1x1x2 window at stride 2 picks
// (d, h, 1), at 4d + 2h + 1 row-major and d + 2h + 4 column-major.
TEST(MaxPool3DTest, HandWorked) {
  std::vector<float> input(8);
  for (int i = 0; i < 8; ++i) input[i] = static_cast<float>(i + 1);
  for (int order : {0, 1}) {
    testing::OpTester tester("MaxPool3D", RegisterMaxPool3D);
    tester.Input("x", {1, 1, 2, 2, 2}, input)
        .Output("y")
        .Output("i", DT_INT32)
        .Args("kernels", std::vector<int64_t>{1, 1, 2})
        .Args("strides", std::vector<int64_t>{1, 1, 2})
        .Arg("storage_order", order);
    ASSERT_TRUE(tester.Run().ok());
    EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{2, 4, 6, 8}));
    EXPECT_EQ(tester.OutputInts("i"), order == 0 ? (std::vector<int32_t>{1, 3, 5, 7})
                                                 : (std::vector<int32_t>{4, 6, 5, 7}));
  }
  testing::OpTester whole("MaxPool3D", RegisterMaxPool3D);
  whole.Input("x", {1, 1, 2, 2, 2}, input)
      .Output("y")
      .Output("i", DT_INT32)
      .Args("kernels", std::vector<int64_t>{2, 2, 2});
  ASSERT_TRUE(whole.Run().ok());
  EXPECT_EQ(whole.OutputData("y"), (std::vector<float>{8}));
  EXPECT_EQ(whole.OutputInts("i"), (std::vector<int32_t>{7}));
}

TEST(MaxPool3DTest, ValuesOnly) {
  const std::vector<float> input = Values(2 * 3 * 3 * 3, 5, 1000);
  testing::OpTester tester("MaxPool3D", RegisterMaxPool3D);
  tester.Input("x", {2, 1, 3, 3, 3}, input)
      .Output("y")
      .Args("kernels", std::vector<int64_t>{3, 3, 3});
  ASSERT_TRUE(tester.Run().ok());
  const Case c = {2, 1, {3, 3, 3}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, false};
  EXPECT_EQ(tester.OutputData("y"), Naive(c, input, false).values);
}

TEST(MaxPool3DTest, Errors) {
  const std::vector<float> input = Values(27, 3, 10);
  {
    testing::OpTester tester("MaxPool3D", RegisterMaxPool3D);
    tester.Input("x", {1, 1, 3, 3, 3}, input).Output("y");  // no kernels
    EXPECT_FALSE(tester.Run().ok());
  }
  {
    testing::OpTester tester("MaxPool3D", RegisterMaxPool3D);
    tester.Input("x", {1, 3, 3, 3}, std::vector<float>(input.begin(), input.end()))
        .Output("y")
        .Args("kernels", std::vector<int64_t>{1, 1, 1});  // rank 4
    EXPECT_FALSE(tester.Run().ok());
  }
  {
    testing::OpTester tester("MaxPool3D", RegisterMaxPool3D);
    tester.Input("x", {1, 1, 3, 3, 3}, input)
        .Output("y")
        .Args("kernels", std::vector<int64_t>{4, 1, 1});  // longer than the input
    EXPECT_FALSE(tester.Run().ok());
  }
  {
    testing::OpTester tester("MaxPool3D", RegisterMaxPool3D);
    tester.Input("x", {1, 1, 3, 3, 3}, input)
        .Output("y")
        .Args("kernels", std::vector<int64_t>{2, 2})  // two values
        .Arg("storage_order", 1);
    EXPECT_FALSE(tester.Run().ok());
  }
  {
    testing::OpTester tester("MaxPool3D", RegisterMaxPool3D);
    tester.Input("x", {1, 1, 3, 3, 3}, input)
        .Output("y")
        .Args("kernels", std::vector<int64_t>{1, 1, 1})
        .Args("pads", std::vector<int64_t>{0, 0, 0, 0, -1, 0});  // negative
    EXPECT_FALSE(tester.Run().ok());
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
