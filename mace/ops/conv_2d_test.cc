#include <algorithm>
#include <functional>
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
  EXPECT_NE(status.information().find("Conv2D 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(Conv2DTest, ValidWithBias) {
  // input 3x3 = 1..9, filter [[1, 0], [0, 1]] adds each pixel to its lower-right
  // neighbour: 1+5=6, 2+6=8, 4+8=12, 5+9=14; bias 0.5 on top.
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})
      .Weight("w", {1, 1, 2, 2}, {1, 0, 0, 1})
      .Weight("b", {1}, {0.5f})
      .Output("y");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{6.5f, 8.5f, 12.5f, 14.5f}));
  EXPECT_EQ(tester.op().Macs(), 4 * 4);
}

TEST(Conv2DTest, SameStride2) {
  // 3x3 ones, SAME, stride 2: out 2x2, total pad (2-1)*2+3-3 = 2, so one row and
  // column of zeros on every side. Each output sums one 2x2 corner of 1..9:
  // 1+2+4+5=12, 2+3+5+6=16, 4+5+7+8=24, 5+6+8+9=28.
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})
      .Weight("w", {1, 1, 3, 3}, std::vector<float>(9, 1.f))
      .Output("y")
      .Arg("padding", 1)
      .Args("strides", std::vector<int64_t>{2, 2});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{12, 16, 24, 28}));
}

TEST(Conv2DTest, GroupsAndFusedRelu6) {
  // Two groups of one channel: 2*10 = 20 -> clamped to 6; 3*-1 = -3 -> 0.
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", {1, 2, 1, 1}, {2, 3})
      .Weight("w", {2, 1, 1, 1}, {10, -1})
      .EmptyInput()
      .Output("y")
      .Arg("group", 2)
      .Arg("activation", "RELU6");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{6, 0}));
}

struct ConvCase {
  std::vector<int64_t> input_shape;  // NCHW
  int64_t out_channels, kernel_h, kernel_w;
  int64_t stride_h, stride_w, dilation_h, dilation_w;
  int padding;                // used when pads is empty
  std::vector<int64_t> pads;  // top, left, bottom, right
  int64_t group;
  bool with_bias;
};

// The leading pad and output size of one dimension, derived from the
// TensorFlow/ONNX definitions rather than from conv_geometry.
void NaiveGeometry(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int padding,
                   int64_t* pad_begin, int64_t* pad_end) {
  const int64_t extent = (kernel - 1) * dilation + 1;
  if (padding == 0) {
    *pad_begin = *pad_end = 0;
    return;
  }
  const int64_t out = (in + stride - 1) / stride;
  const int64_t total = std::max<int64_t>((out - 1) * stride + extent - in, 0);
  *pad_begin = padding == 1 ? total / 2 : total - total / 2;
  *pad_end = total - *pad_begin;
}

// Copies the input into an explicitly zero-padded buffer, then runs a VALID
// convolution with a plain 7-deep loop.
std::vector<float> NaiveConv(const ConvCase& c, const std::vector<float>& input,
                             const std::vector<float>& filter, const std::vector<float>& bias,
                             std::vector<int64_t>* out_shape) {
  const int64_t n = c.input_shape[0], ch = c.input_shape[1];
  const int64_t h = c.input_shape[2], w = c.input_shape[3];
  int64_t pt, pl, pb, pr;
  if (c.pads.empty()) {
    NaiveGeometry(h, c.kernel_h, c.stride_h, c.dilation_h, c.padding, &pt, &pb);
    NaiveGeometry(w, c.kernel_w, c.stride_w, c.dilation_w, c.padding, &pl, &pr);
  } else {
    pt = c.pads[0], pl = c.pads[1], pb = c.pads[2], pr = c.pads[3];
  }
  const int64_t hp = h + pt + pb, wp = w + pl + pr;
  std::vector<float> padded(n * ch * hp * wp, 0.f);
  for (int64_t i = 0; i < n * ch; ++i) {
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        padded[(i * hp + y + pt) * wp + x + pl] = input[(i * h + y) * w + x];
      }
    }
  }
  const int64_t oh_count = (hp - (c.kernel_h - 1) * c.dilation_h - 1) / c.stride_h + 1;
  const int64_t ow_count = (wp - (c.kernel_w - 1) * c.dilation_w - 1) / c.stride_w + 1;
  const int64_t oc_count = c.out_channels;
  const int64_t icg = ch / c.group, ocg = oc_count / c.group;
  *out_shape = {n, oc_count, oh_count, ow_count};
  std::vector<float> out(n * oc_count * oh_count * ow_count);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oc = 0; oc < oc_count; ++oc) {
      for (int64_t oy = 0; oy < oh_count; ++oy) {
        for (int64_t ox = 0; ox < ow_count; ++ox) {
          float sum = c.with_bias ? bias[oc] : 0.f;
          for (int64_t ic = 0; ic < icg; ++ic) {
            const int64_t in_c = (oc / ocg) * icg + ic;
            for (int64_t ky = 0; ky < c.kernel_h; ++ky) {
              for (int64_t kx = 0; kx < c.kernel_w; ++kx) {
                const int64_t y = oy * c.stride_h + ky * c.dilation_h;
                const int64_t x = ox * c.stride_w + kx * c.dilation_w;
                EXPECT_TRUE(y < hp && x < wp);
                sum += padded[((b * ch + in_c) * hp + y) * wp + x] *
                       filter[((oc * icg + ic) * c.kernel_h + ky) * c.kernel_w + kx];
              }
            }
          }
          out[((b * oc_count + oc) * oh_count + oy) * ow_count + ox] = sum;
        }
      }
    }
  }
  return out;
}

TEST(Conv2DTest, MatchesNaiveConvolution) {
  const std::vector<ConvCase> cases = {
      {{1, 3, 1, 1}, 5, 1, 1, 1, 1, 1, 1, 0, {}, 1, true},             // 1x1 spatial
      {{1, 5, 7, 7}, 7, 3, 3, 1, 1, 1, 1, 1, {}, 1, true},             // odd channels, SAME
      {{1, 3, 9, 10}, 5, 3, 3, 2, 2, 1, 1, 0, {}, 1, false},           // stride 2, VALID
      {{1, 3, 9, 11}, 4, 3, 3, 2, 2, 1, 1, 1, {}, 1, true},            // stride 2, SAME
      {{1, 3, 8, 9}, 3, 3, 2, 2, 2, 1, 1, 2, {}, 1, true},             // SAME_LOWER
      {{1, 3, 9, 9}, 5, 3, 3, 1, 1, 2, 2, 1, {}, 1, true},             // dilation 2
      {{1, 3, 7, 6}, 2, 2, 3, 2, 1, 1, 2, 0, {0, 1, 2, 1}, 1, true},   // asymmetric pads
      {{2, 9, 5, 6}, 6, 3, 3, 1, 1, 1, 1, 1, {}, 3, true},             // batch 2, 3 groups
      {{1, 5, 6, 5}, 10, 3, 3, 1, 2, 1, 1, 0, {1, 1, 1, 1}, 5, true},  // group == channels
      {{1, 3, 2, 3}, 9, 3, 3, 1, 1, 1, 1, 0, {1, 1, 1, 1}, 1, true},   // kernel > input
      {{2, 17, 4, 5}, 13, 1, 1, 1, 1, 1, 1, 0, {}, 1, true},           // 1x1 kernel, tails
  };
  uint32_t seed = 100;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const ConvCase& c = cases[i];
    const std::vector<int64_t> filter_shape = {c.out_channels, c.input_shape[1] / c.group,
                                               c.kernel_h, c.kernel_w};
    const std::vector<float> input = RandomFloats(NumElements(c.input_shape), seed++);
    const std::vector<float> filter = RandomFloats(NumElements(filter_shape), seed++);
    const std::vector<float> bias = RandomFloats(c.out_channels, seed++);
    OpTester tester("Conv2D", RegisterConv2D);
    tester.Input("x", c.input_shape, input).Weight("w", filter_shape, filter);
    if (c.with_bias) tester.Weight("b", {c.out_channels}, bias);
    tester.Output("y")
        .Args("strides", std::vector<int64_t>{c.stride_h, c.stride_w})
        .Args("dilations", std::vector<int64_t>{c.dilation_h, c.dilation_w})
        .Arg("padding", c.padding)
        .Arg("group", c.group);
    if (!c.pads.empty()) tester.Args("pads", c.pads);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    std::vector<int64_t> expected_shape;
    const std::vector<float> expected = NaiveConv(c, input, filter, bias, &expected_shape);
    ASSERT_EQ(tester.OutputShape("y"), expected_shape);
    ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-4f);
  }
}

