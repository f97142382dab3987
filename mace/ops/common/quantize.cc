#include "mace/ops/common/quantize.h"

#include <cmath>

namespace mace {
namespace ops {
namespace {

MaceStatus Error(const std::string& message) {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, message);
}

bool FinitePositive(float value) { return std::isfinite(value) && value > 0.f; }

}  // namespace

MaceStatus MakeQuantizedMultiplier(double real, const std::string& what,
                                   QuantizedMultiplier* result) {
  // Written so that NaN fails too.
  if (!(real > 0.0 && real < 1073741824.0)) {
    return Error(StrCat(what, ": requantization multiplier ", real,
                        " is outside (0, 2^30); the scales are inconsistent"));
  }
  int exponent = 0;
  const double fraction = std::frexp(real, &exponent);  // real = fraction * 2^exponent
  if (exponent < -31) {
    // real < 2^-32: |x| * real < 0.5 for every int32 x, which rounds to 0.
    *result = QuantizedMultiplier{0, 1};
    return MaceStatus();
  }
  int64_t multiplier = std::llround(fraction * 2147483648.0);  // [2^30, 2^31]
  if (multiplier == (int64_t{1} << 31)) {
    multiplier >>= 1;
    ++exponent;
  }
  const int right_shift = 31 - exponent;
  if (right_shift < 1 || right_shift > 62) {
    return Error(StrCat(what, ": requantization multiplier ", real, " cannot be encoded"));
  }
  *result = QuantizedMultiplier{static_cast<int32_t>(multiplier), right_shift};
  return MaceStatus();
}

MaceStatus MakeOutputClamp(const Activation& activation, const QuantParams& quant,
                           const std::string& what, OutputClamp* clamp) {
  clamp->zero_point = quant.zero_point;
  clamp->min = 0;
  clamp->max = 255;
  switch (activation.type) {
    case ActivationType::NOOP:
      return MaceStatus();
    case ActivationType::RELU:
      clamp->min = quant.zero_point;
      return MaceStatus();
    case ActivationType::RELUX: {
      clamp->min = quant.zero_point;
      const double top = quant.zero_point + std::round(double{activation.max_limit} / quant.scale);
      if (!(top >= quant.zero_point)) {
        return Error(StrCat(what, ": RELUX limit ", activation.max_limit, " is not usable"));
      }
      if (top < clamp->max) clamp->max = static_cast<int32_t>(top);
      return MaceStatus();
    }
    default:
      return Error(StrCat(what, ": this activation cannot be fused into a uint8 kernel "
                                "(only RELU, RELU6 and RELUX become its output clamp)"));
  }
}

uint8_t QuantizeValue(float real, float scale, int32_t zero_point) {
  const double value = zero_point + std::round(static_cast<double>(real) / scale);
  if (std::isnan(value)) return static_cast<uint8_t>(zero_point);
  if (value <= 0.0) return 0;
  if (value >= 255.0) return 255;
  return static_cast<uint8_t>(value);
}

MaceStatus CheckQuantParams(const Tensor& tensor) {
  const QuantParams& quant = tensor.quant();
  const std::string where = StrCat("tensor '", tensor.name(), "'");
  const DataType dtype = tensor.dtype();
  if (dtype != DT_UINT8 && dtype != DT_INT8) {
    return Error(StrCat(where, " is ", DataTypeName(dtype), " but must be uint8 or int8"));
  }
  if (!quant.channel_scales.empty()) {
    if (dtype != DT_INT8) {
      return Error(StrCat(where, " has per-channel scales but is ", DataTypeName(dtype),
                          "; only int8 weights are quantized per channel"));
    }
    if (tensor.dim_size() < 1 || static_cast<int64_t>(quant.channel_scales.size()) != tensor.dim(0)) {
      return Error(StrCat(where, " has ", quant.channel_scales.size(),
                          " channel scales for shape ", ShapeToString(tensor.shape()),
                          " (needs one per slice of dimension 0)"));
    }
    for (size_t c = 0; c < quant.channel_scales.size(); ++c) {
      if (!FinitePositive(quant.channel_scales[c])) {
        return Error(StrCat(where, " has scale ", quant.channel_scales[c], " for channel ", c,
                            "; scales must be finite and positive"));
      }
    }
  } else if (!FinitePositive(quant.scale)) {
    return Error(StrCat(where, " has scale ", quant.scale,
                        "; scales must be finite and positive"));
  }
  if (dtype == DT_INT8 && quant.zero_point != 0) {
    return Error(StrCat(where, " is int8 with zero point ", quant.zero_point,
                        "; int8 weights are symmetric (zero point 0)"));
  }
  if (dtype == DT_UINT8 && (quant.zero_point < 0 || quant.zero_point > 255)) {
    return Error(StrCat(where, " has zero point ", quant.zero_point,
                        " outside the uint8 range [0, 255]"));
  }
  return MaceStatus();
}

MaceStatus MakeChannelMultipliers(float input_scale, const Tensor& weight, float output_scale,
                                  int64_t channels, std::vector<QuantizedMultiplier>* result) {
  const QuantParams& quant = weight.quant();
  const int64_t count = quant.channel_scales.empty() ? 1 : channels;
  if (!quant.channel_scales.empty() &&
      static_cast<int64_t>(quant.channel_scales.size()) != channels) {
    return Error(StrCat("tensor '", weight.name(), "' has ", quant.channel_scales.size(),
                        " channel scales but the op has ", channels, " output channels"));
  }
  result->assign(count, QuantizedMultiplier());
  for (int64_t c = 0; c < count; ++c) {
    const double real =
        static_cast<double>(input_scale) * ChannelScale(quant, c) / static_cast<double>(output_scale);
    MACE_RETURN_IF_ERROR(MakeQuantizedMultiplier(
        real, StrCat("tensor '", weight.name(), "' channel ", c), &(*result)[c]));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
