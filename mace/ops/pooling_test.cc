#include <algorithm>
#include <functional>
#include <limits>
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

constexpr int kAvg = 1;
constexpr int kMax = 2;

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("Pooling 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> Iota(int64_t count) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = static_cast<float>(i + 1);
  return values;
}

TEST(PoolingTest, Max2x2Stride2) {
  // 4x4 of 1..16: the 2x2 blocks peak at 6, 8, 14, 16.
  OpTester tester("Pooling", RegisterPooling);
  tester.Input("x", {1, 1, 4, 4}, Iota(16))
      .Output("y")
      .Arg("pooling_type", kMax)
      .Args("kernels", std::vector<int64_t>{2, 2})
      .Args("strides", std::vector<int64_t>{2, 2});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{6, 8, 14, 16}));
}

TEST(PoolingTest, AverageSameExcludesPadding) {
  // 3x3 window over 1..9 with one ring of padding. Corners average 4 values
  // ((1+2+4+5)/4 = 3), edges 6 ((1+2+3+4+5+6)/6 = 3.5), the centre all 9 (5).
  OpTester tester("Pooling", RegisterPooling);
  tester.Input("x", {1, 1, 3, 3}, Iota(9))
      .Output("y")
      .Arg("pooling_type", kAvg)
      .Args("kernels", std::vector<int64_t>{3, 3})
      .Arg("padding", 1);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  ExpectNear(tester.OutputData("y"), {3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7});
}

TEST(PoolingTest, AverageCountIncludePad) {
  // Same windows, always divided by 9: corner 12/9, edge 21/9, centre 45/9.
  OpTester tester("Pooling", RegisterPooling);
  tester.Input("x", {1, 1, 3, 3}, Iota(9))
      .Output("y")
      .Arg("pooling_type", kAvg)
      .Args("kernels", std::vector<int64_t>{3, 3})
      .Args("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Arg("count_include_pad", 1);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  ExpectNear(tester.OutputData("y"),
             {12.f / 9, 21.f / 9, 16.f / 9, 27.f / 9, 5, 33.f / 9, 24.f / 9, 39.f / 9, 28.f / 9});
}

TEST(PoolingTest, CeilModeAddsPartialWindows) {
  // 2x2 stride 2 over 3x3: floor mode gives one window (max 5); ceil mode adds
  // the partial right/bottom windows: max 6, 8, 9. For AVG with
  // count_include_pad the partial windows still divide by their in-input taps
  // only (no declared padding): (3+6)/2, (7+8)/2, 9/1.
  for (int type : {kMax, kAvg}) {
    OpTester tester("Pooling", RegisterPooling);
    tester.Input("x", {1, 1, 3, 3}, Iota(9))
        .Output("y")
        .Arg("pooling_type", type)
        .Args("kernels", std::vector<int64_t>{2, 2})
        .Args("strides", std::vector<int64_t>{2, 2})
        .Arg("ceil_mode", 1)
        .Arg("count_include_pad", 1);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2, 2}));
    const std::vector<float> expected =
        type == kMax ? std::vector<float>{5, 6, 8, 9} : std::vector<float>{3, 4.5f, 7.5f, 9};
    ExpectNear(tester.OutputData("y"), expected);
  }
}

TEST(PoolingTest, CeilModeOverhangCountsWhenAsked) {
  // As CeilModeAddsPartialWindows, with count_ceil_overhang: every window
  // divides by its 4 taps, as ONNX's reference does.
  OpTester tester("Pooling", RegisterPooling);
  tester.Input("x", {1, 1, 3, 3}, Iota(9))
      .Output("y")
      .Arg("pooling_type", kAvg)
      .Args("kernels", std::vector<int64_t>{2, 2})
      .Args("strides", std::vector<int64_t>{2, 2})
      .Arg("ceil_mode", 1)
      .Arg("count_include_pad", 1)
      .Arg("count_ceil_overhang", 1);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  ExpectNear(tester.OutputData("y"), {12.f / 4, 9.f / 4, 15.f / 4, 9.f / 4});
}

TEST(PoolingTest, Global) {
  // Channel 0 = 1..4, channel 1 = 5..8: means 2.5 and 6.5, maxima 4 and 8.
  for (int type : {kMax, kAvg}) {
    OpTester tester("Pooling", RegisterPooling);
    tester.Input("x", {1, 2, 2, 2}, Iota(8)).Output("y").Arg("pooling_type", type).Arg("global", 1);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2, 1, 1}));
    const std::vector<float> expected =
        type == kMax ? std::vector<float>{4, 8} : std::vector<float>{2.5f, 6.5f};
    EXPECT_EQ(tester.OutputData("y"), expected);
  }
}

struct PoolCase {
  int type;
  std::vector<int64_t> input_shape;  // NCHW
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  int padding;                // used when pads is empty
  std::vector<int64_t> pads;  // top, left, bottom, right
  bool ceil_mode, count_include_pad;
  // count_ceil_overhang: the overhang cells count in the divisor too.
  bool count_overhang = false;
};

