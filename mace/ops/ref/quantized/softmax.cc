#include "mace/ops/ref/quantized/softmax.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

SoftmaxTable MakeSoftmaxTable(float input_scale) {
  SoftmaxTable table;
  for (int d = 0; d < 256; ++d) {
    table[d] = static_cast<uint32_t>(
        std::llround(std::exp(-static_cast<double>(input_scale) * d) * (1 << kSoftmaxTableBits)));
  }
  return table;
}

void Softmax(const SoftmaxParams& p, const SoftmaxTable& table, const uint8_t* input,
             uint8_t* output) {
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const int64_t base = o * p.axis_size * p.inner + i;
      uint8_t max = 0;
      for (int64_t a = 0; a < p.axis_size; ++a) max = std::max(max, input[base + a * p.inner]);
      uint64_t sum = 0;
      for (int64_t a = 0; a < p.axis_size; ++a) sum += table[max - input[base + a * p.inner]];
      // sum >= table[0] = 2^24, so the division is safe.
      for (int64_t a = 0; a < p.axis_size; ++a) {
        const uint64_t term = table[max - input[base + a * p.inner]];
        const uint64_t value = (term * 512 + sum) / (2 * sum);
        output[base + a * p.inner] = static_cast<uint8_t>(std::min<uint64_t>(value, 255));
      }
    }
  }
}

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace
