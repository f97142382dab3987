// Resize against a point-by-point reference written from ONNX's definition:
// each output element interpolates the whole input recursively, axis 0
// outermost, choosing the n neighbours by sorting the edge-padded indices by
// distance (ties to the lower index), with no tap tables.
#include "mace/ops/resize_nd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
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

struct Case {
  std::string mode = "nearest";
  std::string coordinates = "half_pixel";
  std::string nearest = "round_prefer_floor";
  float cubic_a = -0.75f;
  int exclude_outside = 0;
  int antialias = 0;
  float extrapolation = 0.f;
  std::vector<int64_t> axes;
  std::vector<float> scales;
  std::vector<int64_t> sizes;
  std::string policy = "stretch";
  std::vector<float> roi;
};

struct Axis {
  int64_t in = 1, out = 1;
  double scale = 1.0, roi0 = 0.0, roi1 = 1.0;
};

std::vector<double> Coeffs(const Case& c, double ratio, double scale) {
  if (c.mode == "nearest") {
    if (ratio == 1.0) return {0, 1};
    bool up = false;
    if (c.nearest == "round_prefer_floor") up = ratio > 0.5;
    if (c.nearest == "round_prefer_ceil") up = ratio >= 0.5;
    if (c.nearest == "ceil") up = true;
    return {up ? 0.0 : 1.0, up ? 1.0 : 0.0};
  }
  const double a = c.cubic_a;
  auto cubic = [a](double x) {
    x = std::fabs(x);
    if (x <= 1) return (a + 2) * x * x * x - (a + 3) * x * x + 1;
    if (x < 2) return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
    return 0.0;
  };
  std::vector<double> w;
  if (!c.antialias) {
    if (c.mode == "linear") return {1 - ratio, ratio};
    return {cubic(1 + ratio), cubic(ratio), cubic(1 - ratio), cubic(2 - ratio)};
  }
  const double s = std::min(scale, 1.0);
  const double reach = c.mode == "linear" ? 1.0 : 2.0;
  const int64_t start = static_cast<int64_t>(std::floor(-reach / s)) + 1;
  for (int64_t i = start; i < 2 - start; ++i) {
    const double x = s * (static_cast<double>(i) - ratio);
    w.push_back(c.mode == "linear" ? std::max(0.0, 1 - std::fabs(x)) : cubic(x));
  }
  const double sum = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& v : w) v /= sum;
  return w;
}

double Interp1D(const Case& c, const std::vector<double>& data, const Axis& ax, int64_t x) {
  const double in = static_cast<double>(ax.in), out = ax.scale * in;
  double src = 0;
  const std::string& m = c.coordinates;
  if (m == "align_corners") {
    src = out == 1 ? 0 : x * (in - 1) / (out - 1);
  } else if (m == "asymmetric") {
    src = x / ax.scale;
  } else if (m == "tf_crop_and_resize") {
    src = (out == 1 ? (ax.roi1 - ax.roi0) * (in - 1) / 2
                    : x * (ax.roi1 - ax.roi0) * (in - 1) / (out - 1)) +
          ax.roi0 * (in - 1);
    if (src < 0 || src > in - 1) return c.extrapolation;
  } else if (m == "pytorch_half_pixel") {
    src = out == 1 ? -0.5 : (x + 0.5) / ax.scale - 0.5;
  } else if (m == "half_pixel") {
    src = (x + 0.5) / ax.scale - 0.5;
  } else {  // half_pixel_symmetric
    src = in / 2 * (1 - ax.out / out) + (x + 0.5) / ax.scale - 0.5;
  }
  const double ratio = src == std::floor(src) ? 1.0 : src - std::floor(src);
  std::vector<double> w = Coeffs(c, ratio, ax.scale);
  const int64_t n = static_cast<int64_t>(w.size());
  const int64_t pad = (n + 1) / 2;
  std::vector<int64_t> idx(ax.in + 2 * pad);
  std::iota(idx.begin(), idx.end(), int64_t{0});
  const double xp = src + pad;
  std::stable_sort(idx.begin(), idx.end(), [xp](int64_t p, int64_t q) {
    const double dp = std::fabs(xp - p), dq = std::fabs(xp - q);
    return dp < dq || (dp == dq && p < q);
  });
  idx.resize(n);
  std::sort(idx.begin(), idx.end());
  double sum = 0, kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t at = idx[i] - pad;
    if (c.exclude_outside && (at < 0 || at >= ax.in)) w[i] = 0;
    kept += w[i];
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t at = std::min(std::max<int64_t>(idx[i] - pad, 0), ax.in - 1);
    sum += (c.exclude_outside ? w[i] / kept : w[i]) * data[at];
  }
  return sum;
}

double InterpND(const Case& c, const std::vector<double>& data, const std::vector<int64_t>& shape,
                const std::vector<Axis>& axes, const std::vector<int64_t>& at, size_t d) {
  if (d + 1 == shape.size()) return Interp1D(c, data, axes[d], at[d]);
  const int64_t inner = NumElements(std::vector<int64_t>(shape.begin() + d + 1, shape.end()));
  std::vector<double> line(shape[d]);
  for (int64_t i = 0; i < shape[d]; ++i) {
    std::vector<double> sub(data.begin() + i * inner, data.begin() + (i + 1) * inner);
    line[i] = InterpND(c, sub, shape, axes, at, d + 1);
  }
  return Interp1D(c, line, axes[d], at[d]);
}

// The reference output and its shape.
std::vector<float> Reference(const Case& c, const std::vector<int64_t>& shape,
                             const std::vector<float>& input, std::vector<int64_t>* out_shape) {
  const size_t rank = shape.size();
  std::vector<Axis> axes(rank);
  std::vector<int64_t> list = c.axes;
  if (list.empty()) {
    for (size_t d = 0; d < rank; ++d) list.push_back(static_cast<int64_t>(d));
  }
  for (auto& a : list) a = a < 0 ? a + static_cast<int64_t>(rank) : a;
  for (size_t d = 0; d < rank; ++d) axes[d].in = axes[d].out = shape[d];
  double keep = 0;
  for (size_t k = 0; k < list.size() && !c.sizes.empty(); ++k) {
    const double r = static_cast<double>(c.sizes[k]) / shape[list[k]];
    if (k == 0 || (c.policy == "not_larger" ? r < keep : r > keep)) keep = r;
  }
  for (size_t k = 0; k < list.size(); ++k) {
    Axis& ax = axes[list[k]];
    if (!c.scales.empty()) {
      ax.scale = c.scales[k];
      ax.out = static_cast<int64_t>(ax.scale * ax.in);
    } else if (c.policy != "stretch") {
      ax.scale = keep;
      ax.out = static_cast<int64_t>(keep * ax.in + 0.5);
    } else {
      ax.out = c.sizes[k];
      ax.scale = static_cast<double>(ax.out) / ax.in;
    }
    if (!c.roi.empty()) {
      ax.roi0 = c.roi[k];
      ax.roi1 = c.roi[list.size() + k];
    }
  }
  out_shape->clear();
  for (const Axis& ax : axes) out_shape->push_back(ax.out);
  std::vector<double> data(input.begin(), input.end());
  std::vector<float> out(NumElements(*out_shape));
  std::vector<int64_t> at(rank, 0);
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t rest = static_cast<int64_t>(i);
    for (size_t d = rank; d-- > 0;) {
      at[d] = rest % axes[d].out;
      rest /= axes[d].out;
    }
    out[i] = static_cast<float>(InterpND(c, data, shape, axes, at, 0));
  }
  return out;
}