enum Cell { kInput, kDeclaredPad, kOverhang };

// Lays each plane out on a grid that already holds the padding and any
// ceil-mode overhang, tagging every cell, then reduces whole windows with no
// bounds checks.
std::vector<float> NaivePool(const PoolCase& c, const std::vector<float>& input,
                             std::vector<int64_t>* out_shape) {
  const int64_t planes = c.input_shape[0] * c.input_shape[1];
  const int64_t h = c.input_shape[2], w = c.input_shape[3];
  const int64_t eh = (c.kernel_h - 1) * c.dilation_h + 1, ew = (c.kernel_w - 1) * c.dilation_w + 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0, oh, ow;
  if (!c.pads.empty() || c.padding == 0) {
    if (!c.pads.empty()) pt = c.pads[0], pl = c.pads[1], pb = c.pads[2], pr = c.pads[3];
    const int64_t span_h = h + pt + pb - eh, span_w = w + pl + pr - ew;
    oh = (c.ceil_mode ? (span_h + c.stride_h - 1) / c.stride_h : span_h / c.stride_h) + 1;
    ow = (c.ceil_mode ? (span_w + c.stride_w - 1) / c.stride_w : span_w / c.stride_w) + 1;
    if (c.ceil_mode && (oh - 1) * c.stride_h >= h + pt) --oh;
    if (c.ceil_mode && (ow - 1) * c.stride_w >= w + pl) --ow;
  } else {
    oh = (h + c.stride_h - 1) / c.stride_h, ow = (w + c.stride_w - 1) / c.stride_w;
    const int64_t th = std::max<int64_t>((oh - 1) * c.stride_h + eh - h, 0);
    const int64_t tw = std::max<int64_t>((ow - 1) * c.stride_w + ew - w, 0);
    pt = c.padding == 1 ? th / 2 : th - th / 2, pb = th - pt;
    pl = c.padding == 1 ? tw / 2 : tw - tw / 2, pr = tw - pl;
  }
  const int64_t gh = std::max((oh - 1) * c.stride_h + eh, h + pt + pb);
  const int64_t gw = std::max((ow - 1) * c.stride_w + ew, w + pl + pr);
  *out_shape = {c.input_shape[0], c.input_shape[1], oh, ow};
  std::vector<float> out;
  for (int64_t p = 0; p < planes; ++p) {
    std::vector<float> grid(gh * gw, 0.f);
    std::vector<Cell> tag(gh * gw, kOverhang);
    for (int64_t y = 0; y < h + pt + pb; ++y) {
      for (int64_t x = 0; x < w + pl + pr; ++x) tag[y * gw + x] = kDeclaredPad;
    }
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        grid[(y + pt) * gw + x + pl] = input[(p * h + y) * w + x];
        tag[(y + pt) * gw + x + pl] = kInput;
      }
    }
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        float best = -std::numeric_limits<float>::infinity();
        float sum = 0.f;
        int inputs = 0, declared = 0;
        for (int64_t ky = 0; ky < c.kernel_h; ++ky) {
          for (int64_t kx = 0; kx < c.kernel_w; ++kx) {
            const int64_t cell =
                (oy * c.stride_h + ky * c.dilation_h) * gw + ox * c.stride_w + kx * c.dilation_w;
            if (tag[cell] == kInput) {
              best = std::max(best, grid[cell]);
              sum += grid[cell];
              ++inputs;
            }
            if (tag[cell] != kOverhang || c.count_overhang) ++declared;
          }
        }
        EXPECT_GT(inputs, 0) << "the case should not produce empty windows";
        out.push_back(c.type == kMax ? best : sum / (c.count_include_pad ? declared : inputs));
      }
    }
  }
  return out;
}

