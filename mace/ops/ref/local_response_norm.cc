#include "mace/ops/ref/local_response_norm.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace ops {
namespace ref {

void LocalResponseNorm(const LocalResponseNormParams& p, const float* input, float* output) {
  const int64_t plane = p.height * p.width;
  for (int64_t n = 0; n < p.batch; ++n) {
    const float* in = input + n * p.channels * plane;
    float* out = output + n * p.channels * plane;
    for (int64_t c = 0; c < p.channels; ++c) {
      // Written as c - first / last - c so a radius near 2^31 cannot overflow.
      const int64_t first = c > p.depth_radius ? c - p.depth_radius : 0;
      const int64_t last =
          p.channels - 1 - c > p.depth_radius ? c + p.depth_radius : p.channels - 1;
      for (int64_t i = 0; i < plane; ++i) {
        double sqr_sum = 0.0;
        for (int64_t k = first; k <= last; ++k) {
          const double v = in[k * plane + i];
          sqr_sum += v * v;
        }
        const double denominator = std::pow(p.bias + p.alpha * sqr_sum, p.beta);
        out[c * plane + i] = static_cast<float>(in[c * plane + i] / denominator);
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
