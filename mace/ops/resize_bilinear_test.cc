#include <algorithm>
#include <cmath>
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

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("ResizeBilinear 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> RunResize(OpTester* tester) {
  const MaceStatus run_status = tester->Run();
  EXPECT_TRUE(run_status.ok()) << run_status.information();
  if (!run_status.ok()) return {};
  return tester->OutputData("y");
}

TEST(ResizeBilinearTest, HalfPixelIsTheDefault) {
  // [[1, 2], [3, 4]] to 4x4. half_pixel maps output x to (x + 0.5) / 2 - 0.5 =
  // -0.25, 0.25, 0.75, 1.25, clamped to 0, 0.25, 0.75, 1. A row [a, b] becomes
  // a, 0.75a + 0.25b, 0.25a + 0.75b, b: [1, 1.25, 1.75, 2] and [3, 3.25, 3.75, 4].
  // Rows blend the same way; the middle rows add 0.5 and 1.5 to the first.
  OpTester tester("ResizeBilinear", RegisterResizeBilinear);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .Output("y")
      .Args("size", std::vector<int64_t>{4, 4});
  const std::vector<float> output = RunResize(&tester);
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 4, 4}));
  ExpectNear(output, {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3,
                      3.25f, 3.75f, 4});
}

TEST(ResizeBilinearTest, AlignCorners) {
  // 2x2 to 3x3 with corners aligned: source x = x * (2 - 1) / (3 - 1) = 0, 0.5,
  // 1, so the middle row and column are the means of their neighbours. The
  // legacy align_corners=1 flag means the same.
  for (bool legacy : {false, true}) {
    OpTester tester("ResizeBilinear", RegisterResizeBilinear);
    tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
        .Output("y")
        .Args("size", std::vector<int64_t>{3, 3});
    if (legacy) {
      tester.Arg("align_corners", 1);
    } else {
      tester.Arg("coordinate_transformation_mode", "align_corners");
    }
    ExpectNear(RunResize(&tester), {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
  }
}

TEST(ResizeBilinearTest, Asymmetric) {
  // TensorFlow's legacy mapping x / 2 = 0, 0.5, 1, 1.5: the last source
  // coordinate is past the input and clamps to the border pixel.
  OpTester tester("ResizeBilinear", RegisterResizeBilinear);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .Output("y")
      .Args("size", std::vector<int64_t>{4, 4})
      .Arg("coordinate_transformation_mode", "asymmetric");
  ExpectNear(RunResize(&tester), {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4});
}

TEST(ResizeBilinearTest, SingleOutputPixelPerMode) {
  // [1, 2] to one pixel. half_pixel: (0 + 0.5) * 2 - 0.5 = 0.5, the mean 1.5.
  // pytorch_half_pixel and align_corners define a length-1 output as source
  // 0, and asymmetric gives 0 * 2 = 0: all three pick 1.
  const std::vector<std::pair<std::string, float>> cases = {{"half_pixel", 1.5f},
                                                            {"pytorch_half_pixel", 1.f},
                                                            {"align_corners", 1.f},
                                                            {"asymmetric", 1.f}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.first);
    OpTester tester("ResizeBilinear", RegisterResizeBilinear);
    tester.Input("x", {1, 1, 1, 2}, {1, 2})
        .Output("y")
        .Args("size", std::vector<int64_t>{1, 1})
        .Arg("coordinate_transformation_mode", c.first);
    ExpectNear(RunResize(&tester), {c.second});
  }
}

TEST(ResizeBilinearTest, ScalesAreUsedAsGiven) {
  // Width 5 with width_scale 0.5 gives floor(2.5) = 2 pixels. half_pixel then
  // divides by the given 0.5, not by 2/5: source x = 2x + 0.5 = 0.5, 2.5, so
  // the outputs are 1.5 and 3.5 (the 2/5 ratio would give 0.75, 3.25).
  OpTester tester("ResizeBilinear", RegisterResizeBilinear);
  tester.Input("x", {1, 1, 1, 5}, {1, 2, 3, 4, 5})
      .Output("y")
      .Arg("height_scale", 1.f)
      .Arg("width_scale", 0.5f);
  const std::vector<float> output = RunResize(&tester);
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 1, 2}));
  ExpectNear(output, {1.5f, 3.5f});
}

