#include <algorithm>
#include <cmath>
#include <cstdint>
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

struct RoiCase {
  std::vector<int64_t> x_shape;
  std::vector<float> x, rois, indices;
  std::string mode = "avg", transform = "half_pixel";
  int64_t out_h = 1, out_w = 1, sampling_ratio = 0;
  float spatial_scale = 1.f;
};

MaceStatus RunRoiAlign(const RoiCase& c, std::vector<float>* out,
                       std::vector<int64_t>* shape = nullptr) {
  OpTester tester("RoiAlign", RegisterRoiAlign);
  const int64_t r = static_cast<int64_t>(c.indices.size());
  tester.Input("x", c.x_shape, c.x)
      .Input("rois", {r, 4}, c.rois)
      .Input("batch_indices", {r}, c.indices)
      .Output("y")
      .Arg("mode", c.mode)
      .Arg("coordinate_transformation_mode", c.transform)
      .Arg("output_height", c.out_h)
      .Arg("output_width", c.out_w)
      .Arg("sampling_ratio", c.sampling_ratio)
      .Arg("spatial_scale", c.spatial_scale);
  const MaceStatus status = tester.Run();
  if (status.ok()) {
    *out = tester.OutputData("y");
    if (shape != nullptr) *shape = tester.OutputShape("y");
  }
  return status;
}

// A plain oracle in double, from the operator's definition: each bin is
// the mean of its bilinear samples (avg), or the largest weighted tap of any
// sample (max, as onnxruntime defines it).
std::vector<double> Oracle(const RoiCase& c) {
  const int64_t channels = c.x_shape[1], h = c.x_shape[2], w = c.x_shape[3];
  const int64_t rois = static_cast<int64_t>(c.indices.size());
  const bool half = c.transform == "half_pixel";
  std::vector<double> out;
  for (int64_t r = 0; r < rois; ++r) {
    const double offset = half ? 0.5 : 0.0;
    const double x0 = c.rois[r * 4] * double{c.spatial_scale} - offset;
    const double y0 = c.rois[r * 4 + 1] * double{c.spatial_scale} - offset;
    double rw = c.rois[r * 4 + 2] * double{c.spatial_scale} - offset - x0;
    double rh = c.rois[r * 4 + 3] * double{c.spatial_scale} - offset - y0;
    if (!half) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bh = rh / c.out_h, bw = rw / c.out_w;
    const int64_t gh =
        c.sampling_ratio > 0 ? c.sampling_ratio : std::max<int64_t>(0, std::ceil(rh / c.out_h));
    const int64_t gw =
        c.sampling_ratio > 0 ? c.sampling_ratio : std::max<int64_t>(0, std::ceil(rw / c.out_w));
    const int64_t n = static_cast<int64_t>(c.indices[r]);
    for (int64_t ch = 0; ch < channels; ++ch) {
      auto at = [&](int64_t y, int64_t x) {
        return double{c.x[((n * channels + ch) * h + y) * w + x]};
      };
      for (int64_t ph = 0; ph < c.out_h; ++ph) {
        for (int64_t pw = 0; pw < c.out_w; ++pw) {
          double sum = 0, best = -INFINITY;
          for (int64_t iy = 0; iy < gh; ++iy) {
            for (int64_t ix = 0; ix < gw; ++ix) {
              double y = y0 + ph * bh + (iy + 0.5) * bh / gh;
              double x = x0 + pw * bw + (ix + 0.5) * bw / gw;
              double taps[4] = {0, 0, 0, 0};
              if (!(y < -1 || y > h || x < -1 || x > w)) {
                y = std::max(y, 0.0);
                x = std::max(x, 0.0);
                int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x);
                int64_t yh = yl + 1, xh = xl + 1;
                if (yl >= h - 1) y = static_cast<double>(yl = yh = h - 1);
                if (xl >= w - 1) x = static_cast<double>(xl = xh = w - 1);
                const double ly = y - yl, lx = x - xl;
                taps[0] = (1 - ly) * (1 - lx) * at(yl, xl);
                taps[1] = (1 - ly) * lx * at(yl, xh);
                taps[2] = ly * (1 - lx) * at(yh, xl);
                taps[3] = ly * lx * at(yh, xh);
              }
              sum += taps[0] + taps[1] + taps[2] + taps[3];
              best = std::max({best, taps[0], taps[1], taps[2], taps[3]});
            }
          }
          const int64_t count = std::max<int64_t>(gh * gw, 1);
          out.push_back(c.mode == "avg" ? sum / count : (gh * gw > 0 ? best : 0.0));
        }
      }
    }
  }
  return out;
}

