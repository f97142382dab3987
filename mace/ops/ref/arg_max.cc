#include "mace/ops/ref/arg_max.h"

#include <cmath>

namespace mace {
namespace ops {
namespace ref {
namespace {

// -1, 0 or 1 as a is below, tied with or above b, with NaN above everything
// and tied with itself: a total order, so "first/last maximum" is well defined.
int Compare(float a, float b) {
  const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
  if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

}  // namespace

void ArgMax(const ArgMaxParams& p, const float* input, int32_t* output) {
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const float* line = input + o * p.axis_size * p.inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < p.axis_size; ++k) {
        const int order = Compare(line[k * p.inner], line[best * p.inner]);
        if (order > 0 || (order == 0 && p.select_last_index)) best = k;
      }
      output[o * p.inner + i] = static_cast<int32_t>(best);
    }
  }
}

}  // namespace ref
}  // namespace ops
}  // namespace mace
