// Reference Softmax: exp(x - max) / sum(exp(x - max)) along one axis, or its
// logarithm x - max - log(sum(exp(x - max))). Subtracting the maximum keeps
// every exponent <= 0, so nothing overflows. It is the oracle that vectorized
// kernels are tested against.
#ifndef MACE_OPS_REF_SOFTMAX_H_
#define MACE_OPS_REF_SOFTMAX_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct SoftmaxParams {
  // The input viewed as [outer, axis_size, inner]: the product of the
  // dimensions before the axis, the axis itself, and the product after it.
  int64_t outer = 0, axis_size = 0, inner = 0;
  // Log-softmax instead of softmax.
  bool use_log = false;
};

// input, output: outer * axis_size * inner values. output may be input: each
// slice along the axis is read in full before its first element is written,
// and each element is written only after its last read.
void Softmax(const SoftmaxParams& params, const float* input, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_SOFTMAX_H_