TEST(ResizeBilinearTest, ScaleProductIsFloat32) {
  // 10 * 0.7f rounds to exactly 7 in float32 (ONNX Runtime's arithmetic), where
  // double arithmetic would floor 6.9999998 to 6.
  OpTester tester("ResizeBilinear", RegisterResizeBilinear);
  tester.Input("x", {1, 1, 1, 10}, std::vector<float>(10, 1.f))
      .Output("y")
      .Arg("height_scale", 1.f)
      .Arg("width_scale", 0.7f);
  RunResize(&tester);
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 1, 7}));
}

TEST(ResizeBilinearTest, SizeFromConstantInput) {
  // Same resize as the align_corners case, with [3, 3] from an int32 weight.
  OpTester tester("ResizeBilinear", RegisterResizeBilinear);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .IntWeight("size", {2}, {3, 3})
      .Output("y")
      .Arg("coordinate_transformation_mode", "align_corners");
  ExpectNear(RunResize(&tester), {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
}

enum class Source { kSizeArg, kSizeInput, kScales };

struct ResizeCase {
  std::vector<int64_t> input_shape;  // NCHW
  int64_t out_h, out_w;              // ignored for kScales
  std::string mode;
  Source source;
  float scale_h, scale_w;  // kScales only
};

// Source coordinate straight from the ONNX formulas, with scale the given
// float or out / in.
double NaiveSource(const std::string& mode, int64_t x, int64_t in, int64_t out, double scale) {
  if (mode == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners") return out > 1 ? x * (in - 1.0) / (out - 1.0) : 0.0;
  return x / scale;  // asymmetric
}

// TensorFlow's formulation: the lower tap is floor clamped to 0, the upper
// tap ceil clamped to the last pixel, the weight is the unclamped fraction.
std::vector<float> NaiveResize(const ResizeCase& c, const std::vector<float>& input, int64_t oh,
                               int64_t ow, double scale_h, double scale_w) {
  const int64_t planes = c.input_shape[0] * c.input_shape[1];
  const int64_t ih = c.input_shape[2], iw = c.input_shape[3];
  std::vector<float> out;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t x = 0; x < ow; ++x) {
        const double sy = NaiveSource(c.mode, y, ih, oh, scale_h);
        const double sx = NaiveSource(c.mode, x, iw, ow, scale_w);
        const int64_t y0 = std::clamp<int64_t>(std::floor(sy), 0, ih - 1);
        const int64_t y1 = std::clamp<int64_t>(std::ceil(sy), 0, ih - 1);
        const int64_t x0 = std::clamp<int64_t>(std::floor(sx), 0, iw - 1);
        const int64_t x1 = std::clamp<int64_t>(std::ceil(sx), 0, iw - 1);
        const double fy = sy - std::floor(sy), fx = sx - std::floor(sx);
        auto at = [&](int64_t yy, int64_t xx) { return input[(p * ih + yy) * iw + xx]; };
        const double top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * fx;
        const double bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * fx;
        out.push_back(static_cast<float>(top + (bottom - top) * fy));
      }
    }
  }
  return out;
}

