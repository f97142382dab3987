#include "mace/ops/ref/depth_to_space.h"

namespace mace {
namespace ops {
namespace ref {

namespace {

template <typename T>
void DepthToSpaceImpl(const DepthToSpaceParams& p, const T* input, T* output) {
  const int64_t b = p.block;
  const int64_t out_channels = p.in_channels / (b * b);
  const int64_t out_h = p.in_h * b, out_w = p.in_w * b;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t c = 0; c < out_channels; ++c) {
      for (int64_t oy = 0; oy < out_h; ++oy) {
        const int64_t y = oy / b, by = oy % b;
        for (int64_t ox = 0; ox < out_w; ++ox) {
          const int64_t x = ox / b, bx = ox % b;
          const int64_t in_c = p.crd ? (c * b + by) * b + bx : (by * b + bx) * out_channels + c;
          output[((n * out_channels + c) * out_h + oy) * out_w + ox] =
              input[((n * p.in_channels + in_c) * p.in_h + y) * p.in_w + x];
        }
      }
    }
  }
}

}  // namespace

void DepthToSpace(const DepthToSpaceParams& params, const float* input, float* output) {
  DepthToSpaceImpl(params, input, output);
}

void DepthToSpaceUint8(const DepthToSpaceParams& params, const uint8_t* input, uint8_t* output) {
  DepthToSpaceImpl(params, input, output);
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