TEST(PoolingTest, MatchesNaivePooling) {
  const std::vector<PoolCase> cases = {
      {kMax, {1, 3, 1, 1}, 1, 1, 1, 1, 1, 1, 0, {}, false, false},             // 1x1 spatial
      {kAvg, {1, 5, 7, 7}, 3, 3, 1, 1, 1, 1, 1, {}, false, false},             // odd channels
      {kMax, {1, 3, 9, 10}, 3, 3, 2, 2, 1, 1, 0, {}, false, false},            // stride 2
      {kAvg, {1, 3, 9, 9}, 2, 3, 1, 1, 2, 2, 1, {}, false, true},              // dilation 2
      {kAvg, {1, 3, 7, 6}, 2, 3, 2, 1, 1, 1, 0, {0, 1, 2, 1}, false, true},    // asym pads
      {kMax, {1, 3, 10, 11}, 3, 3, 2, 2, 1, 1, 0, {1, 1, 1, 1}, true, false},  // ceil mode
      {kAvg, {1, 3, 6, 6}, 3, 3, 2, 2, 1, 1, 0, {1, 0, 1, 0}, true, true},     // ceil + incl.
      {kAvg, {1, 3, 6, 7}, 3, 2, 3, 2, 1, 1, 0, {}, true, false},              // ceil, VALID
      {kAvg, {2, 3, 7, 8}, 3, 3, 2, 2, 1, 1, 2, {}, false, false},             // SAME_LOWER
      {kMax, {2, 3, 2, 2}, 3, 3, 1, 1, 1, 1, 0, {1, 1, 1, 1}, false, false},   // kernel > input
      {kAvg, {1, 17, 5, 9}, 2, 2, 2, 2, 1, 1, 1, {}, false, true},             // tails, SAME
      // ONNX's reference divisor: ceil-mode overhang counts (with and
      // without declared pads, dilation, stride 3, and where there is no
      // overhang at all).
      {kAvg, {1, 3, 6, 6}, 3, 3, 2, 2, 1, 1, 0, {1, 0, 1, 0}, true, true, true},
      {kAvg, {1, 2, 10, 11}, 3, 2, 3, 3, 2, 1, 0, {}, true, true, true},
      {kAvg, {2, 2, 8, 7}, 2, 3, 3, 2, 1, 2, 0, {0, 1, 1, 0}, true, true, true},
      {kAvg, {1, 2, 7, 7}, 3, 3, 2, 2, 1, 1, 0, {1, 1, 1, 1}, true, true, true},
      {kMax, {1, 2, 8, 7}, 2, 3, 3, 2, 1, 2, 0, {0, 1, 1, 0}, true, false, true},
  };
  uint32_t seed = 400;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const PoolCase& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.input_shape), seed++);
    OpTester tester("Pooling", RegisterPooling);
    tester.Input("x", c.input_shape, input)
        .Output("y")
        .Arg("pooling_type", c.type)
        .Args("kernels", std::vector<int64_t>{c.kernel_h, c.kernel_w})
        .Args("strides", std::vector<int64_t>{c.stride_h, c.stride_w})
        .Args("dilations", std::vector<int64_t>{c.dilation_h, c.dilation_w})
        .Arg("padding", c.padding)
        .Arg("ceil_mode", c.ceil_mode ? 1 : 0)
        .Arg("count_include_pad", c.count_include_pad ? 1 : 0)
        .Arg("count_ceil_overhang", c.count_overhang ? 1 : 0);
    if (!c.pads.empty()) tester.Args("pads", c.pads);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    std::vector<int64_t> expected_shape;
    const std::vector<float> expected = NaivePool(c, input, &expected_shape);
    ASSERT_EQ(tester.OutputShape("y"), expected_shape);
    ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-5f);
  }
}

TEST(PoolingTest, WindowOfOnlyPaddingIsZero) {
  // Kernel 2 with dilation 3 over rows [-5, -7] padded by 2 on both sides: the
  // windows read rows (-2, 1), (-1, 2) and (0, 3). The middle one covers no
  // input row and yields 0; the others keep their negative maxima, so
  // padding never competes in MAX.
  OpTester tester("Pooling", RegisterPooling);
  tester.Input("x", {1, 1, 2, 1}, {-5, -7})
      .Output("y")
      .Arg("pooling_type", kMax)
      .Args("kernels", std::vector<int64_t>{2, 1})
      .Args("dilations", std::vector<int64_t>{3, 1})
      .Args("pads", std::vector<int64_t>{2, 0, 2, 0});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{-7, 0, -5}));
}

TEST(PoolingTest, RejectsWrongRank) {
  OpTester tester("Pooling", RegisterPooling);
  tester.Input("x", {1, 3, 5}, std::vector<float>(15)).Output("y").Arg("global", 1);
  ExpectInvalid(&tester, "input has shape [1,3,5] but needs rank 4");
}

TEST(PoolingTest, RejectsBadArgs) {
  struct BadArgs {
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const std::vector<BadArgs> cases = {
      {[](OpTester* t) { t->Arg("pooling_type", 4); }, "pooling_type must be"},
      {[](OpTester*) {}, "kernels must be two integers"},
      {[](OpTester* t) {
         t->Args("kernels", std::vector<int64_t>{0, 2});
       },
       "kernels must be "
       "positive"},
      {[](OpTester* t) { t->Arg("global", 1).Arg("ceil_mode", 2); }, "ceil_mode must be 0 or 1"},
      {[](OpTester* t) { t->Arg("global", -1); }, "global must be 0 or 1"},
      {[](OpTester* t) {
         t->Args("kernels", std::vector<int64_t>{5, 5});
       },
       "does not fit"},
      {[](OpTester* t) {
         t->Args("kernels", std::vector<int64_t>{1, 1}).Args("strides", std::vector<int64_t>{0});
       },
       "strides"},
  };
  for (const BadArgs& bad : cases) {
    OpTester tester("Pooling", RegisterPooling);
    tester.Input("x", {1, 1, 3, 3}, Iota(9)).Output("y");
    bad.set(&tester);
    ExpectInvalid(&tester, bad.fragment);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
