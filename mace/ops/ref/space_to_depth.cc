#include "mace/ops/ref/space_to_depth.h"

namespace mace {
namespace ops {
namespace ref {

namespace {

template <typename T>
void SpaceToDepthImpl(const SpaceToDepthParams& p, const T* input, T* output) {
  const int64_t b = p.block;
  const int64_t out_channels = p.in_channels * b * b;
  const int64_t out_h = p.in_h / b, out_w = p.in_w / b;
  // Walk the input and scatter: the formulas then read exactly as documented.
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < p.in_channels; ++c) {
      for (int64_t iy = 0; iy < p.in_h; ++iy) {
        const int64_t y = iy / b, by = iy % b;
        for (int64_t ix = 0; ix < p.in_w; ++ix) {
          const int64_t x = ix / b, bx = ix % b;
          const int64_t out_c = p.crd ? (c * b + by) * b + bx : (by * b + bx) * p.in_channels + c;
          output[((n * out_channels + out_c) * out_h + y) * out_w + x] =
              input[((n * p.in_channels + c) * p.in_h + iy) * p.in_w + ix];
        }
      }
    }
  }
}

}  // namespace

void SpaceToDepth(const SpaceToDepthParams& params, const float* input, float* output) {
  SpaceToDepthImpl(params, input, output);
}

void SpaceToDepthUint8(const SpaceToDepthParams& params, const uint8_t* input, uint8_t* output) {
  SpaceToDepthImpl(params, input, output);
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
