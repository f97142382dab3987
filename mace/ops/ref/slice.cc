#include "mace/ops/ref/slice.h"

#include <cstring>

namespace mace {
namespace ops {
namespace ref {

void Slice(const SliceParams& p, const void* input, void* output) {
  const int rank = static_cast<int>(p.output_shape.size());
  int64_t count = 1;
  for (int64_t d : p.output_shape) count *= d;
  const unsigned char* in = static_cast<const unsigned char*>(input);
  unsigned char* out = static_cast<unsigned char*>(output);
  for (int64_t flat = 0; flat < count; ++flat) {
    // Peel the output coordinates innermost first, mapping each to its input
    // index; `stride` is the row-major input stride of dimension d.
    int64_t rest = flat, source = 0, stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t coordinate = rest % p.output_shape[d];
      rest /= p.output_shape[d];
      source += (p.starts[d] + coordinate * p.steps[d]) * stride;
      stride *= p.input_shape[d];
    }
    std::memcpy(out + flat * p.element_size, in + source * p.element_size, p.element_size);
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
