// Reference float <-> uint8 conversion (the Quantize and Dequantize ops),
// value by value with common/quantize.h's QuantizeValue and DequantizeValue.
#ifndef MACE_OPS_REF_QUANTIZED_QUANTIZE_H_
#define MACE_OPS_REF_QUANTIZED_QUANTIZE_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

void Quantize(const float* input, int64_t count, float scale, int32_t zero_point,
              uint8_t* output);
void Dequantize(const uint8_t* input, int64_t count, float scale, int32_t zero_point,
                float* output);

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QUANTIZED_QUANTIZE_H_
