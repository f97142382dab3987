#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::NumElements;
using testing::OpTester;
using testing::RandomFloats;

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("DepthwiseConv2d 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(DepthwiseConv2dTest, MultiplierOrdersChannelsByInputChannel) {
  // Channel 0 = 1..4, channel 1 = 5..8, 2x2 kernels, VALID, multiplier 2.
  // filter[0][c] sums the window: 10 and 26; filter[1][0] picks the top-left
  // (1), filter[1][1] the bottom-right (8). Output channel c*2+m: 10, 1, 26, 8.
  OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
  tester.Input("x", {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})
      .Weight("w", {2, 2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1})
      .Output("y");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 4, 1, 1}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{10, 1, 26, 8}));
  EXPECT_EQ(tester.op().Macs(), 4 * 4);
}

TEST(DepthwiseConv2dTest, SamePaddingWithBiasAndRelu) {
  // A 3x3 kernel that is 1 at the centre and 0 elsewhere, SAME padding, so each
  // output is its own input pixel: x + 1 (bias) = 2 -1 4 -3 6 -5 8 -7 10, and
  // RELU zeroes the negatives.
  OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
  tester.Input("x", {1, 1, 3, 3}, {1, -2, 3, -4, 5, -6, 7, -8, 9})
      .Weight("w", {1, 1, 3, 3}, {0, 0, 0, 0, 1, 0, 0, 0, 0})
      .Weight("b", {1}, {1})
      .Output("y")
      .Arg("padding", 1)
      .Arg("activation", "RELU");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{2, 0, 4, 0, 6, 0, 8, 0, 10}));
}

struct DepthwiseCase {
  std::vector<int64_t> input_shape;  // NCHW
  int64_t multiplier, kernel_h, kernel_w;
  int64_t stride_h, stride_w, dilation_h, dilation_w;
  std::vector<int64_t> pads;  // top, left, bottom, right; the test always passes explicit pads
};

// Per output channel: find its input channel and filter, then gather taps with
// an explicit bounds check (implicit zero padding).
std::vector<float> NaiveDepthwise(const DepthwiseCase& c, const std::vector<float>& input,
                                  const std::vector<float>& filter, const std::vector<float>& bias,
                                  std::vector<int64_t>* out_shape) {
  const int64_t n = c.input_shape[0], ch = c.input_shape[1];
  const int64_t h = c.input_shape[2], w = c.input_shape[3];
  const int64_t oh_count =
      (h + c.pads[0] + c.pads[2] - (c.kernel_h - 1) * c.dilation_h - 1) / c.stride_h + 1;
  const int64_t ow_count =
      (w + c.pads[1] + c.pads[3] - (c.kernel_w - 1) * c.dilation_w - 1) / c.stride_w + 1;
  const int64_t oc_count = ch * c.multiplier;
  *out_shape = {n, oc_count, oh_count, ow_count};
  std::vector<float> out;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oc = 0; oc < oc_count; ++oc) {
      const int64_t in_c = oc / c.multiplier, m = oc % c.multiplier;
      for (int64_t oy = 0; oy < oh_count; ++oy) {
        for (int64_t ox = 0; ox < ow_count; ++ox) {
          float sum = bias[oc];
          for (int64_t ky = 0; ky < c.kernel_h; ++ky) {
            for (int64_t kx = 0; kx < c.kernel_w; ++kx) {
              const int64_t y = oy * c.stride_h + ky * c.dilation_h - c.pads[0];
              const int64_t x = ox * c.stride_w + kx * c.dilation_w - c.pads[1];
              if (y < 0 || y >= h || x < 0 || x >= w) continue;
              sum += input[((b * ch + in_c) * h + y) * w + x] *
                     filter[((m * ch + in_c) * c.kernel_h + ky) * c.kernel_w + kx];
            }
          }
          out.push_back(sum);
        }
      }
    }
  }
  return out;
}

