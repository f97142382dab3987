// Reference DepthwiseConv2d: each input channel is convolved with its own
// `multiplier` filters, written without sharing code with Conv2D so the two
// oracles check each other's layout conventions.
#ifndef MACE_OPS_REF_DEPTHWISE_CONV_2D_H_
#define MACE_OPS_REF_DEPTHWISE_CONV_2D_H_

#include <cstdint>

#include "mace/ops/common/activation.h"

namespace mace {
namespace ops {
namespace ref {

struct DepthwiseConv2dParams {
  int64_t batch = 0;
  int64_t channels = 0, in_h = 0, in_w = 0;
  int64_t multiplier = 1;
  int64_t out_h = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  Activation activation;
};

// input  [batch, channels, in_h, in_w]
// filter [multiplier, channels, kernel_h, kernel_w]
// bias   [channels * multiplier], or nullptr
// output [batch, channels * multiplier, out_h, out_w]; channel c * multiplier + m
//        is input channel c convolved with filter[m][c].
void DepthwiseConv2d(const DepthwiseConv2dParams& params, const float* input, const float* filter,
                     const float* bias, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_DEPTHWISE_CONV_2D_H_
