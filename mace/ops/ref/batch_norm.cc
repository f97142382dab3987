#include "mace/ops/ref/batch_norm.h"

#include <cmath>

namespace mace {
namespace ops {
namespace ref {

void BatchNorm(const BatchNormParams& p, const float* input, const float* scale,
               const float* offset, const float* mean, const float* var, float* output) {
  const bool folded = mean == nullptr || var == nullptr;
  for (int64_t n = 0; n < p.outer; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      // In double, so the oracle's rounding stays well below float's. A
      // variance that makes var + epsilon non-positive gives inf or NaN.
      const double inv_std =
          folded ? 1.0 : 1.0 / std::sqrt(static_cast<double>(var[c]) + p.epsilon);
      const double center = folded ? 0.0 : mean[c];
      const int64_t base = (n * p.channels + c) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        const double y = scale[c] * ((input[base + i] - center) * inv_std) + offset[c];
        output[base + i] = p.activation.Apply(static_cast<float>(y));
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
