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
  EXPECT_NE(status.information().find("Deconv2D 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(Deconv2DTest, Stride1SumsOverlappingFootprints) {
  // Each input pixel of [[1, 2], [3, 4]] adds itself to a 2x2 block of the 3x3
  // output: corners get one pixel, edges two (1+2=3, 1+3=4, 2+4=6, 3+4=7),
  // the centre all four (10).
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4}).Weight("w", {1, 1, 2, 2}, {1, 1, 1, 1}).Output("y");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 3, 2, 4, 10, 6, 3, 7, 4}));
  EXPECT_EQ(tester.op().Macs(), 4 * 4);
}

TEST(Deconv2DTest, Stride2OutputPaddingAndBias) {
  // Stride 2 with a 2x2 kernel spreads each pixel over its own 2x2 block (4x4);
  // output_padding [1, 0] adds one row that only the bias 0.5 reaches.
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .Weight("w", {1, 1, 2, 2}, {1, 1, 1, 1})
      .Weight("b", {1}, {0.5f})
      .Output("y")
      .Args("strides", std::vector<int64_t>{2, 2})
      .Args("output_padding", std::vector<int64_t>{1, 0});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 5, 4}));
  EXPECT_EQ(tester.OutputData("y"),
            (std::vector<float>{1.5f, 1.5f, 2.5f, 2.5f, 1.5f, 1.5f, 2.5f, 2.5f, 3.5f, 3.5f,
                                4.5f, 4.5f, 3.5f, 3.5f, 4.5f, 4.5f, 0.5f, 0.5f, 0.5f, 0.5f}));
}

TEST(Deconv2DTest, PadsCropTheFullOutput) {
  // The same 4x4 block image, with one row/column cropped from every side.
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .Weight("w", {1, 1, 2, 2}, {1, 1, 1, 1})
      .Output("y")
      .Args("strides", std::vector<int64_t>{2, 2})
      .Args("pads", std::vector<int64_t>{1, 1, 1, 1});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Deconv2DTest, SameWithKernelSmallerThanStride) {
  // 1x1 kernel 3, stride 2, SAME: output is input * stride = 2x4 even though
  // the full output is only 1x3; pixels no input reaches stay 0 (TensorFlow).
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 1, 1, 2}, {1, 2})
      .Weight("w", {1, 1, 1, 1}, {3})
      .Output("y")
      .Arg("padding", 1)
      .Args("strides", std::vector<int64_t>{2, 2});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2, 4}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{3, 0, 6, 0, 0, 0, 0, 0}));
}

struct DeconvCase {
  std::vector<int64_t> input_shape;  // NCHW
  int64_t out_channels, kernel_h, kernel_w;
  int64_t stride_h, stride_w, dilation_h, dilation_w;
  int padding;                // used when pads is empty
  std::vector<int64_t> pads;  // top, left, bottom, right
  std::vector<int64_t> output_padding;
  int64_t group;
};

