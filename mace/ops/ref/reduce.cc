#include "mace/ops/ref/reduce.h"

#include <cmath>
#include <limits>

namespace mace {
namespace ops {
namespace ref {
namespace {

int64_t Product(const std::vector<int64_t>& sizes) {
  int64_t count = 1;
  for (int64_t d : sizes) count *= d;
  return count;
}

// Input offset of the `index`-th element in row-major order over `sizes`.
int64_t Offset(int64_t index, const std::vector<int64_t>& sizes,
               const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t i = sizes.size(); i-- > 0;) {
    offset += (index % sizes[i]) * strides[i];
    index /= sizes[i];
  }
  return offset;
}

}  // namespace

void Reduce(const ReduceParams& p, const float* input, float* output) {
  const int64_t out_count = Product(p.kept_sizes);
  const int64_t reduce_count = Product(p.reduced_sizes);
  if (reduce_count == 0) {
    // ONNX's reductions of no elements: each type's identity, and MEAN 0 / 0.
    const float inf = std::numeric_limits<float>::infinity();
    const float empty = p.type == ReduceType::MIN    ? inf
                        : p.type == ReduceType::MAX  ? -inf
                        : p.type == ReduceType::PROD ? 1.f
                        : p.type == ReduceType::SUM  ? 0.f
                                                     : std::numeric_limits<float>::quiet_NaN();
    for (int64_t o = 0; o < out_count; ++o) output[o] = empty;
    return;
  }
  for (int64_t o = 0; o < out_count; ++o) {
    const float* base = input + Offset(o, p.kept_sizes, p.kept_strides);
    if (p.type == ReduceType::MIN || p.type == ReduceType::MAX) {
      float best = base[0];
      for (int64_t r = 1; r < reduce_count; ++r) {
        const float v = base[Offset(r, p.reduced_sizes, p.reduced_strides)];
        // Once best is NaN no comparison replaces it, so NaN propagates.
        const bool better = p.type == ReduceType::MIN ? v < best : v > best;
        if (std::isnan(v) || better) best = v;
      }
      output[o] = best;
      continue;
    }
    double acc = p.type == ReduceType::PROD ? 1.0 : 0.0;
    for (int64_t r = 0; r < reduce_count; ++r) {
      const double v = base[Offset(r, p.reduced_sizes, p.reduced_strides)];
      acc = p.type == ReduceType::PROD ? acc * v : acc + v;
    }
    if (p.type == ReduceType::MEAN) acc /= static_cast<double>(reduce_count);
    output[o] = static_cast<float>(acc);
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
