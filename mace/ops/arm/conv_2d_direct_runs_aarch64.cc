// The direct convolution's runs (cpu/conv_2d_direct_runs.h) on arm64: a
// task's and the next ones' whole 8 x 12 tiles with stepped taps in one
// NeonConvRowsRun (sgemm_neon.cc) call.
#include "mace/ops/cpu/conv_2d_direct_runs.h"

#include <algorithm>

namespace mace {
namespace ops {
namespace arm {
// sgemm_neon.cc: `tiles` whole 8 x 12 tiles along an output row in one
// call, each 12 floats on from the one before it in B's rows and in C;
// false, with nothing written, for what NeonConvRowsStepped would stage
// (fewer than 8 rows, a column bias, hard-swish). steps_repeat9: steps[k] ==
// steps[k + 9] for every k + 9 < kc - 1 (a 3x3 kernel's taps, the
// channels' planes equally far apart), which a 27-deep stem then holds in
// registers.
// tail: in, the columns (1 to 4, or 0 for none) of a last tile (in this
// task range) that follows the run to end the row; out, those columns if
// it was run with it (the 27-deep stems), else 0.
bool NeonConvRowsRun(int64_t kc, const float* a, const float* first, const int64_t* steps,
                     bool steps_repeat9, float* c, int64_t ldc, int rows, int64_t tiles,
                     int* tail, const TileEpilogue& epilogue);
}  // namespace arm

void PlanDirectRuns(int64_t kc, int, const int64_t*, const int64_t* steps,
                    DirectRunsPlan* plan) {
  bool steps_repeat9 = steps != nullptr;
  for (int64_t k = 0; steps_repeat9 && k + 9 < kc - 1; ++k) {
    steps_repeat9 = steps[k] == steps[k + 9];
  }
  plan->steps_repeat9 = steps_repeat9;
}

int64_t DirectSteppedRuns(const DirectRunsTask& t, int64_t task, int64_t ow) {
  // This task's and the next ones' whole tiles in this output row go as
  // one run (a padded row's column ow + nr is nr floats after ow's),
  // sparing each tile the call's set-up.
  constexpr int kRunNr = 12;
  const int64_t whole =
      t.nr == kRunNr ? std::min<int64_t>((t.out_w - ow) / kRunNr, t.end - task) : 0;
  const int64_t rest = t.out_w - ow - whole * kRunNr;
  int tail = whole > 0 && rest <= 4 && task + whole < t.end ? static_cast<int>(rest) : 0;
  if (whole > 0 && arm::NeonConvRowsRun(t.kc, t.a, t.first, t.steps, t.plan->steps_repeat9, t.c,
                                        t.ldc, t.rows, whole, &tail, *t.epilogue)) {
    return whole + (tail > 0 ? 1 : 0);
  }
  return 0;
}

bool DirectOffsetRuns(const DirectRunsTask&, int64_t*, int64_t*, int64_t*) { return false; }

}  // namespace ops
}  // namespace mace
