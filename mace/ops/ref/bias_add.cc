#include "mace/ops/ref/bias_add.h"

namespace mace {
namespace ops {
namespace ref {

void BiasAdd(const BiasAddParams& p, const float* input, const float* bias, float* output) {
  for (int64_t n = 0; n < p.outer; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const int64_t base = (n * p.channels + c) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        // The double sum rounds to the correctly rounded float sum.
        const double y = static_cast<double>(input[base + i]) + bias[c];
        output[base + i] = p.activation.Apply(static_cast<float>(y));
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
