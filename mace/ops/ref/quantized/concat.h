// Reference uint8 Concat. The data are seen as [outer, axis * inner], as in
// ref::Concat. An input quantized like the output is copied; any other is
// rescaled value by value: output_zero_point + Requantize(q - zero_point,
// input_scale / output_scale), clamped to [0, 255].
#ifndef MACE_OPS_REF_QUANTIZED_CONCAT_H_
#define MACE_OPS_REF_QUANTIZED_CONCAT_H_

#include <cstdint>
#include <vector>

#include "mace/ops/common/quantize.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

struct ConcatInput {
  const uint8_t* data = nullptr;
  int64_t run = 0;  // elements per outer index: its axis dimension x inner
  bool rescale = false;
  int32_t zero_point = 0;
  QuantizedMultiplier multiplier;  // input_scale / output_scale, if rescale
};

void Concat(int64_t outer, const std::vector<ConcatInput>& inputs, int32_t output_zero_point,
            uint8_t* output);

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QUANTIZED_CONCAT_H_