TEST(ResizeBilinearTest, MatchesNaiveResize) {
  const std::vector<ResizeCase> cases = {
      {{1, 1, 1, 1}, 3, 5, "half_pixel", Source::kSizeArg, 0, 0},           // 1x1 input
      {{1, 3, 5, 7}, 9, 13, "half_pixel", Source::kSizeArg, 0, 0},          // odd upscale
      {{2, 2, 9, 11}, 4, 5, "half_pixel", Source::kSizeInput, 0, 0},        // downscale
      {{1, 3, 5, 7}, 9, 13, "pytorch_half_pixel", Source::kSizeArg, 0, 0},  //
      {{1, 2, 6, 4}, 1, 7, "pytorch_half_pixel", Source::kSizeArg, 0, 0},   // out_h 1
      {{1, 3, 5, 7}, 9, 13, "align_corners", Source::kSizeArg, 0, 0},       //
      {{1, 2, 8, 3}, 3, 1, "align_corners", Source::kSizeInput, 0, 0},      // out_w 1
      {{1, 3, 5, 7}, 9, 13, "asymmetric", Source::kSizeArg, 0, 0},          //
      {{2, 1, 7, 6}, 3, 4, "asymmetric", Source::kSizeArg, 0, 0},           // non-integer
      {{1, 2, 5, 6}, 5, 6, "half_pixel", Source::kSizeArg, 0, 0},           // same size
      {{1, 2, 5, 7}, 0, 0, "half_pixel", Source::kScales, 1.5f, 0.6f},      //
      {{1, 2, 4, 9}, 0, 0, "asymmetric", Source::kScales, 2.f, 0.25f},      //
      {{1, 1, 3, 3}, 0, 0, "pytorch_half_pixel", Source::kScales, 0.4f, 3.f},
  };
  uint32_t seed = 1100;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const ResizeCase& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.input_shape), seed++);
    OpTester tester("ResizeBilinear", RegisterResizeBilinear);
    tester.Input("x", c.input_shape, input);
    int64_t oh = c.out_h, ow = c.out_w;
    double scale_h = static_cast<double>(oh) / c.input_shape[2];
    double scale_w = static_cast<double>(ow) / c.input_shape[3];
    if (c.source == Source::kSizeInput) {
      tester.IntWeight("size", {2}, {static_cast<int32_t>(oh), static_cast<int32_t>(ow)});
    }
    tester.Output("y").Arg("coordinate_transformation_mode", c.mode);
    if (c.source == Source::kSizeArg) tester.Args("size", std::vector<int64_t>{oh, ow});
    if (c.source == Source::kScales) {
      tester.Arg("height_scale", c.scale_h).Arg("width_scale", c.scale_w);
      oh = static_cast<int64_t>(std::floor(c.input_shape[2] * c.scale_h));
      ow = static_cast<int64_t>(std::floor(c.input_shape[3] * c.scale_w));
      scale_h = c.scale_h;
      scale_w = c.scale_w;
    }
    const std::vector<float> output = RunResize(&tester);
    ASSERT_EQ(tester.OutputShape("y"),
              (std::vector<int64_t>{c.input_shape[0], c.input_shape[1], oh, ow}));
    ExpectNear(output, NaiveResize(c, input, oh, ow, scale_h, scale_w), 1e-5f, 1e-5f);
  }
}

// ONNX's scales (input 2) and sizes (input 1, [N, C, H, W]) computed at run
// time against the naive resize: values that change from run to run but keep
// the planned 7x4 output, with each run's own scales in the coordinates;
// values that give another size or resize N or C are refused.
TEST(ResizeBilinearTest, ComputedScalesAndSizesMatchNaiveResize) {
  const ResizeCase c = {{1, 2, 5, 7}, 0, 0, "half_pixel", Source::kScales, 0, 0};
  const std::vector<float> input = RandomFloats(NumElements(c.input_shape), 1234);
  OpTester scaled("ResizeBilinear", RegisterResizeBilinear);
  scaled.Input("x", c.input_shape, input)
      .EmptyInput()
      .Input("scales", {4}, {1, 1, 1.5f, 0.6f})
      .Output("y")
      .PlannedShape({1, 2, 7, 4});
  ASSERT_EQ(RunResize(&scaled).size(), 56u);
  // 5 x 1.5 = 7.5 and 5 x 1.45 = 7.25 floor to 7; 7 x 0.6 = 4.2, 7 x 0.62 =
  // 4.34 and 7 x 0.7 = 4.9 floor to 4.
  const std::vector<std::vector<float>> runs = {{1.5f, 0.6f}, {1.5f, 0.62f}, {1.45f, 0.7f}};
  for (const std::vector<float>& hw : runs) {
    SCOPED_TRACE(::testing::Message() << hw[0] << " x " << hw[1]);
    const MaceStatus status = scaled.RunAgain("scales", {1, 1, hw[0], hw[1]});
    ASSERT_TRUE(status.ok()) << status.information();
    ExpectNear(scaled.OutputData("y"), NaiveResize(c, input, 7, 4, hw[0], hw[1]), 1e-5f, 1e-5f);
  }
  const struct {
    std::vector<float> scales;
    const char* fragment;
  } bads[] = {
      {{1, 1, 2, 0.6f}, "the scales input gives 10x4 in this run but the output was planned as 7x4"},
      {{2, 1, 1.5f, 0.6f}, "only H and W (the last two) can be resized"},
      {{1, 1, -1.5f, 0.6f}, "must be positive and finite"},
  };
  for (const auto& bad : bads) {
    const MaceStatus status = scaled.RunAgain("scales", bad.scales);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << bad.fragment;
    EXPECT_NE(status.information().find(bad.fragment), std::string::npos)
        << status.information();
  }
  // Sizes: the scale is out / in exactly.
  OpTester sized("ResizeBilinear", RegisterResizeBilinear);
  sized.Input("x", c.input_shape, input)
      .Input("size", {4}, {1, 2, 7, 4})
      .Output("y")
      .PlannedShape({1, 2, 7, 4});
  ExpectNear(RunResize(&sized), NaiveResize(c, input, 7, 4, 7.0 / 5, 4.0 / 7), 1e-5f, 1e-5f);
  MaceStatus status = sized.RunAgain("size", {1, 2, 8, 4});
  EXPECT_NE(status.information().find("the size input gives 8x4 in this run"), std::string::npos)
      << status.information();
  status = sized.RunAgain("size", {1, 3, 7, 4});
  EXPECT_NE(status.information().find("only H and W (the last two) can be resized"),
            std::string::npos)
      << status.information();
  ASSERT_TRUE(sized.RunAgain("size", {1, 2, 7, 4}).ok());
}

TEST(ResizeBilinearTest, ScalesWeightAndBadScalesInputs) {
  // A scales weight [2, 0.5] on 2x4: 4x2, the same as the scale arguments.
  const std::vector<float> input = RandomFloats(8, 99);
  OpTester weight("ResizeBilinear", RegisterResizeBilinear);
  weight.Input("x", {1, 1, 2, 4}, input).EmptyInput().Weight("scales", {2}, {2, 0.5f}).Output("y");
  OpTester args("ResizeBilinear", RegisterResizeBilinear);
  args.Input("x", {1, 1, 2, 4}, input).Output("y").Arg("height_scale", 2.f).Arg("width_scale", 0.5f);
  const std::vector<float> expected = RunResize(&args);
  EXPECT_EQ(RunResize(&weight), expected);
  EXPECT_EQ(weight.OutputShape("y"), (std::vector<int64_t>{1, 1, 4, 2}));
  OpTester unplanned("ResizeBilinear", RegisterResizeBilinear);
  unplanned.Input("x", {1, 1, 2, 4}, input).EmptyInput().Input("scales", {2}, {2, 2}).Output("y");
  ExpectInvalid(&unplanned, "must give its planned shape (output_shape)");
  OpTester three("ResizeBilinear", RegisterResizeBilinear);
  three.Input("x", {1, 1, 2, 4}, input).EmptyInput().Input("scales", {3}, {1, 2, 2}).Output("y");
  ExpectInvalid(&three, "scales input 'scales' is float32 of shape [3] but must be float32 [2] or [4]");
  OpTester both("ResizeBilinear", RegisterResizeBilinear);
  both.Input("x", {1, 1, 2, 4}, input)
      .IntWeight("size", {2}, {4, 4})
      .Weight("scales", {2}, {2, 2})
      .Output("y");
  ExpectInvalid(&both, "gives the output size more than once");
  OpTester planned("ResizeBilinear", RegisterResizeBilinear);
  planned.Input("x", {1, 1, 2, 4}, input)
      .EmptyInput()
      .Input("scales", {2}, {2, 2})
      .Output("y")
      .PlannedShape({1, 2, 4, 8});
  ExpectInvalid(&planned, "planned output shape [1,2,4,8] is not input shape [1,1,2,4] resized");
}

TEST(ResizeBilinearTest, RejectsWrongRank) {
  OpTester tester("ResizeBilinear", RegisterResizeBilinear);
  tester.Input("x", {1, 2, 2}, std::vector<float>(4))
      .Output("y")
      .Args("size", std::vector<int64_t>{4, 4});
  ExpectInvalid(&tester, "input has shape [1,2,2] but needs rank 4");
}

TEST(ResizeBilinearTest, RejectsBadArgs) {
  struct BadArgs {
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<BadArgs> cases = {
      {[](OpTester*) {}, "needs the output size"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{2, 2})
             .Arg("height_scale", 2.f)
             .Arg("width_scale", 2.f);
       },
       "more than once"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{0, 3});
       },
       "size must be [out_h, out_w]"},
      {[](OpTester* t) { t->Args("size", std::vector<int64_t>{3}); },
       "size must be [out_h, out_w]"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{3, int64_t{1} << 40});
       },
       "size must be [out_h, out_w]"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{1 << 20, 1 << 20});
       },
       "more than 2^31 elements"},
      {[](OpTester* t) { t->Arg("height_scale", 2.f); }, "given together"},
      {[](OpTester* t) { t->Arg("height_scale", 0.f).Arg("width_scale", 2.f); },
       "positive and finite"},
      {[](OpTester* t) { t->Arg("height_scale", -1.f).Arg("width_scale", 2.f); },
       "positive and finite"},
      {[nan](OpTester* t) { t->Arg("height_scale", 2.f).Arg("width_scale", nan); },
       "positive and finite"},
      {[](OpTester* t) {
         t->Arg("height_scale", 2.f).Arg("width_scale", std::numeric_limits<float>::infinity());
       },
       "positive and finite"},
      {[](OpTester* t) { t->Arg("height_scale", 0.2f).Arg("width_scale", 1.f); }, "to nothing"},
      {[](OpTester* t) { t->Arg("height_scale", 1e30f).Arg("width_scale", 1.f); },
       "larger than 2^31"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{4, 4}).Arg("coordinate_transformation_mode", "tf");
       },
       "unknown coordinate_transformation_mode 'tf'"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{4, 4}).Arg("align_corners", 2);
       },
       "align_corners must be 0 or 1"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{4, 4})
             .Arg("align_corners", 1)
             .Arg("coordinate_transformation_mode", "half_pixel");
       },
       "conflicts"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("ResizeBilinear", RegisterResizeBilinear);
    tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4}).Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

TEST(ResizeBilinearTest, RejectsBadSizeInput) {
  struct BadInput {
    std::function<void(OpTester*)> add;
    std::string fragment;
  };
  const std::vector<BadInput> cases = {
      {[](OpTester* t) {
         t->Weight("size", {2}, {4, 4});
       },
       "is float32 but must be int32"},
      {[](OpTester* t) {
         t->IntWeight("size", {3}, {4, 4, 4});
       },
       "needs [2]"},
      {[](OpTester* t) {
         t->IntWeight("size", {2}, {4, -1});
       },
       "sizes must be positive"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("ResizeBilinear", RegisterResizeBilinear);
    tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4});
    cases[i].add(&tester);
    tester.Output("y");
    ExpectInvalid(&tester, cases[i].fragment);
  }
  OpTester both("ResizeBilinear", RegisterResizeBilinear);
  both.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .IntWeight("size", {2}, {4, 4})
      .Output("y")
      .Args("size", std::vector<int64_t>{4, 4});
  ExpectInvalid(&both, "more than once");
}

TEST(ResizeBilinearTest, RejectsIntOutput) {
  OpTester tester("ResizeBilinear", RegisterResizeBilinear);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .Output("y", DT_INT32)
      .Args("size", std::vector<int64_t>{4, 4});
  ExpectInvalid(&tester, "output 'y' is declared int32 but this kernel writes float32");
}

}  // namespace
}  // namespace ops
}  // namespace mace