MaceStatus RunResize(const Case& c, const std::vector<int64_t>& shape,
                     const std::vector<float>& input, std::vector<float>* output,
                     std::vector<int64_t>* out_shape) {
  OpTester t("Resize", RegisterResizeNd);
  t.Input("x", shape, input).Output("y").Arg("mode", c.mode);
  t.Arg("coordinate_transformation_mode", c.coordinates).Arg("nearest_mode", c.nearest);
  t.Arg("cubic_coeff_a", c.cubic_a).Arg("exclude_outside", c.exclude_outside);
  t.Arg("antialias", c.antialias).Arg("extrapolation_value", c.extrapolation);
  t.Arg("keep_aspect_ratio_policy", c.policy);
  if (!c.axes.empty()) t.Args("axes", c.axes);
  if (!c.scales.empty()) t.Args("scales", c.scales);
  if (!c.sizes.empty()) t.Args("sizes", c.sizes);
  if (!c.roi.empty()) t.Args("roi", c.roi);
  MACE_RETURN_IF_ERROR(t.Run());
  *output = t.OutputData("y");
  *out_shape = t.OutputShape("y");
  return MaceStatus();
}

void Check(const Case& c, const std::vector<int64_t>& shape, uint32_t seed) {
  const std::vector<float> input = RandomFloats(NumElements(shape), seed, -4.f, 4.f);
  std::vector<int64_t> want_shape, got_shape;
  const std::vector<float> want = Reference(c, shape, input, &want_shape);
  std::vector<float> got;
  const MaceStatus status = RunResize(c, shape, input, &got, &got_shape);
  ASSERT_TRUE(status.ok()) << status.information();
  ASSERT_EQ(got_shape, want_shape);
  ExpectNear(got, want, 1e-5f, 1e-5f);
}

TEST(ResizeNdTest, HandComputedLinearAndCubic) {
  // half_pixel x2 of [0, 10]: sources -0.25, 0.25, 0.75, 1.25, edges clamp.
  Case linear;
  linear.mode = "linear";
  linear.scales = {2.f};
  std::vector<float> out;
  std::vector<int64_t> shape;
  ASSERT_TRUE(RunResize(linear, {2}, {0.f, 10.f}, &out, &shape).ok());
  EXPECT_EQ(shape, std::vector<int64_t>({4}));
  ExpectNear(out, {0.f, 2.5f, 7.5f, 10.f});
  // Cubic with A = -0.75 at fraction 0.5 weighs -0.09375, 0.59375, 0.59375,
  // -0.09375: asymmetric x2 of [0, 0, 8, 0] gives 8 * 0.59375 at source 1.5.
  Case cubic;
  cubic.mode = "cubic";
  cubic.coordinates = "asymmetric";
  cubic.scales = {2.f};
  ASSERT_TRUE(RunResize(cubic, {4}, {0.f, 0.f, 8.f, 0.f}, &out, &shape).ok());
  ASSERT_EQ(out.size(), 8u);
  EXPECT_NEAR(out[3], 8 * 0.59375f, 1e-6f);
  EXPECT_NEAR(out[4], 8.f, 1e-6f);
  EXPECT_NEAR(out[5], 8 * 0.59375f, 1e-6f);
  EXPECT_NEAR(out[1], -8 * 0.09375f, 1e-6f);
}

TEST(ResizeNdTest, TfCropAndResizeExtrapolates) {
  // roi [0.5, 1.5] of a length-3 axis maps outputs 0, 1, 2 to 1, 2, 3: the
  // last lies outside and takes the extrapolation value.
  Case c;
  c.mode = "linear";
  c.coordinates = "tf_crop_and_resize";
  c.sizes = {3};
  c.roi = {0.5f, 1.5f};
  c.extrapolation = 7.f;
  std::vector<float> out;
  std::vector<int64_t> shape;
  ASSERT_TRUE(RunResize(c, {3}, {1.f, 2.f, 4.f}, &out, &shape).ok());
  ExpectNear(out, {2.f, 4.f, 7.f});
}

