#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::OpTester;
using testing::RandomFloats;

// A second, independent oracle in double precision: one output pixel of
// ONNX GridSample, written from the operator's definition.
double Reflected(double x, double low, double high) {
  const double range = high - low;
  if (range <= 0) return low;
  while (x < low || x > high) x = x < low ? 2 * low - x : 2 * high - x;
  return x;
}

struct Oracle {
  const std::vector<float>& input;
  int64_t h, w;
  std::string mode, padding;
  bool align;

  double Pixel(int64_t plane, int64_t row, int64_t column) const {
    const auto fix = [&](int64_t i, int64_t length) -> int64_t {
      if (i >= 0 && i < length) return i;
      if (padding == "zeros") return -1;
      if (padding == "border") return i < 0 ? 0 : length - 1;
      const double low = align ? 0.0 : -0.5, high = align ? length - 1.0 : length - 0.5;
      return static_cast<int64_t>(Reflected(static_cast<double>(i), low, high));
    };
    const int64_t r = fix(row, h), c = fix(column, w);
    if (r < 0 || c < 0) return 0.0;
    return input[(plane * h + r) * w + c];
  }

  static double Cubic(double t, int k) {
    const double a = -0.75;
    const double x = std::fabs(t - (k - 1));  // distance to tap k of x0 - 1 .. x0 + 2
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
  }

  double Sample(int64_t plane, double gx, double gy) const {
    auto unnormalize = [&](double n, int64_t length) {
      return align ? (n + 1) / 2 * (length - 1) : ((n + 1) * length - 1) / 2;
    };
    double x = unnormalize(gx, w), y = unnormalize(gy, h);
    if (mode == "nearest") {
      x = std::nearbyint(x);
      y = std::nearbyint(y);
    }
    auto place = [&](double v, int64_t length) {
      const double low = align ? 0.0 : -0.5, high = align ? length - 1.0 : length - 0.5;
      if (v >= low && v <= high) return v;
      if (padding == "border") return std::min(std::max(v, 0.0), length - 1.0);
      if (padding == "reflection") return Reflected(v, low, high);
      return v;
    };
    if (mode != "bicubic") {  // bicubic places only its taps
      x = place(x, w);
      y = place(y, h);
    }
    if (mode == "nearest") {
      return Pixel(plane, static_cast<int64_t>(y), static_cast<int64_t>(x));
    }
    const int64_t x0 = static_cast<int64_t>(std::floor(x)), y0 = static_cast<int64_t>(std::floor(y));
    const double tx = x - x0, ty = y - y0;
    double sum = 0;
    if (mode == "bilinear") {
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
          sum += (i ? ty : 1 - ty) * (j ? tx : 1 - tx) * Pixel(plane, y0 + i, x0 + j);
        }
      }
      return sum;
    }
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        sum += Cubic(ty, i) * Cubic(tx, j) * Pixel(plane, y0 - 1 + i, x0 - 1 + j);
      }
    }
    return sum;
  }
};

MaceStatus RunGridSample(const std::vector<int64_t>& x_shape, const std::vector<float>& x,
                         const std::vector<int64_t>& grid_shape, const std::vector<float>& grid,
                         const std::string& mode, const std::string& padding, int align,
                         std::vector<float>* out, std::vector<int64_t>* shape = nullptr) {
  OpTester tester("GridSample", RegisterGridSample);
  tester.Input("x", x_shape, x)
      .Input("grid", grid_shape, grid)
      .Output("y")
      .Arg("mode", mode)
      .Arg("padding_mode", padding)
      .Arg("align_corners", align);
  const MaceStatus status = tester.Run();
  if (status.ok()) {
    *out = tester.OutputData("y");
    if (shape != nullptr) *shape = tester.OutputShape("y");
  }
  return status;
}

