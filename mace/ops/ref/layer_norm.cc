#include "mace/ops/ref/layer_norm.h"

#include <cmath>

namespace mace {
namespace ops {
namespace ref {

void LayerNorm(const LayerNormParams& p, const float* input, const float* scale, const float* bias,
               float* output, float* mean, float* inv_std_dev) {
  for (int64_t o = 0; o < p.outer; ++o) {
    const float* row = input + o * p.inner;
    double sum = 0;
    for (int64_t i = 0; i < p.inner; ++i) sum += row[i];
    const double mu = sum / static_cast<double>(p.inner);
    double squares = 0;
    for (int64_t i = 0; i < p.inner; ++i) {
      const double d = row[i] - mu;
      squares += d * d;
    }
    const double var = squares / static_cast<double>(p.inner);
    const double inv = 1.0 / std::sqrt(var + static_cast<double>(p.epsilon));
    float* out = output + o * p.inner;
    for (int64_t i = 0; i < p.inner; ++i) {
      double v = (row[i] - mu) * inv;
      if (scale != nullptr) v *= scale[i];
      if (bias != nullptr) v += bias[i];
      out[i] = static_cast<float>(v);
    }
    if (mean != nullptr) mean[o] = static_cast<float>(mu);
    if (inv_std_dev != nullptr) inv_std_dev[o] = static_cast<float>(inv);
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