TEST(Conv2DTest, FusedLeakyRelu) {
  const std::vector<float> input = RandomFloats(2 * 3 * 4 * 4, 7);
  const std::vector<float> filter = RandomFloats(5 * 3 * 3 * 3, 8);
  ConvCase c{{2, 3, 4, 4}, 5, 3, 3, 1, 1, 1, 1, 1, {}, 1, false};
  std::vector<int64_t> shape;
  std::vector<float> expected = NaiveConv(c, input, filter, {}, &shape);
  for (float& v : expected) v = v >= 0.f ? v : 0.1f * v;
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", c.input_shape, input)
      .Weight("w", {5, 3, 3, 3}, filter)
      .Output("y")
      .Arg("padding", 1)
      .Arg("activation", "LEAKYRELU")
      .Arg("activation_coefficient", 0.1f);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-4f);
}

TEST(Conv2DTest, RejectsWrongRank) {
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", {1, 3, 5}, std::vector<float>(15)).Weight("w", {1, 3, 1, 1}, {1, 1, 1});
  tester.Output("y");
  ExpectInvalid(&tester, "input has shape [1,3,5] but needs rank 4");
}

TEST(Conv2DTest, RejectsMismatchedChannels) {
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", {1, 3, 2, 2}, std::vector<float>(12))
      .Weight("w", {2, 4, 1, 1}, std::vector<float>(8))
      .Output("y");
  ExpectInvalid(&tester, "but the input has 3 channels");
}

TEST(Conv2DTest, RejectsGroupNotDividingChannels) {
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", {1, 4, 2, 2}, std::vector<float>(16))
      .Weight("w", {3, 2, 1, 1}, std::vector<float>(6))
      .Output("y")
      .Arg("group", 2);
  ExpectInvalid(&tester, "group 2 must divide");
}

TEST(Conv2DTest, RejectsBadBias) {
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
      .Weight("w", {2, 1, 1, 1}, {1, 1})
      .Weight("b", {3}, {1, 2, 3})
      .Output("y");
  ExpectInvalid(&tester, "bias has shape [3] but needs [2]");
}

TEST(Conv2DTest, RejectsWindowLargerThanInput) {
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
      .Weight("w", {1, 1, 3, 3}, std::vector<float>(9))
      .Output("y");
  ExpectInvalid(&tester, "does not fit");
}

TEST(Conv2DTest, RejectsBadArgs) {
  struct BadArg {
    std::string name;
    std::vector<int64_t> ints;
    std::string fragment;
  };
  for (const BadArg& bad : std::vector<BadArg>{{"strides", {0, 1}, "strides"},
                                               {"dilations", {1}, "dilations"},
                                               {"pads", {1, 1, 1}, "pads"},
                                               {"pads", {0, 0, 0, int64_t{1} << 40}, "exceed"}}) {
    OpTester tester("Conv2D", RegisterConv2D);
    tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
        .Weight("w", {1, 1, 1, 1}, {1})
        .Output("y")
        .Args(bad.name, bad.ints);
    ExpectInvalid(&tester, bad.fragment);
  }
  OpTester group_zero("Conv2D", RegisterConv2D);
  group_zero.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
      .Weight("w", {1, 1, 1, 1}, {1})
      .Output("y")
      .Arg("group", 0);
  ExpectInvalid(&group_zero, "group must be positive");
  OpTester prelu("Conv2D", RegisterConv2D);
  prelu.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
      .Weight("w", {1, 1, 1, 1}, {1})
      .Output("y")
      .Arg("activation", "PRELU");
  ExpectInvalid(&prelu, "PRELU");
}

// A model must not lose its fused RELU6 or its window to an argument in the
// wrong field or under a misspelt name: each is an error naming it.
TEST(Conv2DTest, RejectsArgsOfTheWrongTypeOrName) {
  struct BadArg {
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const std::vector<BadArg> cases = {
      {[](OpTester* t) { t->Arg("activation", 6); },
       "argument 'activation' must be a string, got an int"},
      {[](OpTester* t) { t->Arg("strides", 2); },
       "argument 'strides' must be a list of ints, got an int"},
      {[](OpTester* t) {
         t->Args("pads", std::vector<float>{1, 1, 1, 1});
       },
       "argument 'pads' must be a list of ints, got a list of floats"},
      {[](OpTester* t) { t->Arg("group", 1.f); }, "argument 'group' must be an int, got a float"},
      {[](OpTester* t) { t->Arg("activa[ion", "RELU6"); }, "unknown argument 'activa[ion'"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("Conv2D", RegisterConv2D);
    tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4))
        .Weight("w", {1, 1, 1, 1}, {1})
        .Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

TEST(Conv2DTest, RejectsMissingFilter) {
  OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4)).EmptyInput().Output("y");
  ExpectInvalid(&tester, "filter is missing");
}

}  // namespace
}  // namespace ops
}  // namespace mace
