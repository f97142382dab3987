#include "mace/ops/ref/space_to_batch_nd.h"

namespace mace {
namespace ops {
namespace ref {

void SpaceToBatchND(const SpaceToBatchNDParams& p, const float* input, float* output) {
  const int64_t out_batch = p.batch * p.block_h * p.block_w;
  for (int64_t ob = 0; ob < out_batch; ++ob) {
    // The block offset is the slow part of the output batch index.
    const int64_t n = ob % p.batch;
    const int64_t py = (ob / p.batch) / p.block_w;
    const int64_t px = (ob / p.batch) % p.block_w;
    for (int64_t c = 0; c < p.channels; ++c) {
      const float* in = input + (n * p.channels + c) * p.in_h * p.in_w;
      float* out = output + (ob * p.channels + c) * p.out_h * p.out_w;
      for (int64_t y = 0; y < p.out_h; ++y) {
        const int64_t iy = y * p.block_h + py - p.pad_top;
        for (int64_t x = 0; x < p.out_w; ++x) {
          const int64_t ix = x * p.block_w + px - p.pad_left;
          const bool inside = iy >= 0 && iy < p.in_h && ix >= 0 && ix < p.in_w;
          out[y * p.out_w + x] = inside ? in[iy * p.in_w + ix] : 0.f;
        }
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
