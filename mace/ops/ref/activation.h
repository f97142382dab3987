// Reference Activation: applies one activation function element by element,
// with a per-channel slope for PRELU. It is the oracle that vectorized
// activation kernels are tested against.
#ifndef MACE_OPS_REF_ACTIVATION_H_
#define MACE_OPS_REF_ACTIVATION_H_

#include <cstdint>

#include "mace/ops/common/activation.h"

namespace mace {
namespace ops {
namespace ref {

struct ActivationParams {
  // The input viewed as [outer, channels, inner]: for rank >= 2, outer is
  // dim 0, channels dim 1 and inner the product of the rest. Only PRELU
  // needs the split; other activations may use any split of the count.
  int64_t outer = 0, channels = 1, inner = 0;
  Activation activation;
};

// input, output: outer * channels * inner values. output may be input: each
// element is read before the same element is written.
// alpha: [channels] slopes for PRELU; ignored (and may be nullptr) otherwise.
void Activate(const ActivationParams& params, const float* input, const float* alpha,
              float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_ACTIVATION_H_
