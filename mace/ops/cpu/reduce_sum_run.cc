#include "mace/ops/cpu/reduce_sum_run.h"

namespace mace {
namespace ops {

double SumRun(const float* values, int64_t run) {
  // Four double accumulators: the adds overlap instead of waiting on one
  // another, and double keeps the sum as exact as the reference's.
  double sums[4] = {0.0, 0.0, 0.0, 0.0};
  int64_t r = 0;
  for (; r + 4 <= run; r += 4) {
    for (int j = 0; j < 4; ++j) sums[j] += values[r + j];
  }
  for (; r < run; ++r) sums[0] += values[r];
  return (sums[0] + sums[1]) + (sums[2] + sums[3]);
}

}  // namespace ops
}  // namespace mace
