#include "mace/ops/ref/fully_connected.h"

namespace mace {
namespace ops {
namespace ref {

void FullyConnected(const FullyConnectedParams& p, const float* input, const float* weight,
                    const float* bias, float* output) {
  for (int64_t n = 0; n < p.batch; ++n) {
    const float* row = input + n * p.in_features;
    for (int64_t o = 0; o < p.out_features; ++o) {
      const float* weights = weight + o * p.in_features;
      double sum = bias != nullptr ? bias[o] : 0.0;
      for (int64_t k = 0; k < p.in_features; ++k) sum += static_cast<double>(row[k]) * weights[k];
      output[n * p.out_features + o] = p.activation.Apply(static_cast<float>(sum));
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
