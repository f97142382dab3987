// Reference LocalResponseNorm across channels (TensorFlow's definition) on
// NCHW tensors.
#ifndef MACE_OPS_REF_LOCAL_RESPONSE_NORM_H_
#define MACE_OPS_REF_LOCAL_RESPONSE_NORM_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct LocalResponseNormParams {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  // Half window: channel c sums the squares of channels [c - r, c + r].
  int64_t depth_radius = 5;
  double bias = 1.0, alpha = 1.0, beta = 0.5;
};

// input and output [batch, channels, height, width]:
//   output = input / (bias + alpha * sqr_sum) ^ beta
// where sqr_sum adds the squares of the window's channels that exist.
void LocalResponseNorm(const LocalResponseNormParams& params, const float* input, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_LOCAL_RESPONSE_NORM_H_
