// The uint8 quantization scheme, shared by every quantized kernel (the
// reference ones in ops/ref/quantized/ and the fast ones), so that all of
// them give bit-identical results. docs/design/quantization.md has the whole story.
//
// Values: real = scale * (q - zero_point).
//   activations  uint8, asymmetric, one (scale, zero point) per tensor,
//                zero point in [0, 255];
//   weights      uint8 per tensor (zero point in [0, 255]), or int8
//                symmetric per output channel (zero point 0, one scale per
//                slice of dimension 0: QuantParams::channel_scales);
//   bias         int32, zero point 0, in units of input scale x weight scale
//                (of its channel); the bias tensor's own scale is not used.
//
// Requantization: an int32 accumulator x in units of `in_scale * w_scale`
// becomes an output in units of `out_scale` by the real multiplier
// M = in_scale * w_scale / out_scale, held as a 31-bit integer and a right
// shift: M ~ multiplier / 2^right_shift, multiplier in [2^30, 2^31) and
// right_shift in [1, 62] (MakeQuantizedMultiplier: M must lie in (0, 2^30);
// below 2^-32 the product of any int32 with M rounds to 0, and the
// multiplier is 0). The rule, used everywhere:
//
//   Requantize(x) = sign(x) * floor((|x| * multiplier + 2^(right_shift-1))
//                                   / 2^right_shift)
//
// computed exactly in 64-bit integers: one rounding, half away from zero,
// symmetric in sign. M >= 1 needs nothing special. The output is then
// zero_point + Requantize(x), clamped to [output_min, output_max]: the type's
// range narrowed by a fused RELU or RELU6/RELUX (OutputClamp).
//
// Float <-> uint8 (the Quantize and Dequantize ops):
//   quantize    q = clamp(zero_point + round_half_away(double(real) / scale))
//   dequantize  real = float(scale) * float(q - zero_point), in float.
#ifndef MACE_OPS_COMMON_QUANTIZE_H_
#define MACE_OPS_COMMON_QUANTIZE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "mace/core/tensor.h"
#include "mace/ops/common/activation.h"
#include "mace/utils/status.h"

namespace mace {
namespace ops {

struct QuantizedMultiplier {
  int32_t multiplier = 0;   // 0, or in [2^30, 2^31)
  int32_t right_shift = 1;  // in [1, 62]
};

// Encodes the real multiplier `real` (see the top of this file). Fails for
// a value that is not finite or not in (0, 2^30), naming `what`.
MaceStatus MakeQuantizedMultiplier(double real, const std::string& what,
                                   QuantizedMultiplier* result);

// The rounding rule above. The result of an int32 times M < 1 fits in
// int32; callers add the zero point and clamp in int64.
inline int64_t Requantize(int32_t x, const QuantizedMultiplier& m) {
  const uint64_t magnitude =
      x < 0 ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x);
  const uint64_t product = magnitude * static_cast<uint32_t>(m.multiplier);  // < 2^62
  const int64_t rounded =
      static_cast<int64_t>((product + (uint64_t{1} << (m.right_shift - 1))) >> m.right_shift);
  return x < 0 ? -rounded : rounded;
}

// The output range of a uint8 tensor after a fused activation.
struct OutputClamp {
  int32_t zero_point = 0;
  int32_t min = 0, max = 255;
};

// zero_point + Requantize(x), clamped.
inline uint8_t RequantizeToUint8(int32_t x, const QuantizedMultiplier& m, const OutputClamp& out) {
  int64_t value = out.zero_point + Requantize(x, m);
  if (value < out.min) value = out.min;
  if (value > out.max) value = out.max;
  return static_cast<uint8_t>(value);
}

// The output range for `activation` (NOOP, RELU, RELU6/RELUX) on a uint8
// tensor with `quant`: real 0 is the zero point, and the upper limit is
// rounded half away from zero. Other activations cannot be folded into the
// clamp and fail, naming the op in `what`.
MaceStatus MakeOutputClamp(const Activation& activation, const QuantParams& quant,
                           const std::string& what, OutputClamp* clamp);

// round_half_away(double(real) / scale) + zero_point, clamped to [0, 255].
uint8_t QuantizeValue(float real, float scale, int32_t zero_point);
// scale * (q - zero_point), in float.
inline float DequantizeValue(int32_t q, float scale, int32_t zero_point) {
  return scale * static_cast<float>(q - zero_point);
}

// Checks the quantization of `tensor` for its type: a finite positive scale
// (or, for an int8 weight, one finite positive scale per output channel and
// zero point 0), and a zero point in the type's range. The error names the
// tensor and what was wrong.
MaceStatus CheckQuantParams(const Tensor& tensor);

// The scale of output channel `channel` of a weight checked by
// CheckQuantParams.
inline float ChannelScale(const QuantParams& quant, int64_t channel) {
  return quant.channel_scales.empty() ? quant.scale : quant.channel_scales[channel];
}

// Requantization multipliers for `channels` output channels: input scale x
// the channel's weight scale / output scale. One entry when the weight is
// quantized per tensor.
MaceStatus MakeChannelMultipliers(float input_scale, const Tensor& weight, float output_scale,
                                  int64_t channels, std::vector<QuantizedMultiplier>* result);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_QUANTIZE_H_
