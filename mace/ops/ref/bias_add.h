// Reference BiasAdd: adds one bias value per channel (dim 1), then an
// optional activation. It is the oracle that vectorized kernels are tested
// against.
#ifndef MACE_OPS_REF_BIAS_ADD_H_
#define MACE_OPS_REF_BIAS_ADD_H_

#include <cstdint>

#include "mace/ops/common/activation.h"

namespace mace {
namespace ops {
namespace ref {

struct BiasAddParams {
  // The input viewed as [outer, channels, inner]: dim 0, dim 1 and the
  // product of the remaining dimensions (1 for rank 2).
  int64_t outer = 0, channels = 0, inner = 0;
  Activation activation;
};

// input, output: outer * channels * inner values. output may be input: each
// element is read before the same element is written.
// bias: [channels].
void BiasAdd(const BiasAddParams& params, const float* input, const float* bias, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_BIAS_ADD_H_