TEST(GridSampleTest, IdentityGridReadsEveryPixel) {
  // With align_corners, grid points -1, 0, 1 are the centers of a 3-wide row.
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};  // [1, 1, 2, 3]
  const std::vector<float> grid = {-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1};
  for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
    SCOPED_TRACE(mode);
    std::vector<float> out;
    std::vector<int64_t> shape;
    const MaceStatus status =
        RunGridSample({1, 1, 2, 3}, x, {1, 2, 3, 2}, grid, mode, "zeros", 1, &out, &shape);
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(shape, (std::vector<int64_t>{1, 1, 2, 3}));
    for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(out[i], x[i], 1e-5) << i;
  }
}

TEST(GridSampleTest, HandComputedBilinearAndPadding) {
  // One row [10, 20], no align_corners: x = ((g + 1) * 2 - 1) / 2.
  // g = 0 -> x = 0.5: halfway, 15. g = -1 -> x = -0.5: zeros gives
  // 0.5 * 0 + 0.5 * 10 = 5; border clamps to pixel 0 (10); reflection
  // keeps -0.5 (the edge) and reflects tap -1 to 0 (10).
  const std::vector<float> x = {10, 20};
  const std::vector<float> grid = {0, 0, -1, 0};
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"zeros", {15, 5}}, {"border", {15, 10}}, {"reflection", {15, 10}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.first);
    std::vector<float> out;
    ASSERT_TRUE(RunGridSample({1, 1, 1, 2}, x, {1, 1, 2, 2}, grid, "bilinear", c.first, 0, &out)
                    .ok());
    EXPECT_NEAR(out[0], c.second[0], 1e-5);
    EXPECT_NEAR(out[1], c.second[1], 1e-5);
  }
}

TEST(GridSampleTest, MatchesTheOracleOnRandomGrids) {
  // Odd sizes, a 1-pixel side, several channels and batches; grid values
  // well outside [-1, 1] so every padding mode reflects or clamps.
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1, 1, 1, 3, 2}, {2, 3, 5, 7, 4, 6}, {1, 2, 1, 9, 2, 5}, {1, 1, 8, 1, 3, 3}};
  uint32_t seed = 7767517;
  for (const auto& s : shapes) {
    const int64_t n = s[0], c = s[1], h = s[2], w = s[3], oh = s[4], ow = s[5];
    const std::vector<float> x = RandomFloats(n * c * h * w, seed++, -2.f, 2.f);
    const std::vector<float> grid = RandomFloats(n * oh * ow * 2, seed++, -3.f, 3.f);
    for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
      for (const char* padding : {"zeros", "border", "reflection"}) {
        for (int align = 0; align < 2; ++align) {
          SCOPED_TRACE(std::string(mode) + " " + padding + " align " + std::to_string(align) +
                       " seed " + std::to_string(seed));
          std::vector<float> out;
          const MaceStatus status = RunGridSample({n, c, h, w}, x, {n, oh, ow, 2}, grid, mode,
                                                  padding, align, &out);
          ASSERT_TRUE(status.ok()) << status.information();
          const Oracle oracle{x, h, w, mode, padding, align == 1};
          for (int64_t b = 0; b < n; ++b) {
            for (int64_t ch = 0; ch < c; ++ch) {
              for (int64_t p = 0; p < oh * ow; ++p) {
                const float* g = &grid[(b * oh * ow + p) * 2];
                const double want = oracle.Sample(b * c + ch, g[0], g[1]);
                EXPECT_NEAR(out[(b * c + ch) * oh * ow + p], want, 1e-4)
                    << "pixel " << p << " channel " << ch << " batch " << b;
              }
            }
          }
        }
      }
    }
  }
}

TEST(GridSampleTest, NonFiniteAndFarCoordinatesAreSafe) {
  const std::vector<float> x = {1, 2, 3, 4};
  const float inf = INFINITY;
  const std::vector<float> grid = {NAN, 0, inf, 0, -1e30f, 1e30f, 1e30f, 0};
  for (const char* padding : {"zeros", "border", "reflection"}) {
    SCOPED_TRACE(padding);
    std::vector<float> out;
    ASSERT_TRUE(
        RunGridSample({1, 1, 2, 2}, x, {1, 1, 4, 2}, grid, "bicubic", padding, 0, &out).ok());
    EXPECT_EQ(out[0], 0.0f);
    EXPECT_EQ(out[1], 0.0f);
    for (float v : out) EXPECT_TRUE(std::isfinite(v));
  }
}

