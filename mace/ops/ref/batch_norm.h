// Reference BatchNorm: a per-channel affine transform, either already folded
// (y = x * scale + offset) or from the inference statistics
// (y = scale * (x - mean) / sqrt(var + epsilon) + offset), then an optional
// activation. It is the oracle that vectorized kernels are tested against.
#ifndef MACE_OPS_REF_BATCH_NORM_H_
#define MACE_OPS_REF_BATCH_NORM_H_

#include <cstdint>

#include "mace/ops/common/activation.h"

namespace mace {
namespace ops {
namespace ref {

struct BatchNormParams {
  // The input viewed as [outer, channels, inner]: dim 0, dim 1 and the
  // product of the remaining dimensions (1 for rank 2).
  int64_t outer = 0, channels = 0, inner = 0;
  // Used only with mean and var.
  float epsilon = 1e-3f;
  Activation activation;
};

// input, output: outer * channels * inner values. output may be input: each
// element is read before the same element is written.
// scale, offset: [channels]. mean, var: [channels], or both nullptr for the
// folded form.
void BatchNorm(const BatchNormParams& params, const float* input, const float* scale,
               const float* offset, const float* mean, const float* var, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_BATCH_NORM_H_
