// LayerNorm's fast CPU kernel: the same computation as ref::LayerNorm with
// the two reductions (mean, variance) in float lanes the compiler
// vectorizes: eight lanes over blocks of 256 values, each block added to a
// double total, so long rows keep the reference's accuracy. The affine
// part stays in double, as in the reference.
#ifndef MACE_OPS_CPU_LAYER_NORM_FAST_H_
#define MACE_OPS_CPU_LAYER_NORM_FAST_H_

#include "mace/ops/ref/layer_norm.h"

namespace mace {
namespace ops {

void LayerNormFast(const ref::LayerNormParams& params, const float* input, const float* scale,
                   const float* bias, float* output, float* mean, float* inv_std_dev);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_LAYER_NORM_FAST_H_