TEST(GridSampleTest, VolumetricIdentityAndTrilinearMidpoints) {
  // x [1, 1, 2, 2, 3]: with align_corners the grid points -1, 0, 1 are the
  // centers of a 3-wide row and -1, 1 those of the 2-long height and depth.
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i * i % 7) - 2.f;
  std::vector<float> grid;
  for (float z : {-1.f, 1.f}) {
    for (float y : {-1.f, 1.f}) {
      for (float w : {-1.f, 0.f, 1.f}) grid.insert(grid.end(), {w, y, z});
    }
  }
  for (const char* mode : {"linear", "nearest"}) {
    SCOPED_TRACE(mode);
    std::vector<float> out;
    std::vector<int64_t> shape;
    const MaceStatus status =
        RunGridSample({1, 1, 2, 2, 3}, x, {1, 2, 2, 3, 3}, grid, mode, "zeros", 1, &out, &shape);
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(shape, (std::vector<int64_t>{1, 1, 2, 2, 3}));
    for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(out[i], x[i], 1e-5) << i;
  }
  // The center of the first 2x2x2 cube (x between columns 0 and 1) is the
  // mean of its eight corners.
  const std::vector<float> points = {-0.5f, 0.f, 0.f, -0.5f, 0.f, 1.5f};
  std::vector<float> out;
  ASSERT_TRUE(
      RunGridSample({1, 1, 2, 2, 3}, x, {1, 1, 1, 2, 3}, points, "linear", "zeros", 1, &out)
          .ok());
  const float mean = (x[0] + x[1] + x[3] + x[4] + x[6] + x[7] + x[9] + x[10]) / 8.f;
  EXPECT_NEAR(out[0], mean, 1e-5);
  // Without align_corners z = 1.5 is depth 2, past the last one (1): with
  // zeros padding both of its depth taps read 0.
  ASSERT_TRUE(
      RunGridSample({1, 1, 2, 2, 3}, x, {1, 1, 1, 2, 3}, points, "linear", "zeros", 0, &out)
          .ok());
  EXPECT_EQ(out[1], 0.f);
}

TEST(GridSampleTest, RefusesBadArguments) {
  std::vector<float> out;
  const std::vector<float> x(4, 1.f), grid(2, 0.f);
  auto expect = [&](MaceStatus status, const std::string& fragment) {
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
    EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
  };
  expect(RunGridSample({1, 1, 2, 2}, x, {1, 1, 1, 2}, grid, "area", "zeros", 0, &out), "mode");
  expect(RunGridSample({1, 1, 2, 2}, x, {1, 1, 1, 2}, grid, "nearest", "wrap", 0, &out),
         "padding_mode");
  expect(RunGridSample({1, 1, 2, 2}, x, {1, 1, 1, 2}, grid, "nearest", "zeros", 2, &out),
         "align_corners");
  expect(RunGridSample({1, 1, 2, 2}, x, {1, 1, 2, 1}, grid, "nearest", "zeros", 0, &out),
         "[N, H_out, W_out, 2]");
  expect(RunGridSample({1, 1, 2, 2}, x, {2, 1, 1, 2}, std::vector<float>(4, 0.f), "nearest",
                       "zeros", 0, &out),
         "batch");
  const std::vector<float> x8(8, 1.f), grid3(3, 0.f);
  expect(RunGridSample({1, 1, 2, 2, 2}, x8, {1, 1, 1, 1, 3}, grid3, "bicubic", "zeros", 0, &out),
         "bicubic sampling takes rank-4 X only");
  expect(RunGridSample({1, 1, 2, 2, 2}, x8, {1, 1, 1, 3}, grid3, "linear", "zeros", 0, &out),
         "[N, D_out, H_out, W_out, 3]");
}

}  // namespace
}  // namespace ops
}  // namespace mace
