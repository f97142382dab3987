#include "mace/ops/ref/roi_align.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace ops {
namespace ref {
namespace {

// One bilinear sample: four taps (offsets into a channel plane) and their
// weights; all weights 0 for a point outside the image.
struct Tap {
  int64_t pos[4] = {0, 0, 0, 0};
  float weight[4] = {0, 0, 0, 0};
};

Tap BilinearTap(float y, float x, int64_t height, int64_t width) {
  Tap tap;
  if (y < -1.f || y > static_cast<float>(height) || x < -1.f || x > static_cast<float>(width)) {
    return tap;
  }
  y = std::max(y, 0.f);
  x = std::max(x, 0.f);
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high = y_low + 1, x_high = x_low + 1;
  if (y_low >= height - 1) {
    y_low = y_high = height - 1;
    y = static_cast<float>(y_low);
  }
  if (x_low >= width - 1) {
    x_low = x_high = width - 1;
    x = static_cast<float>(x_low);
  }
  const float ly = y - static_cast<float>(y_low), lx = x - static_cast<float>(x_low);
  const float hy = 1.f - ly, hx = 1.f - lx;
  tap.pos[0] = y_low * width + x_low;
  tap.pos[1] = y_low * width + x_high;
  tap.pos[2] = y_high * width + x_low;
  tap.pos[3] = y_high * width + x_high;
  tap.weight[0] = hy * hx;
  tap.weight[1] = hy * lx;
  tap.weight[2] = ly * hx;
  tap.weight[3] = ly * lx;
  return tap;
}

}  // namespace

int64_t RoiAlignGrid(const RoiAlignParams& params, float extent, int64_t bins) {
  if (params.sampling_ratio > 0) return params.sampling_ratio;
  const float points = std::ceil(extent / static_cast<float>(bins));
  // NaN and negative extents give no points; huge ones stop at 2^30.
  if (!(points > 0.f)) return 0;
  return points < 1073741824.f ? static_cast<int64_t>(points) : int64_t{1} << 30;
}

void RoiAlign(const RoiAlignParams& params, const float* input, const float* rois,
              const float* batch_indices, float* output) {
  const float offset = params.half_pixel ? 0.5f : 0.f;
  const int64_t plane = params.height * params.width;
  const int64_t bins = params.output_h * params.output_w;
  for (int64_t r = 0; r < params.rois; ++r) {
    const float* roi = rois + r * 4;
    const float start_w = roi[0] * params.spatial_scale - offset;
    const float start_h = roi[1] * params.spatial_scale - offset;
    float roi_w = roi[2] * params.spatial_scale - offset - start_w;
    float roi_h = roi[3] * params.spatial_scale - offset - start_h;
    if (!params.half_pixel) {
      roi_w = std::max(roi_w, 1.f);
      roi_h = std::max(roi_h, 1.f);
    }
    const float bin_h = roi_h / static_cast<float>(params.output_h);
    const float bin_w = roi_w / static_cast<float>(params.output_w);
    const int64_t grid_h = RoiAlignGrid(params, roi_h, params.output_h);
    const int64_t grid_w = RoiAlignGrid(params, roi_w, params.output_w);
    const float count = static_cast<float>(std::max<int64_t>(grid_h * grid_w, 1));
    const int64_t n = static_cast<int64_t>(batch_indices[r]);
    const float* image = input + n * params.channels * plane;
    float* roi_out = output + r * params.channels * bins;
    for (int64_t ph = 0; ph < params.output_h; ++ph) {
      for (int64_t pw = 0; pw < params.output_w; ++pw) {
        const int64_t bin = ph * params.output_w + pw;
        for (int64_t c = 0; c < params.channels; ++c) roi_out[c * bins + bin] = 0.f;
        // Each sample's taps, applied to every channel.
        for (int64_t iy = 0; iy < grid_h; ++iy) {
          const float y = start_h + static_cast<float>(ph) * bin_h +
                          static_cast<float>(iy + .5f) * bin_h / static_cast<float>(grid_h);
          for (int64_t ix = 0; ix < grid_w; ++ix) {
            const float x = start_w + static_cast<float>(pw) * bin_w +
                            static_cast<float>(ix + .5f) * bin_w / static_cast<float>(grid_w);
            const Tap t = BilinearTap(y, x, params.height, params.width);
            const bool first = iy == 0 && ix == 0;
            for (int64_t c = 0; c < params.channels; ++c) {
              const float* data = image + c * plane;
              float& value = roi_out[c * bins + bin];
              if (params.mode == RoiAlignMode::AVG) {
                value += t.weight[0] * data[t.pos[0]] + t.weight[1] * data[t.pos[1]] +
                         t.weight[2] * data[t.pos[2]] + t.weight[3] * data[t.pos[3]];
              } else {
                const float tap = std::max(
                    std::max(std::max(t.weight[0] * data[t.pos[0]], t.weight[1] * data[t.pos[1]]),
                             t.weight[2] * data[t.pos[2]]),
                    t.weight[3] * data[t.pos[3]]);
                value = first ? tap : std::max(value, tap);
              }
            }
          }
        }
        if (params.mode == RoiAlignMode::AVG) {
          for (int64_t c = 0; c < params.channels; ++c) roi_out[c * bins + bin] /= count;
        }
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
