#include "mace/ops/ref/max_pool_argmax.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace mace {
namespace ops {
namespace ref {

void MaxPoolArgmax(const ArgmaxWindow& w, const float* input, float* output, float* indices) {
  const int64_t in_plane = w.in_h * w.in_w, out_plane = w.out_h * w.out_w;
  for (int64_t plane = 0; plane < w.planes; ++plane) {
    const float* x = input + plane * in_plane;
    float* y = output + plane * out_plane;
    float* where = indices == nullptr ? nullptr : indices + plane * out_plane;
    for (int64_t oy = 0; oy < w.out_h; ++oy) {
      const int64_t origin_y = oy * w.stride_h - w.pad_top;
      const int64_t ky_begin = std::max<int64_t>(0, -origin_y);
      const int64_t ky_end = std::min(w.kernel_h, w.in_h - origin_y);
      for (int64_t ox = 0; ox < w.out_w; ++ox) {
        const int64_t origin_x = ox * w.stride_w - w.pad_left;
        const int64_t kx_begin = std::max<int64_t>(0, -origin_x);
        const int64_t kx_end = std::min(w.kernel_w, w.in_w - origin_x);
        float best = std::numeric_limits<float>::lowest();
        int64_t best_index = 0;
        for (int64_t ky = ky_begin; ky < ky_end; ++ky) {
          const float* row = x + (origin_y + ky) * w.in_w + origin_x;
          for (int64_t kx = kx_begin; kx < kx_end; ++kx) {
            if (row[kx] > best) {
              best = row[kx];
              best_index = ky * w.kernel_w + kx;
            }
          }
        }
        y[oy * w.out_w + ox] = best;
        if (where != nullptr) where[oy * w.out_w + ox] = static_cast<float>(best_index) + 0.1f;
      }
    }
  }
}

void MaxUnpool(const ArgmaxWindow& w, const float* input, const float* indices, float* output) {
  const int64_t in_plane = w.in_h * w.in_w, out_plane = w.out_h * w.out_w;
  std::memset(output, 0, sizeof(float) * w.planes * out_plane);
  // Values at or beyond these do not fit int32 (2^31 is exact in float).
  const float high = 2147483648.f, low = -2147483648.f;
  for (int64_t plane = 0; plane < w.planes; ++plane) {
    const float* x = input + plane * in_plane;
    const float* index = indices + plane * in_plane;
    float* y = output + plane * out_plane;
    for (int64_t iy = 0; iy < w.in_h; ++iy) {
      for (int64_t ix = 0; ix < w.in_w; ++ix) {
        const float value = index[iy * w.in_w + ix];
        if (!(value >= low && value < high)) continue;   // NaN too
        const int64_t at = static_cast<int64_t>(value);  // truncates toward 0
        const int64_t oy = iy * w.stride_h - w.pad_top + at / w.kernel_w;
        const int64_t ox = ix * w.stride_w - w.pad_left + at % w.kernel_w;
        if (oy < 0 || oy >= w.out_h || ox < 0 || ox >= w.out_w) continue;
        y[oy * w.out_w + ox] = x[iy * w.in_w + ix];
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