TEST(DepthwiseConv2dTest, MatchesNaiveDepthwise) {
  const std::vector<DepthwiseCase> cases = {
      {{1, 3, 1, 1}, 1, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}},    // 1x1 spatial
      {{1, 5, 7, 7}, 1, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}},    // odd channels
      {{1, 7, 9, 10}, 2, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}},   // stride 2, multiplier 2
      {{1, 3, 9, 9}, 1, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}},    // dilation 2
      {{2, 5, 6, 7}, 3, 2, 3, 1, 2, 1, 1, {0, 1, 1, 2}},    // batch 2, asymmetric pads
      {{1, 17, 5, 11}, 1, 5, 5, 2, 1, 1, 1, {2, 2, 2, 2}},  // tails past 8 and 16
  };
  uint32_t seed = 200;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const DepthwiseCase& c = cases[i];
    const std::vector<int64_t> filter_shape = {c.multiplier, c.input_shape[1], c.kernel_h,
                                               c.kernel_w};
    const int64_t out_channels = c.input_shape[1] * c.multiplier;
    const std::vector<float> input = RandomFloats(NumElements(c.input_shape), seed++);
    const std::vector<float> filter = RandomFloats(NumElements(filter_shape), seed++);
    const std::vector<float> bias = RandomFloats(out_channels, seed++);
    OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
    tester.Input("x", c.input_shape, input)
        .Weight("w", filter_shape, filter)
        .Weight("b", {out_channels}, bias)
        .Output("y")
        .Args("strides", std::vector<int64_t>{c.stride_h, c.stride_w})
        .Args("dilations", std::vector<int64_t>{c.dilation_h, c.dilation_w})
        .Args("pads", c.pads);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    std::vector<int64_t> expected_shape;
    const std::vector<float> expected = NaiveDepthwise(c, input, filter, bias, &expected_shape);
    ASSERT_EQ(tester.OutputShape("y"), expected_shape);
    ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-4f);
  }
}

TEST(DepthwiseConv2dTest, SameStride2MatchesExplicitPads) {
  // SAME on 8x8 with a 3x3 kernel and stride 2: out 4, total pad 3*2+3-8 = 1,
  // all of it at the bottom/right.
  const std::vector<float> input = RandomFloats(3 * 8 * 8, 11);
  const std::vector<float> filter = RandomFloats(3 * 3 * 3, 12);
  DepthwiseCase c{{1, 3, 8, 8}, 1, 3, 3, 2, 2, 1, 1, {0, 0, 1, 1}};
  std::vector<int64_t> shape;
  const std::vector<float> expected =
      NaiveDepthwise(c, input, filter, std::vector<float>(3, 0.f), &shape);
  OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
  tester.Input("x", c.input_shape, input)
      .Weight("w", {1, 3, 3, 3}, filter)
      .Output("y")
      .Arg("padding", 1)
      .Args("strides", std::vector<int64_t>{2, 2});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  ASSERT_EQ(tester.OutputShape("y"), shape);
  ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-4f);
}

TEST(DepthwiseConv2dTest, RejectsWrongRank) {
  OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
  tester.Input("x", {1, 3, 5}, std::vector<float>(15))
      .Weight("w", {1, 3, 1, 1}, {1, 1, 1})
      .Output("y");
  ExpectInvalid(&tester, "input has shape [1,3,5] but needs rank 4");
}

TEST(DepthwiseConv2dTest, RejectsMismatchedChannels) {
  OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
  tester.Input("x", {1, 3, 2, 2}, std::vector<float>(12))
      .Weight("w", {1, 4, 1, 1}, std::vector<float>(4))
      .Output("y");
  ExpectInvalid(&tester, "the input has 3 channels");
}

TEST(DepthwiseConv2dTest, RejectsBadBias) {
  OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
  tester.Input("x", {1, 2, 2, 2}, std::vector<float>(8))
      .Weight("w", {2, 2, 1, 1}, std::vector<float>(4))
      .Weight("b", {2}, {1, 2})
      .Output("y");
  ExpectInvalid(&tester, "bias has shape [2] but needs [4]");
}

TEST(DepthwiseConv2dTest, RejectsBadArgs) {
  OpTester strides("DepthwiseConv2d", RegisterDepthwiseConv2d);
  strides.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
      .Weight("w", {1, 1, 1, 1}, {1})
      .Output("y")
      .Args("strides", std::vector<int64_t>{1, -1});
  ExpectInvalid(&strides, "strides");
  OpTester activation("DepthwiseConv2d", RegisterDepthwiseConv2d);
  activation.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
      .Weight("w", {1, 1, 1, 1}, {1})
      .Output("y")
      .Arg("activation", "SWISHY");
  ExpectInvalid(&activation, "unknown activation");
  OpTester window("DepthwiseConv2d", RegisterDepthwiseConv2d);
  window.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
      .Weight("w", {1, 1, 2, 2}, std::vector<float>(4))
      .Output("y")
      .Args("dilations", std::vector<int64_t>{2, 2});
  ExpectInvalid(&window, "does not fit");
}

}  // namespace
}  // namespace ops
}  // namespace mace
