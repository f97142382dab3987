// The ARM builds' runs of the direct convolution (conv_2d_direct.cc): a
// thread's whole tiles along output rows in one call of a NEON kernel,
// where the table's conv_rows_stepped or conv_rows take a call per tile.
// The portable versions (conv_2d_direct_runs.cc) run none; arm64 runs the
// stepped taps (arm/conv_2d_direct_runs_aarch64.cc), armv7 the offset ones
// (arm/conv_2d_direct_runs_armv7.cc). Only for a table whose kernels are
// these NEON ones (KernelIsa::kNeon).
#ifndef MACE_OPS_CPU_CONV_2D_DIRECT_RUNS_H_
#define MACE_OPS_CPU_CONV_2D_DIRECT_RUNS_H_

#include <cstdint>

#include "mace/ops/cpu/micro_kernels.h"

namespace mace {
namespace ops {

// What a Run finds once from the filter's tap offsets and steps.
struct DirectRunsPlan {
  bool steps_repeat9 = false;  // arm64: see NeonConvRowsRun
  bool chain = false;  // armv7: chain_steps holds a chain
  int32_t chain_steps[4] = {};
};

// `plan` for a kc-deep reduction; `steps` null for offset taps.
void PlanDirectRuns(int64_t kc, int kernel_w, const int64_t* offsets, const int64_t* steps,
                    DirectRunsPlan* plan);

// One task (output row oh, columns from ow) of a thread's range [begin,
// end) of (row, nr-column segment) tasks, and the tiles' operands.
struct DirectRunsTask {
  const DirectRunsPlan* plan;
  int64_t kc;
  int kernel_w, nr, rows, cols;
  const float* a;          // the filter panel
  const float* base;       // the padded image at (oh, ow)
  const int64_t* offsets;  // tap offsets
  const float* first;      // stepped taps: base + the first offset
  const int64_t* steps;    // stepped taps
  float* c;
  int64_t ldc, out_w, segments, row_b;  // row_b: padded image row stride
  int64_t begin, end;
  const TileEpilogue* epilogue;
};

// Stepped taps: the tasks from `task` on that one run did (a task's whole
// tiles and maybe a tail tile), 0 for none: the caller runs the tile.
int64_t DirectSteppedRuns(const DirectRunsTask& t, int64_t task, int64_t ow);

// Offset taps: whether this ran the task (and maybe more), with *task,
// *oh and *ow moved to the last task it ran.
bool DirectOffsetRuns(const DirectRunsTask& t, int64_t* task, int64_t* oh, int64_t* ow);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_DIRECT_RUNS_H_
