// Reference LayerNorm: each row of the input, viewed as [outer, inner], is
// normalized to zero mean and unit variance, then scaled and shifted.
#ifndef MACE_OPS_REF_LAYER_NORM_H_
#define MACE_OPS_REF_LAYER_NORM_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

struct LayerNormParams {
  int64_t outer = 0, inner = 0;
  float epsilon = 1e-5f;
};

// output[o, i] = (x[o, i] - mean_o) * inv_o * scale[i] + bias[i], with
// mean_o and the (biased) variance var_o of row o accumulated in double and
// inv_o = 1 / sqrt(var_o + epsilon). scale and bias may be nullptr (1 and
// 0); mean and inv_std_dev ([outer] each) may be nullptr.
void LayerNorm(const LayerNormParams& params, const float* input, const float* scale,
               const float* bias, float* output, float* mean, float* inv_std_dev);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_LAYER_NORM_H_
