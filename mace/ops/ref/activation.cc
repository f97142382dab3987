#include "mace/ops/ref/activation.h"

namespace mace {
namespace ops {
namespace ref {

void Activate(const ActivationParams& p, const float* input, const float* alpha, float* output) {
  const bool prelu = p.activation.type == ActivationType::PRELU;
  for (int64_t n = 0; n < p.outer; ++n) {
    for (int64_t c = 0; c < p.channels; ++c) {
      // PRELU is LEAKYRELU with this channel's slope, so the shared scalar
      // formula stays the single definition of every activation.
      Activation activation = p.activation;
      if (prelu) activation.alpha = alpha[c];
      const int64_t base = (n * p.channels + c) * p.inner;
      for (int64_t i = 0; i < p.inner; ++i) {
        output[base + i] = activation.Apply(input[base + i]);
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
