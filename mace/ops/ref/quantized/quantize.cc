#include "mace/ops/ref/quantized/quantize.h"

#include "mace/ops/common/quantize.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

void Quantize(const float* input, int64_t count, float scale, int32_t zero_point,
              uint8_t* output) {
  for (int64_t i = 0; i < count; ++i) output[i] = QuantizeValue(input[i], scale, zero_point);
}

void Dequantize(const uint8_t* input, int64_t count, float scale, int32_t zero_point,
                float* output) {
  for (int64_t i = 0; i < count; ++i) output[i] = DequantizeValue(input[i], scale, zero_point);
}

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace
