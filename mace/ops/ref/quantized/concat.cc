#include "mace/ops/ref/quantized/concat.h"

#include <cstring>

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

void Concat(int64_t outer, const std::vector<ConcatInput>& inputs, int32_t output_zero_point,
            uint8_t* output) {
  const OutputClamp clamp{output_zero_point, 0, 255};
  for (int64_t o = 0; o < outer; ++o) {
    for (const ConcatInput& input : inputs) {
      const uint8_t* from = input.data + o * input.run;
      if (!input.rescale) {
        std::memcpy(output, from, input.run);
      } else {
        for (int64_t i = 0; i < input.run; ++i) {
          output[i] = RequantizeToUint8(int32_t{from[i]} - input.zero_point, input.multiplier, clamp);
        }
      }
      output += input.run;
    }
  }
}

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace
