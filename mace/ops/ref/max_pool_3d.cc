#include "mace/ops/ref/max_pool_3d.h"

namespace mace {
namespace ops {
namespace ref {

void MaxPool3D(const MaxPool3DParams& p, const float* input, float* output, int32_t* indices) {
  const int64_t in_volume = p.in[0] * p.in[1] * p.in[2];
  int64_t out_index = 0;
  for (int64_t plane = 0; plane < p.batch * p.channels; ++plane) {
    const float* volume = input + plane * in_volume;
    for (int64_t od = 0; od < p.out[0]; ++od) {
      for (int64_t oh = 0; oh < p.out[1]; ++oh) {
        for (int64_t ow = 0; ow < p.out[2]; ++ow) {
          float best = 0.f;
          int64_t best_d = -1, best_h = -1, best_w = -1;
          for (int64_t kd = 0; kd < p.kernel[0]; ++kd) {
            const int64_t id = od * p.stride[0] - p.pad[0] + kd * p.dilation[0];
            if (id < 0 || id >= p.in[0]) continue;
            for (int64_t kh = 0; kh < p.kernel[1]; ++kh) {
              const int64_t ih = oh * p.stride[1] - p.pad[1] + kh * p.dilation[1];
              if (ih < 0 || ih >= p.in[1]) continue;
              for (int64_t kw = 0; kw < p.kernel[2]; ++kw) {
                const int64_t iw = ow * p.stride[2] - p.pad[2] + kw * p.dilation[2];
                if (iw < 0 || iw >= p.in[2]) continue;
                const float x = volume[(id * p.in[1] + ih) * p.in[2] + iw];
                if (best_d < 0 || x > best) {
                  best = x;
                  best_d = id;
                  best_h = ih;
                  best_w = iw;
                }
              }
            }
          }
          output[out_index] = best;
          if (indices != nullptr) {
            int64_t where = -1;
            if (best_d >= 0) {
              const int64_t offset = p.column_major
                                         ? (best_w * p.in[1] + best_h) * p.in[0] + best_d
                                         : (best_d * p.in[1] + best_h) * p.in[2] + best_w;
              where = plane * in_volume + offset;
            }
            indices[out_index] = static_cast<int32_t>(where);
          }
          ++out_index;
        }
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