// Scatters every input pixel into the full output, then crops it. SAME pads
// follow TensorFlow: output = input * stride, odd pixel cropped at the end for
// padding 1 and at the start for padding 2.
std::vector<float> NaiveDeconv(const DeconvCase& c, const std::vector<float>& input,
                               const std::vector<float>& filter, const std::vector<float>& bias,
                               std::vector<int64_t>* out_shape) {
  const int64_t n = c.input_shape[0], ic_count = c.input_shape[1];
  const int64_t h = c.input_shape[2], w = c.input_shape[3];
  const int64_t oph = c.output_padding.empty() ? 0 : c.output_padding[0];
  const int64_t opw = c.output_padding.empty() ? 0 : c.output_padding[1];
  const int64_t full_h = (h - 1) * c.stride_h + (c.kernel_h - 1) * c.dilation_h + 1 + oph;
  const int64_t full_w = (w - 1) * c.stride_w + (c.kernel_w - 1) * c.dilation_w + 1 + opw;
  const int64_t oc_count = c.out_channels;
  const int64_t icg = ic_count / c.group, ocg = oc_count / c.group;
  std::vector<float> full(n * oc_count * full_h * full_w, 0.f);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ic = 0; ic < ic_count; ++ic) {
      for (int64_t y = 0; y < h; ++y) {
        for (int64_t x = 0; x < w; ++x) {
          for (int64_t j = 0; j < ocg; ++j) {
            const int64_t oc = (ic / icg) * ocg + j;
            for (int64_t ky = 0; ky < c.kernel_h; ++ky) {
              for (int64_t kx = 0; kx < c.kernel_w; ++kx) {
                const int64_t fy = y * c.stride_h + ky * c.dilation_h;
                const int64_t fx = x * c.stride_w + kx * c.dilation_w;
                EXPECT_TRUE(fy < full_h && fx < full_w);
                full[((b * oc_count + oc) * full_h + fy) * full_w + fx] +=
                    input[((b * ic_count + ic) * h + y) * w + x] *
                    filter[((ic * ocg + j) * c.kernel_h + ky) * c.kernel_w + kx];
              }
            }
          }
        }
      }
    }
  }
  int64_t top, left, out_h, out_w;
  if (!c.pads.empty()) {
    top = c.pads[0], left = c.pads[1];
    out_h = full_h - c.pads[0] - c.pads[2];
    out_w = full_w - c.pads[1] - c.pads[3];
  } else if (c.padding == 0) {
    top = left = 0, out_h = full_h, out_w = full_w;
  } else {
    out_h = h * c.stride_h, out_w = w * c.stride_w;
    const int64_t total_h = std::max<int64_t>(full_h - out_h, 0);
    const int64_t total_w = std::max<int64_t>(full_w - out_w, 0);
    top = c.padding == 1 ? total_h / 2 : (total_h + 1) / 2;
    left = c.padding == 1 ? total_w / 2 : (total_w + 1) / 2;
  }
  *out_shape = {n, oc_count, out_h, out_w};
  std::vector<float> out;
  for (int64_t i = 0; i < n * oc_count; ++i) {
    for (int64_t y = 0; y < out_h; ++y) {
      for (int64_t x = 0; x < out_w; ++x) {
        const int64_t fy = y + top, fx = x + left;
        const float value = fy < full_h && fx < full_w ? full[(i * full_h + fy) * full_w + fx] : 0;
        out.push_back(value + bias[i % oc_count]);
      }
    }
  }
  return out;
}

TEST(Deconv2DTest, MatchesNaiveScatter) {
  const std::vector<DeconvCase> cases = {
      {{1, 3, 1, 1}, 5, 1, 1, 1, 1, 1, 1, 0, {}, {}, 1},                // 1x1 spatial
      {{1, 5, 4, 5}, 7, 3, 3, 1, 1, 1, 1, 0, {1, 1, 1, 1}, {}, 1},      // odd channels
      {{1, 3, 3, 4}, 5, 3, 3, 2, 2, 1, 1, 0, {1, 1, 0, 0}, {1, 1}, 1},  // stride 2 + out pad
      {{1, 3, 4, 4}, 2, 3, 3, 1, 1, 2, 2, 0, {}, {1, 0}, 1},            // dilation 2
      {{1, 3, 4, 3}, 2, 2, 3, 2, 1, 1, 1, 0, {0, 1, 2, 1}, {}, 1},      // asymmetric pads
      {{2, 6, 3, 3}, 9, 3, 3, 2, 2, 1, 1, 0, {}, {}, 3},                // batch 2, groups
      {{1, 3, 5, 4}, 4, 3, 3, 2, 2, 1, 1, 1, {}, {}, 1},                // SAME, odd total
      {{1, 3, 5, 4}, 4, 3, 3, 2, 2, 1, 1, 2, {}, {}, 1},                // SAME_LOWER
      {{1, 3, 3, 3}, 4, 4, 4, 2, 2, 1, 1, 1, {}, {}, 1},                // SAME, even total
      {{1, 3, 3, 2}, 2, 1, 1, 3, 2, 1, 1, 1, {}, {}, 1},                // SAME, k < stride
      {{1, 17, 2, 3}, 9, 2, 2, 1, 1, 1, 1, 0, {}, {}, 1},               // channel tails
  };
  uint32_t seed = 300;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const DeconvCase& c = cases[i];
    const std::vector<int64_t> filter_shape = {c.input_shape[1], c.out_channels / c.group,
                                               c.kernel_h, c.kernel_w};
    const std::vector<float> input = RandomFloats(NumElements(c.input_shape), seed++);
    const std::vector<float> filter = RandomFloats(NumElements(filter_shape), seed++);
    const std::vector<float> bias = RandomFloats(c.out_channels, seed++);
    OpTester tester("Deconv2D", RegisterDeconv2D);
    tester.Input("x", c.input_shape, input)
        .Weight("w", filter_shape, filter)
        .Weight("b", {c.out_channels}, bias)
        .Output("y")
        .Args("strides", std::vector<int64_t>{c.stride_h, c.stride_w})
        .Args("dilations", std::vector<int64_t>{c.dilation_h, c.dilation_w})
        .Arg("padding", c.padding)
        .Arg("group", c.group);
    if (!c.pads.empty()) tester.Args("pads", c.pads);
    if (!c.output_padding.empty()) tester.Args("output_padding", c.output_padding);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    std::vector<int64_t> expected_shape;
    const std::vector<float> expected = NaiveDeconv(c, input, filter, bias, &expected_shape);
    ASSERT_EQ(tester.OutputShape("y"), expected_shape);
    ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-4f);
  }
}

TEST(Deconv2DTest, FusedRelu) {
  DeconvCase c{{1, 2, 3, 3}, 3, 3, 3, 2, 2, 1, 1, 0, {}, {}, 1};
  const std::vector<float> input = RandomFloats(18, 41);
  const std::vector<float> filter = RandomFloats(2 * 3 * 3 * 3, 42);
  std::vector<int64_t> shape;
  std::vector<float> expected = NaiveDeconv(c, input, filter, {0, 0, 0}, &shape);
  for (float& v : expected) v = std::max(v, 0.f);
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", c.input_shape, input)
      .Weight("w", {2, 3, 3, 3}, filter)
      .EmptyInput()
      .Output("y")
      .Args("strides", std::vector<int64_t>{2, 2})
      .Arg("activation", "RELU");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  ASSERT_EQ(tester.OutputShape("y"), shape);
  ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-4f);
}

TEST(Deconv2DTest, RejectsWrongRank) {
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 3, 5}, std::vector<float>(15))
      .Weight("w", {3, 1, 1, 1}, {1, 1, 1})
      .Output("y");
  ExpectInvalid(&tester, "input has shape [1,3,5] but needs rank 4");
}

TEST(Deconv2DTest, RejectsMismatchedChannels) {
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 3, 2, 2}, std::vector<float>(12))
      .Weight("w", {2, 3, 1, 1}, std::vector<float>(6))
      .Output("y");
  ExpectInvalid(&tester, "the input has 3 channels");
}

TEST(Deconv2DTest, RejectsGroupNotDividingChannels) {
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 3, 2, 2}, std::vector<float>(12))
      .Weight("w", {3, 1, 1, 1}, std::vector<float>(3))
      .Output("y")
      .Arg("group", 2);
  ExpectInvalid(&tester, "group 2 must divide");
}

TEST(Deconv2DTest, RejectsBadBias) {
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 2, 2, 2}, std::vector<float>(8))
      .Weight("w", {2, 3, 1, 1}, std::vector<float>(6))
      .Weight("b", {2}, {1, 2})
      .Output("y")
      .Arg("group", 2);
  ExpectInvalid(&tester, "bias has shape [2] but needs [6]");
}

TEST(Deconv2DTest, RejectsBadOutputPadding) {
  for (const std::vector<int64_t>& output_padding :
       std::vector<std::vector<int64_t>>{{1}, {2, 0}, {0, -1}}) {
    OpTester tester("Deconv2D", RegisterDeconv2D);
    tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
        .Weight("w", {1, 1, 1, 1}, {1})
        .Output("y")
        .Args("strides", std::vector<int64_t>{2, 2})
        .Args("output_padding", output_padding);
    ExpectInvalid(&tester, "output_padding");
  }
}

TEST(Deconv2DTest, RejectsPadsCroppingEverything) {
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
      .Weight("w", {1, 1, 2, 2}, std::vector<float>(4))
      .Output("y")
      .Args("pads", std::vector<int64_t>{2, 0, 1, 0});
  ExpectInvalid(&tester, "crop away the whole 3x3 output");
}

TEST(Deconv2DTest, RejectsBadWindowArgs) {
  OpTester tester("Deconv2D", RegisterDeconv2D);
  tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
      .Weight("w", {1, 1, 1, 1}, {1})
      .Output("y")
      .Arg("padding", 3);
  ExpectInvalid(&tester, "padding must be");
}

}  // namespace
}  // namespace ops
}  // namespace mace