TEST(ResizeNdTest, EveryModeAgainstReference) {
  const std::vector<std::string> coordinates = {"half_pixel",  "half_pixel_symmetric",
                                                "pytorch_half_pixel", "align_corners",
                                                "asymmetric"};
  uint32_t seed = 1;
  for (const std::string mode : {"nearest", "linear", "cubic"}) {
    for (const std::string& coord : coordinates) {
      for (const std::vector<float>& scales :
           {std::vector<float>{1.f, 1.f, 2.5f, 0.6f}, std::vector<float>{1.f, 1.f, 0.34f, 3.f}}) {
        Case c;
        c.mode = mode;
        c.coordinates = coord;
        c.scales = scales;
        SCOPED_TRACE(mode + " " + coord + " " + std::to_string(scales[2]));
        Check(c, {1, 2, 4, 5}, seed++);
      }
      Case by_size;
      by_size.mode = mode;
      by_size.coordinates = coord;
      by_size.axes = {-1, 1};
      by_size.sizes = {1, 3};  // down to one column: the out == 1 branches
      SCOPED_TRACE(mode + " " + coord + " sizes");
      Check(by_size, {2, 5, 7}, seed++);
    }
  }
}

TEST(ResizeNdTest, NearestModesCubicOptionsAndAntialias) {
  uint32_t seed = 100;
  for (const std::string nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
    Case c;
    c.nearest = nearest;
    c.coordinates = "asymmetric";
    c.scales = {1.f, 2.f, 0.5f};  // ties at x.5 on the upsampled axis
    SCOPED_TRACE(nearest);
    Check(c, {2, 3, 6}, seed++);
  }
  for (const int exclude : {0, 1}) {
    Case c;
    c.mode = "cubic";
    c.cubic_a = -0.5f;
    c.exclude_outside = exclude;
    c.scales = {0.8f, 1.7f};
    Check(c, {5, 6}, seed++);
  }
  for (const std::string mode : {"linear", "cubic"}) {
    for (const std::vector<float>& scales :
         {std::vector<float>{0.6f, 0.25f}, std::vector<float>{1.5f, 0.8f}}) {
      Case c;
      c.mode = mode;
      c.antialias = 1;
      c.scales = scales;
      SCOPED_TRACE(mode + " antialias");
      Check(c, {7, 9}, seed++);
      c.exclude_outside = 1;
      Check(c, {7, 9}, seed++);
    }
  }
}

TEST(ResizeNdTest, AxesAspectPolicyAndCrop) {
  uint32_t seed = 200;
  for (const std::string policy : {"not_larger", "not_smaller"}) {
    Case c;
    c.policy = policy;
    c.axes = {3, 2};
    c.sizes = {7, 8};
    SCOPED_TRACE(policy);
    Check(c, {1, 1, 4, 5}, seed++);
  }
  for (const std::string mode : {"nearest", "linear", "cubic"}) {
    Case c;
    c.mode = mode;
    c.coordinates = "tf_crop_and_resize";
    c.axes = {0, 2};
    c.sizes = {3, 4};
    c.roi = {0.1f, -0.3f, 0.9f, 1.2f};
    c.extrapolation = 10.f;
    SCOPED_TRACE(mode + " crop");
    Check(c, {4, 2, 5}, seed++);
    c.sizes = {1, 1};
    Check(c, {4, 2, 5}, seed++);
  }
  // Rank 1, length 1, and a rank-5 tensor with one axis resized.
  Case one;
  one.mode = "cubic";
  one.scales = {3.f};
  Check(one, {1}, seed++);
  Case five;
  five.mode = "linear";
  five.axes = {4};
  five.scales = {1.5f};
  Check(five, {1, 2, 1, 2, 3}, seed++);
}

