#include "mace/ops/cpu/conv_2d_direct_runs.h"

namespace mace {
namespace ops {

void PlanDirectRuns(int64_t, int, const int64_t*, const int64_t*, DirectRunsPlan*) {}

int64_t DirectSteppedRuns(const DirectRunsTask&, int64_t, int64_t) { return 0; }

bool DirectOffsetRuns(const DirectRunsTask&, int64_t*, int64_t*, int64_t*) { return false; }

}  // namespace ops
}  // namespace mace
