#include "mace/ops/ref/resize_nearest_neighbor.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace ops {
namespace ref {

int64_t NearestSourceIndex(CoordinateMode mode, NearestMode nearest_mode, int64_t x, int64_t in_len,
                           int64_t out_len, double scale) {
  const double source = SourceCoordinate(mode, x, in_len, out_len, scale);
  double rounded = 0.0;
  switch (nearest_mode) {
    // ceil(s - 0.5) is s rounded to nearest with halves going down, and
    // floor(s + 0.5) with halves going up; both are exact for halves.
    case NearestMode::ROUND_PREFER_FLOOR: rounded = std::ceil(source - 0.5); break;
    case NearestMode::ROUND_PREFER_CEIL: rounded = std::floor(source + 0.5); break;
    case NearestMode::FLOOR: rounded = std::floor(source); break;
    case NearestMode::CEIL: rounded = std::ceil(source); break;
  }
  // Clamp in double so the conversion never sees an out-of-range value.
  rounded = std::min(std::max(rounded, 0.0), static_cast<double>(in_len - 1));
  return static_cast<int64_t>(rounded);
}

void ResizeNearestNeighbor(const ResizeNearestNeighborParams& p, const float* input,
                           float* output) {
  for (int64_t plane = 0; plane < p.batch * p.channels; ++plane) {
    const float* in = input + plane * p.in_h * p.in_w;
    float* out = output + plane * p.out_h * p.out_w;
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const int64_t iy = NearestSourceIndex(p.mode, p.nearest_mode, oy, p.in_h, p.out_h, p.scale_h);
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        const int64_t ix =
            NearestSourceIndex(p.mode, p.nearest_mode, ox, p.in_w, p.out_w, p.scale_w);
        out[oy * p.out_w + ox] = in[iy * p.in_w + ix];
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