TEST(RoiAlignTest, HandComputedBins) {
  // X [1, 1, 2, 2] = [[0, 1], [2, 3]]; ROI (0, 0, 2, 2), output_half_pixel,
  // 1x1 bin sampled 1x1 at (1, 1): the bottom-right pixel, 3. With
  // half_pixel the sample is at (0.5, 0.5): the mean 1.5.
  RoiCase c;
  c.x_shape = {1, 1, 2, 2};
  c.x = {0, 1, 2, 3};
  c.rois = {0, 0, 2, 2};
  c.indices = {0};
  c.sampling_ratio = 1;
  std::vector<float> out;
  c.transform = "output_half_pixel";
  ASSERT_TRUE(RunRoiAlign(c, &out).ok());
  EXPECT_NEAR(out[0], 3.f, 1e-6);
  c.transform = "half_pixel";
  ASSERT_TRUE(RunRoiAlign(c, &out).ok());
  EXPECT_NEAR(out[0], 1.5f, 1e-6);
  // max of 4 taps at weight 1/4 each: 3/4.
  c.mode = "max";
  ASSERT_TRUE(RunRoiAlign(c, &out).ok());
  EXPECT_NEAR(out[0], 0.75f, 1e-6);
}

TEST(RoiAlignTest, MatchesTheOracle) {
  uint32_t seed = 9176;
  const std::vector<std::vector<int64_t>> shapes = {{1, 1, 1, 1}, {2, 3, 5, 7}, {3, 2, 9, 4}};
  for (const auto& shape : shapes) {
    for (const char* mode : {"avg", "max"}) {
      for (const char* transform : {"half_pixel", "output_half_pixel"}) {
        for (int64_t ratio : {0, 2}) {
          RoiCase c;
          c.x_shape = shape;
          c.x = RandomFloats(shape[0] * shape[1] * shape[2] * shape[3], seed++, -2.f, 2.f);
          c.mode = mode;
          c.transform = transform;
          c.sampling_ratio = ratio;
          c.out_h = 1 + seed % 3;
          c.out_w = 2 + seed % 2;
          c.spatial_scale = seed % 2 ? 0.5f : 1.f;
          // ROIs reaching outside X, inverted ones (x1 > x2), tiny ones.
          const int64_t rois = 5;
          c.rois = RandomFloats(rois * 4, seed++, -3.f, 2.f * std::max(shape[2], shape[3]) + 3);
          c.rois[0] = c.rois[2] = 1.25f;
          std::swap(c.rois[4], c.rois[6]);
          for (int64_t r = 0; r < rois; ++r) c.indices.push_back(static_cast<float>(r % shape[0]));
          SCOPED_TRACE(std::string(mode) + " " + transform + " ratio " + std::to_string(ratio) +
                       " seed " + std::to_string(seed));
          std::vector<float> out;
          std::vector<int64_t> out_shape;
          const MaceStatus status = RunRoiAlign(c, &out, &out_shape);
          ASSERT_TRUE(status.ok()) << status.information();
          EXPECT_EQ(out_shape, (std::vector<int64_t>{rois, shape[1], c.out_h, c.out_w}));
          const std::vector<double> want = Oracle(c);
          ASSERT_EQ(out.size(), want.size());
          for (size_t i = 0; i < out.size(); ++i) {
            EXPECT_NEAR(out[i], want[i], 1e-4 + 1e-4 * std::fabs(want[i])) << i;
          }
        }
      }
    }
  }
}

TEST(RoiAlignTest, NoRoisGiveAnEmptyOutput) {
  RoiCase c;
  c.x_shape = {1, 2, 3, 3};
  c.x = RandomFloats(18, 3);
  std::vector<float> out;
  std::vector<int64_t> shape;
  OpTester tester("RoiAlign", RegisterRoiAlign);
  tester.Input("x", c.x_shape, c.x)
      .Input("rois", {0, 4}, {})
      .Input("batch_indices", {0}, {})
      .Output("y")
      .Arg("output_height", 2);
  ASSERT_TRUE(tester.Run().ok());
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{0, 2, 2, 1}));
}

TEST(RoiAlignTest, RefusesBadInputs) {
  RoiCase c;
  c.x_shape = {2, 1, 2, 2};
  c.x = {0, 1, 2, 3, 4, 5, 6, 7};
  c.rois = {0, 0, 1, 1};
  std::vector<float> out;
  for (float index : {-1.f, 2.f, 0.5f, NAN}) {
    c.indices = {index};
    EXPECT_FALSE(RunRoiAlign(c, &out).ok()) << index;
  }
  c.indices = {1};
  c.rois = {0, 0, INFINITY, 1};
  EXPECT_FALSE(RunRoiAlign(c, &out).ok());
  c.rois = {0, 0, 1e30f, 1e30f};  // an absurd sampling grid
  EXPECT_FALSE(RunRoiAlign(c, &out).ok());
  c.rois = {0, 0, 1, 1};
  c.mode = "median";
  EXPECT_FALSE(RunRoiAlign(c, &out).ok());
  c.mode = "avg";
  c.transform = "align_corners";
  EXPECT_FALSE(RunRoiAlign(c, &out).ok());
  c.transform = "half_pixel";
  c.out_h = 0;
  EXPECT_FALSE(RunRoiAlign(c, &out).ok());
  c.out_h = 1;
  c.sampling_ratio = -1;
  EXPECT_FALSE(RunRoiAlign(c, &out).ok());
}

}  // namespace
}  // namespace ops
}  // namespace mace
