// Reference uint8 convolutions: Conv2D and DepthwiseConv2d over NCHW uint8
// activations with uint8 (per tensor) or int8 (per output channel) weights.
// Each output is bias + sum((input - input_zero_point) * (filter -
// filter_zero_point)) over the window, accumulated exactly and saturated to
// int32, then requantized by its channel's multiplier (common/quantize.h).
// Padding taps hold the input zero point (real 0), so they add nothing.
#ifndef MACE_OPS_REF_QUANTIZED_CONV_2D_H_
#define MACE_OPS_REF_QUANTIZED_CONV_2D_H_

#include <cstdint>
#include <vector>

#include "mace/ops/common/quantize.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/ops/ref/depthwise_conv_2d.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

// What every quantized convolution needs beside its geometry.
struct ConvQuantization {
  int32_t input_zero_point = 0;
  int32_t filter_zero_point = 0;  // 0 for int8 weights
  // One per output channel, or one for all.
  std::vector<QuantizedMultiplier> multipliers;
  OutputClamp output;

  const QuantizedMultiplier& multiplier(int64_t channel) const {
    return multipliers.size() == 1 ? multipliers[0] : multipliers[channel];
  }
};

// The int64 sum saturated to int32: the accumulator every kernel requantizes.
inline int32_t SaturateToInt32(int64_t value) {
  if (value > INT32_MAX) return INT32_MAX;
  if (value < INT32_MIN) return INT32_MIN;
  return static_cast<int32_t>(value);
}

// Shapes as ref::Conv2D; params.activation is ignored (quant.output has it).
void Conv2D(const Conv2DParams& params, const ConvQuantization& quant, const uint8_t* input,
            const uint8_t* filter, const int32_t* bias, uint8_t* output);
void Conv2D(const Conv2DParams& params, const ConvQuantization& quant, const uint8_t* input,
            const int8_t* filter, const int32_t* bias, uint8_t* output);

// Shapes as ref::DepthwiseConv2d; output channel c * multiplier + m uses
// multiplier(c * multiplier + m).
void DepthwiseConv2d(const DepthwiseConv2dParams& params, const ConvQuantization& quant,
                     const uint8_t* input, const uint8_t* filter, const int32_t* bias,
                     uint8_t* output);
void DepthwiseConv2d(const DepthwiseConv2dParams& params, const ConvQuantization& quant,
                     const uint8_t* input, const int8_t* filter, const int32_t* bias,
                     uint8_t* output);

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QUANTIZED_CONV_2D_H_
