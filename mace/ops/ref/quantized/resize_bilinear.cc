#include "mace/ops/ref/quantized/resize_bilinear.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace ops {
namespace ref {
namespace quantized {
namespace {

constexpr int64_t kOne = int64_t{1} << kResizeFractionBits;

}  // namespace

FixedTaps ResizeTaps(CoordinateMode mode, int64_t x, int64_t in_len, int64_t out_len,
                     double scale) {
  const double source = SourceCoordinate(mode, x, in_len, out_len, scale);
  const double clamped = std::min(std::max(source, 0.0), static_cast<double>(in_len - 1));
  FixedTaps taps;
  taps.low = static_cast<int64_t>(std::floor(clamped));
  taps.high = std::min(taps.low + 1, in_len - 1);
  taps.frac = std::llround((clamped - static_cast<double>(taps.low)) * kOne);
  return taps;
}

void ResizeBilinear(const ResizeBilinearParams& p, const uint8_t* input, uint8_t* output) {
  for (int64_t plane = 0; plane < p.batch * p.channels; ++plane) {
    const uint8_t* in = input + plane * p.in_h * p.in_w;
    uint8_t* out = output + plane * p.out_h * p.out_w;
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const FixedTaps y = ResizeTaps(p.mode, oy, p.in_h, p.out_h, p.scale_h);
      for (int64_t ox = 0; ox < p.out_w; ++ox) {
        const FixedTaps x = ResizeTaps(p.mode, ox, p.in_w, p.out_w, p.scale_w);
        const int64_t top = in[y.low * p.in_w + x.low] * (kOne - x.frac) +
                            in[y.low * p.in_w + x.high] * x.frac;
        const int64_t bottom = in[y.high * p.in_w + x.low] * (kOne - x.frac) +
                               in[y.high * p.in_w + x.high] * x.frac;
        const int64_t sum = top * (kOne - y.frac) + bottom * y.frac;
        out[oy * p.out_w + ox] =
            static_cast<uint8_t>((sum + kOne * kOne / 2) >> (2 * kResizeFractionBits));
      }
    }
  }
}

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace
