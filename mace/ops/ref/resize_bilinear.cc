#include "mace/ops/ref/resize_bilinear.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace ops {
namespace ref {
namespace {

// The two neighbouring input indices of one output index and the weight of
// the upper one.
struct Taps {
  int64_t low = 0, high = 0;
  double frac = 0.0;
};

Taps ComputeTaps(CoordinateMode mode, int64_t x, int64_t in_len, int64_t out_len, double scale) {
  const double source = SourceCoordinate(mode, x, in_len, out_len, scale);
  // Clamping first makes the border pixel win outright outside the input,
  // which is what TensorFlow and ONNX Runtime produce.
  const double clamped = std::min(std::max(source, 0.0), static_cast<double>(in_len - 1));
  Taps taps;
  taps.low = static_cast<int64_t>(std::floor(clamped));
  taps.high = std::min(taps.low + 1, in_len - 1);
  taps.frac = clamped - static_cast<double>(taps.low);
  return taps;
}

}  // namespace

void ResizeBilinear(const ResizeBilinearParams& p, const float* input, float* output) {
  for (int64_t plane = 0; plane < p.batch * p.channels; ++plane) {
    const float* in = input + plane * p.in_h * p.in_w;
    float* out = output + plane * p.out_h * p.out_w;
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const Taps y = ComputeTaps(p.mode, oy, p.in_h, p.out_h, p.scale_h);
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        const Taps x = ComputeTaps(p.mode, ox, p.in_w, p.out_w, p.scale_w);
        const double top =
            in[y.low * p.in_w + x.low] * (1.0 - x.frac) + in[y.low * p.in_w + x.high] * x.frac;
        const double bottom =
            in[y.high * p.in_w + x.low] * (1.0 - x.frac) + in[y.high * p.in_w + x.high] * x.frac;
        out[oy * p.out_w + ox] = static_cast<float>(top * (1.0 - y.frac) + bottom * y.frac);
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