TEST(ResizeNdTest, InputsComputedAtRunTime) {
  // roi and scales as run-time inputs: the planned shape [1, 4] is checked
  // on each run, and each run's values give new taps.
  const std::vector<float> x = {1.f, 2.f, 4.f, 8.f};
  OpTester t("Resize", RegisterResizeNd);
  t.Input("x", {1, 4}, x).Input("roi", {4}, {0.f, 0.f, 1.f, 1.f}).Input("scales", {2}, {1.f, 1.f});
  t.Output("y").PlannedShape({1, 4}).Arg("mode", "linear");
  t.Arg("coordinate_transformation_mode", "tf_crop_and_resize");
  ASSERT_TRUE(t.Run().ok());
  ExpectNear(t.OutputData("y"), x);
  // roi [0.5, 1.5] on the last axis shifts by half the axis (1.5 inputs).
  ASSERT_TRUE(t.RunAgain("roi", {0.f, 0.5f, 1.f, 1.5f}).ok());
  Case c;
  c.mode = "linear";
  c.coordinates = "tf_crop_and_resize";
  c.scales = {1.f, 1.f};
  c.roi = {0.f, 0.5f, 1.f, 1.5f};
  std::vector<int64_t> shape;
  ExpectNear(t.OutputData("y"), Reference(c, {1, 4}, x, &shape));
  EXPECT_FALSE(t.RunAgain("scales", {1.f, 2.f}).ok());  // [1, 8] is not the planned [1, 4]

  // Sizes as a run-time float input holding whole numbers.
  OpTester s("Resize", RegisterResizeNd);
  s.Input("x", {1, 4}, x).EmptyInput().EmptyInput().Input("sizes", {2}, {1.f, 3.f});
  s.Output("y").PlannedShape({1, 3}).Arg("mode", "cubic");
  ASSERT_TRUE(s.Run().ok());
  Case cubic;
  cubic.mode = "cubic";
  cubic.sizes = {1, 3};
  ExpectNear(s.OutputData("y"), Reference(cubic, {1, 4}, x, &shape));
  EXPECT_FALSE(s.RunAgain("sizes", {1.f, 2.5f}).ok());  // not whole

  // An input and the argument of the same name together are refused.
  OpTester both("Resize", RegisterResizeNd);
  both.Input("x", {1, 4}, x).EmptyInput().Input("scales", {2}, {1.f, 1.f});
  both.Output("y").PlannedShape({1, 4}).Args("scales", std::vector<float>{1.f, 1.f});
  EXPECT_FALSE(both.Run().ok());
}

TEST(ResizeNdTest, RejectsBadArguments) {
  std::vector<float> out;
  std::vector<int64_t> shape;
  Case none;  // neither scales nor sizes
  EXPECT_FALSE(RunResize(none, {2, 2}, {1, 2, 3, 4}, &out, &shape).ok());
  Case both;
  both.scales = {2.f, 2.f};
  both.sizes = {4, 4};
  EXPECT_FALSE(RunResize(both, {2, 2}, {1, 2, 3, 4}, &out, &shape).ok());
  Case count;
  count.scales = {2.f};
  EXPECT_FALSE(RunResize(count, {2, 2}, {1, 2, 3, 4}, &out, &shape).ok());
  Case tiny;
  tiny.scales = {0.1f, 1.f};
  EXPECT_FALSE(RunResize(tiny, {2, 2}, {1, 2, 3, 4}, &out, &shape).ok());
  Case twice;
  twice.axes = {1, -1};
  twice.scales = {2.f, 2.f};
  EXPECT_FALSE(RunResize(twice, {2, 2}, {1, 2, 3, 4}, &out, &shape).ok());
  Case no_roi;
  no_roi.coordinates = "tf_crop_and_resize";
  no_roi.sizes = {3, 3};
  EXPECT_FALSE(RunResize(no_roi, {2, 2}, {1, 2, 3, 4}, &out, &shape).ok());
  Case nearest_aa;
  nearest_aa.antialias = 1;
  nearest_aa.scales = {0.5f, 0.5f};
  EXPECT_FALSE(RunResize(nearest_aa, {2, 2}, {1, 2, 3, 4}, &out, &shape).ok());
  Case bad_mode;
  bad_mode.mode = "bicubic";
  bad_mode.scales = {2.f, 2.f};
  EXPECT_FALSE(RunResize(bad_mode, {2, 2}, {1, 2, 3, 4}, &out, &shape).ok());
  Case nan_scale;
  nan_scale.scales = {std::nanf(""), 1.f};
  EXPECT_FALSE(RunResize(nan_scale, {2, 2}, {1, 2, 3, 4}, &out, &shape).ok());
}

}  // namespace
}  // namespace ops
}  // namespace mace
