#include "mace/ops/ref/batch_to_space_nd.h"

namespace mace {
namespace ops {
namespace ref {

void BatchToSpaceND(const BatchToSpaceNDParams& p, const float* input, float* output) {
  const int64_t batch = p.in_batch / (p.block_h * p.block_w);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      float* out = output + (n * p.channels + c) * p.out_h * p.out_w;
      for (int64_t y = 0; y < p.out_h; ++y) {
        // Position in the uncropped output plane, and its phase.
        const int64_t fy = y + p.crop_top;
        const int64_t py = fy % p.block_h, iy = fy / p.block_h;
        for (int64_t x = 0; x < p.out_w; ++x) {
          const int64_t fx = x + p.crop_left;
          const int64_t px = fx % p.block_w, ix = fx / p.block_w;
          const int64_t ib = (py * p.block_w + px) * batch + n;
          out[y * p.out_w + x] = input[((ib * p.channels + c) * p.in_h + iy) * p.in_w + ix];
        }
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
