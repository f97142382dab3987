#include "mace/ops/ref/quantized/eltwise.h"

#include <algorithm>

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

MaceStatus MakeEltwiseQuantization(EltwiseKind kind, const QuantParams& input0,
                                   const QuantParams& input1, const QuantParams& output,
                                   const std::string& what, EltwiseQuantization* quant) {
  quant->kind = kind;
  quant->zero_point0 = input0.zero_point;
  quant->zero_point1 = input1.zero_point;
  quant->output = OutputClamp{output.zero_point, 0, 255};
  if (kind == EltwiseKind::kMul) {
    return MakeQuantizedMultiplier(
        static_cast<double>(input0.scale) * input1.scale / output.scale, what,
        &quant->output_multiplier);
  }
  const double twice_max = 2.0 * std::max(input0.scale, input1.scale);
  MACE_RETURN_IF_ERROR(MakeQuantizedMultiplier(input0.scale / twice_max, what, &quant->multiplier0));
  MACE_RETURN_IF_ERROR(MakeQuantizedMultiplier(input1.scale / twice_max, what, &quant->multiplier1));
  return MakeQuantizedMultiplier(
      twice_max / (static_cast<double>(int64_t{1} << kEltwiseLeftShift) * output.scale), what,
      &quant->output_multiplier);
}

void Eltwise(const EltwiseQuantization& quant, const uint8_t* input0, const uint8_t* input1,
             int64_t count, int64_t input1_count, uint8_t* output) {
  for (int64_t i = 0; i < count; ++i) {
    const int32_t a = int32_t{input0[i]} - quant.zero_point0;
    const int32_t b = int32_t{input1[input1_count == 1 ? 0 : i]} - quant.zero_point1;
    int32_t combined = 0;
    if (quant.kind == EltwiseKind::kMul) {
      combined = a * b;
    } else {
      const int64_t scaled_a = Requantize(a * (int32_t{1} << kEltwiseLeftShift), quant.multiplier0);
      const int64_t scaled_b = Requantize(b * (int32_t{1} << kEltwiseLeftShift), quant.multiplier1);
      combined = static_cast<int32_t>(quant.kind == EltwiseKind::kAdd ? scaled_a + scaled_b
                                                                      : scaled_a - scaled_b);
    }
    output[i] = RequantizeToUint8(combined, quant.output_multiplier, quant.output);
  }
}

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace
