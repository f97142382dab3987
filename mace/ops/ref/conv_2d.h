// Reference Conv2D: a direct NCHW convolution with every tap bounds-checked.
// It is the oracle that optimized kernels are tested against, so it favours
// being obviously right over being fast.
#ifndef MACE_OPS_REF_CONV_2D_H_
#define MACE_OPS_REF_CONV_2D_H_

#include <cstdint>

#include "mace/ops/common/activation.h"

namespace mace {
namespace ops {
namespace ref {

struct Conv2DParams {
  int64_t batch = 0;
  int64_t in_channels = 0, in_h = 0, in_w = 0;
  int64_t out_channels = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  // in_channels and out_channels are both multiples of group.
  int64_t group = 1;
  Activation activation;
};

// input  [batch, in_channels, in_h, in_w]
// filter [out_channels, in_channels / group, kernel_h, kernel_w]
// bias   [out_channels], or nullptr
// output [batch, out_channels, out_h, out_w]
void Conv2D(const Conv2DParams& params, const float* input, const float* filter, const float* bias,
            float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_CONV_2D_H_
