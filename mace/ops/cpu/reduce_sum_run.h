// The sum of one contiguous run of floats for Reduce's CPU kernel
// (reduce_cpu.cc), in double precision as the reference sums: four double
// accumulators taking values r, r + 1, r + 2, r + 3 in turn, the values
// past the last whole four added to the first, and the four added as
// (s0 + s1) + (s2 + s3). Each port's definition does those adds in that
// order (reduce_sum_run.cc, and the file of a port with its own).
#ifndef MACE_OPS_CPU_REDUCE_SUM_RUN_H_
#define MACE_OPS_CPU_REDUCE_SUM_RUN_H_

#include <cstdint>

namespace mace {
namespace ops {

double SumRun(const float* values, int64_t run);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_REDUCE_SUM_RUN_H_
