#include "mace/ops/ref/softmax.h"

#include <cmath>

namespace mace {
namespace ops {
namespace ref {

void Softmax(const SoftmaxParams& p, const float* input, float* output) {
  for (int64_t n = 0; n < p.outer; ++n) {
    for (int64_t i = 0; i < p.inner; ++i) {
      // One slice along the axis: its elements are `inner` apart.
      const int64_t base = n * p.axis_size * p.inner + i;
      double max_value = input[base];
      for (int64_t k = 1; k < p.axis_size; ++k) {
        max_value = std::fmax(max_value, input[base + k * p.inner]);
      }
      // In double: the sum of thousands of terms keeps full float accuracy.
      double sum = 0.0;
      for (int64_t k = 0; k < p.axis_size; ++k) {
        sum += std::exp(input[base + k * p.inner] - max_value);
      }
      const double log_sum = std::log(sum);
      for (int64_t k = 0; k < p.axis_size; ++k) {
        const int64_t index = base + k * p.inner;
        const double shifted = input[index] - max_value;
        output[index] = static_cast<float>(p.use_log ? shifted - log_sum : std::exp(shifted) / sum);
      }
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
