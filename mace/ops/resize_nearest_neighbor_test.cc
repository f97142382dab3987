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

using testing::NumElements;
using testing::OpTester;
using testing::RandomFloats;

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("ResizeNearestNeighbor 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> RunResize(OpTester* tester) {
  const MaceStatus run_status = tester->Run();
  EXPECT_TRUE(run_status.ok()) << run_status.information();
  if (!run_status.ok()) return {};
  return tester->OutputData("y");
}

// A 1 x `in_w` row 1..in_w resized to 1 x `out_w` with the given modes.
std::vector<float> ResizeRow(int64_t in_w, int64_t out_w, const std::string& mode,
                             const std::string& nearest_mode) {
  std::vector<float> row(in_w);
  for (int64_t i = 0; i < in_w; ++i) row[i] = static_cast<float>(i + 1);
  OpTester tester("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  tester.Input("x", {1, 1, 1, in_w}, row).Output("y").Args("size", std::vector<int64_t>{1, out_w});
  if (!mode.empty()) tester.Arg("coordinate_transformation_mode", mode);
  if (!nearest_mode.empty()) tester.Arg("nearest_mode", nearest_mode);
  return RunResize(&tester);
}

TEST(ResizeNearestNeighborTest, DefaultDoublesPixels) {
  // Defaults are asymmetric and round_prefer_floor: source x / 2 = 0, 0.5, 1,
  // 1.5 rounds (halves down) to 0, 0, 1, 1, so every pixel becomes 2x2.
  OpTester tester("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .Output("y")
      .Args("size", std::vector<int64_t>{4, 4});
  const std::vector<float> output = RunResize(&tester);
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_EQ(output, (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(ResizeNearestNeighborTest, RoundingModes) {
  // 5 -> 3, asymmetric: source x * 5 / 3 = 0, 1.67, 3.33. Rounded: 0, 2, 3;
  // floor (TensorFlow's legacy resize): 0, 1, 3; ceil: 0, 2, 4.
  EXPECT_EQ(ResizeRow(5, 3, "", ""), (std::vector<float>{1, 3, 4}));
  EXPECT_EQ(ResizeRow(5, 3, "", "floor"), (std::vector<float>{1, 2, 4}));
  EXPECT_EQ(ResizeRow(5, 3, "", "ceil"), (std::vector<float>{1, 3, 5}));
  // 4 -> 2, half_pixel: source (x + 0.5) * 2 - 0.5 = 0.5, 2.5, exact halves.
  // round_prefer_floor takes 0 and 2, round_prefer_ceil 1 and 3.
  EXPECT_EQ(ResizeRow(4, 2, "half_pixel", ""), (std::vector<float>{1, 3}));
  EXPECT_EQ(ResizeRow(4, 2, "half_pixel", "round_prefer_ceil"), (std::vector<float>{2, 4}));
  // 3 -> 5, align_corners: source x * 2 / 4 = 0, 0.5, 1, 1.5, 2. Halves go down
  // with round_prefer_floor and up with round_prefer_ceil (TensorFlow's
  // align_corners rounding).
  EXPECT_EQ(ResizeRow(3, 5, "align_corners", ""), (std::vector<float>{1, 1, 2, 2, 3}));
  EXPECT_EQ(ResizeRow(3, 5, "align_corners", "round_prefer_ceil"),
            (std::vector<float>{1, 2, 2, 3, 3}));
  // 2 -> 3, half_pixel: source (x + 0.5) * 2 / 3 - 0.5 = -1/6, 0.5, 7/6. The
  // middle one is an exact half although 2/3 is not a binary fraction.
  EXPECT_EQ(ResizeRow(2, 3, "half_pixel", ""), (std::vector<float>{1, 1, 2}));
  EXPECT_EQ(ResizeRow(2, 3, "half_pixel", "round_prefer_ceil"), (std::vector<float>{1, 2, 2}));
  // 3 -> 1: pytorch_half_pixel maps a length-1 output to 0, half_pixel to
  // (0.5 * 3) - 0.5 = 1.
  EXPECT_EQ(ResizeRow(3, 1, "pytorch_half_pixel", ""), (std::vector<float>{1}));
  EXPECT_EQ(ResizeRow(3, 1, "half_pixel", ""), (std::vector<float>{2}));
}

TEST(ResizeNearestNeighborTest, ScalesAndSizeInput) {
  // height_scale 1, width_scale 1.5 on width 2: floor(3) = 3 pixels, source
  // x / 1.5 = 0, 0.67, 1.33 -> 0, 1, 1.
  OpTester scaled("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  scaled.Input("x", {1, 1, 1, 2}, {7, 8})
      .Output("y")
      .Arg("height_scale", 1.f)
      .Arg("width_scale", 1.5f);
  EXPECT_EQ(RunResize(&scaled), (std::vector<float>{7, 8, 8}));
  // Size [2, 1] from an int32 weight: rows 0 and 1 of column 0.
  OpTester sized("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  sized.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4}).IntWeight("size", {2}, {2, 1}).Output("y");
  EXPECT_EQ(RunResize(&sized), (std::vector<float>{1, 3}));
  // The legacy align_corners flag: 2 -> 3 maps to 0, 0.5, 1 -> 0, 0, 1.
  OpTester legacy("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  legacy.Input("x", {1, 1, 1, 2}, {5, 6})
      .Output("y")
      .Args("size", std::vector<int64_t>{1, 3})
      .Arg("align_corners", 1);
  EXPECT_EQ(RunResize(&legacy), (std::vector<float>{5, 5, 6}));
}

// Exact rational source coordinates: num / den with den > 0, from the ONNX
// formulas with scale = out / in.
void NaiveSource(const std::string& mode, int64_t x, int64_t in, int64_t out, int64_t* num,
                 int64_t* den) {
  if (mode == "align_corners" || (mode == "pytorch_half_pixel" && out == 1)) {
    *num = out > 1 ? x * (in - 1) : 0;
    *den = out > 1 ? out - 1 : 1;
  } else if (mode == "asymmetric") {
    *num = x * in;
    *den = out;
  } else {  // half_pixel, pytorch_half_pixel: (x + 1/2) * in / out - 1/2
    *num = (2 * x + 1) * in - out;
    *den = 2 * out;
  }
}

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

int64_t NaiveIndex(const std::string& mode, const std::string& nearest, int64_t x, int64_t in,
                   int64_t out) {
  int64_t num, den;
  NaiveSource(mode, x, in, out, &num, &den);
  int64_t index;
  if (nearest == "floor") {
    index = FloorDiv(num, den);
  } else if (nearest == "ceil") {
    index = CeilDiv(num, den);
  } else if (nearest == "round_prefer_ceil") {
    index = FloorDiv(2 * num + den, 2 * den);  // floor(s + 1/2)
  } else {
    index = CeilDiv(2 * num - den, 2 * den);  // ceil(s - 1/2)
  }
  return std::clamp<int64_t>(index, 0, in - 1);
}

struct NearestCase {
  std::vector<int64_t> input_shape;  // NCHW
  int64_t out_h, out_w;
  std::string mode, nearest;
};

TEST(ResizeNearestNeighborTest, MatchesNaiveResize) {
  const std::vector<NearestCase> cases = {
      {{1, 1, 1, 1}, 3, 2, "asymmetric", "round_prefer_floor"},          // 1x1 input
      {{1, 3, 5, 7}, 9, 13, "asymmetric", "floor"},                      // odd upscale
      {{2, 2, 9, 11}, 4, 5, "asymmetric", "round_prefer_floor"},         // odd downscale
      {{1, 2, 6, 10}, 4, 4, "half_pixel", "round_prefer_floor"},         // halves
      {{1, 2, 6, 10}, 4, 4, "half_pixel", "round_prefer_ceil"},          //
      {{1, 2, 5, 7}, 11, 3, "pytorch_half_pixel", "ceil"},               //
      {{1, 2, 5, 7}, 1, 3, "pytorch_half_pixel", "round_prefer_floor"},  // out_h 1
      {{1, 3, 5, 9}, 9, 5, "align_corners", "round_prefer_ceil"},        //
      {{1, 3, 5, 9}, 9, 5, "align_corners", "round_prefer_floor"},       //
      {{2, 1, 7, 3}, 7, 3, "half_pixel", "round_prefer_floor"},          // same size
      {{1, 1, 3, 4}, 12, 10, "asymmetric", "ceil"},                      //
  };
  uint32_t seed = 1200;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const NearestCase& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.input_shape), seed++);
    OpTester tester("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
    tester.Input("x", c.input_shape, input)
        .Output("y")
        .Args("size", std::vector<int64_t>{c.out_h, c.out_w})
        .Arg("coordinate_transformation_mode", c.mode)
        .Arg("nearest_mode", c.nearest);
    const std::vector<float> output = RunResize(&tester);
    ASSERT_EQ(tester.OutputShape("y"),
              (std::vector<int64_t>{c.input_shape[0], c.input_shape[1], c.out_h, c.out_w}));
    const int64_t ih = c.input_shape[2], iw = c.input_shape[3];
    std::vector<float> expected;
    for (int64_t p = 0; p < c.input_shape[0] * c.input_shape[1]; ++p) {
      for (int64_t y = 0; y < c.out_h; ++y) {
        for (int64_t x = 0; x < c.out_w; ++x) {
          const int64_t sy = NaiveIndex(c.mode, c.nearest, y, ih, c.out_h);
          const int64_t sx = NaiveIndex(c.mode, c.nearest, x, iw, c.out_w);
          expected.push_back(input[(p * ih + sy) * iw + sx]);
        }
      }
    }
    EXPECT_EQ(output, expected);
  }
}

// Scales and sizes computed at run time against the same op with the scale
// and size arguments (checked against the naive resize above), on runs whose
// values change but keep the planned 3x5 output.
TEST(ResizeNearestNeighborTest, ComputedScalesAndSizesMatchArguments) {
  const std::vector<int64_t> shape = {2, 1, 4, 6};
  const std::vector<float> input = RandomFloats(NumElements(shape), 4321);
  OpTester scaled("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  scaled.Input("x", shape, input)
      .EmptyInput()
      .Input("scales", {4}, {1, 1, 0.75f, 0.9f})
      .Output("y")
      .Arg("coordinate_transformation_mode", "half_pixel")
      .PlannedShape({2, 1, 3, 5});
  ASSERT_EQ(RunResize(&scaled).size(), 30u);
  // 4 x 0.75 = 3, 4 x 0.8 = 3.2; 6 x 0.9 = 5.4, 6 x 0.85 = 5.1.
  for (const std::vector<float>& hw : std::vector<std::vector<float>>{
           {0.75f, 0.9f}, {0.8f, 0.85f}, {0.75f, 0.85f}}) {
    SCOPED_TRACE(::testing::Message() << hw[0] << " x " << hw[1]);
    OpTester args("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
    args.Input("x", shape, input)
        .Output("y")
        .Arg("coordinate_transformation_mode", "half_pixel")
        .Arg("height_scale", hw[0])
        .Arg("width_scale", hw[1]);
    const std::vector<float> expected = RunResize(&args);
    const MaceStatus status = scaled.RunAgain("scales", {1, 1, hw[0], hw[1]});
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(scaled.OutputData("y"), expected);
  }
  const MaceStatus status = scaled.RunAgain("scales", {1, 1, 1, 0.9f});
  EXPECT_NE(status.information().find("gives 4x5 in this run but the output was planned as 3x5"),
            std::string::npos)
      << status.information();
  // Sizes as [out_h, out_w], float32 as integer model inputs are fed.
  OpTester sized("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  sized.Input("x", shape, input).Input("size", {2}, {3, 5}).Output("y").PlannedShape({2, 1, 3, 5});
  OpTester args("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  args.Input("x", shape, input).Output("y").Args("size", std::vector<int64_t>{3, 5});
  EXPECT_EQ(RunResize(&sized), RunResize(&args));
  const MaceStatus fraction = sized.RunAgain("size", {3, 5.5f});
  EXPECT_NE(fraction.information().find("which is not a whole number"), std::string::npos)
      << fraction.information();
}

TEST(ResizeNearestNeighborTest, RejectsBadArgs) {
  struct BadArgs {
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const std::vector<BadArgs> cases = {
      {[](OpTester*) {}, "needs the output size"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{4, 4}).Arg("nearest_mode", "up");
       },
       "unknown nearest_mode 'up'"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{4, 4}).Arg("coordinate_transformation_mode", "x");
       },
       "unknown coordinate_transformation_mode"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{-4, 4});
       },
       "size must be [out_h, out_w]"},
      {[](OpTester* t) { t->Arg("height_scale", 1.f).Arg("width_scale", -2.f); },
       "positive and finite"},
      {[](OpTester* t) { t->Arg("height_scale", 1.f).Arg("width_scale", 0.1f); }, "to nothing"},
      {[](OpTester* t) {
         t->Args("size", std::vector<int64_t>{1 << 16, 1 << 16});
       },
       "more than 2^31 elements"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
    tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4}).Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

TEST(ResizeNearestNeighborTest, RejectsBadInputs) {
  OpTester rank("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  rank.Input("x", {4}, {1, 2, 3, 4}).Output("y").Args("size", std::vector<int64_t>{2, 2});
  ExpectInvalid(&rank, "needs rank 4");
  OpTester size_shape("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  size_shape.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4}).IntWeight("size", {1, 2}, {2, 2}).Output("y");
  ExpectInvalid(&size_shape, "needs [2]");
  OpTester missing("ResizeNearestNeighbor", RegisterResizeNearestNeighbor);
  missing.EmptyInput().Output("y").Args("size", std::vector<int64_t>{2, 2});
  ExpectInvalid(&missing, "input is missing");
}

}  // namespace
}  // namespace ops
}  // namespace mace
