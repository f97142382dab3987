#include "mace/ops/ref/transpose.h"

#include <cstring>

namespace mace {
namespace ops {
namespace ref {
namespace {

// Distance, in elements, between neighbours along `dim` of a row-major shape.
int64_t RowMajorStride(const std::vector<int64_t>& shape, int64_t dim) {
  int64_t stride = 1;
  for (size_t d = dim + 1; d < shape.size(); ++d) stride *= shape[d];
  return stride;
}

}  // namespace

void Transpose(const TransposeParams& p, const void* input, void* output) {
  const int rank = static_cast<int>(p.perm.size());
  int64_t count = 1;
  for (int64_t d : p.input_shape) count *= d;
  const unsigned char* in = static_cast<const unsigned char*>(input);
  unsigned char* out = static_cast<unsigned char*>(output);
  for (int64_t flat = 0; flat < count; ++flat) {
    // Peel the output coordinates innermost first. Output coordinate d is the
    // coordinate along input dimension perm[d].
    int64_t rest = flat, source = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t extent = p.input_shape[p.perm[d]];
      source += (rest % extent) * RowMajorStride(p.input_shape, p.perm[d]);
      rest /= extent;
    }
    std::memcpy(out + flat * p.element_size, in + source * p.element_size, p.element_size);
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
