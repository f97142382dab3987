// The direct convolution's runs (cpu/conv_2d_direct_runs.h) on armv7: each
// kernel row's taps walked by two fixed steps (arm/sgemm_neon_armv7.h), 2
// instructions a tap fewer than the offsets form, whole tiles in one
// Armv7ConvRowsRun (sgemm_neon.cc) call.
#include "mace/ops/cpu/conv_2d_direct_runs.h"

#include <algorithm>

#include "mace/ops/arm/sgemm_neon_armv7.h"

namespace mace {
namespace ops {
namespace arm {
// sgemm_neon.cc: NeonConvRows for offsets that come kernel_w taps of a
// kernel row at a time, as PaddedImage lays them out (0: any offsets).
void Armv7ConvRows(int kernel_w, int64_t kc, const float* a, const float* base,
                   const int64_t* offsets, float* c, int64_t ldc, int rows, int cols,
                   const TileEpilogue& epilogue);
// `tiles` whole tiles (rows x 8) along an output row in one call, each 8
// floats on from the one before it in the padded image and in C; false,
// with nothing written, for what Armv7ConvRows would stage (rows other than
// 2, 4 and 6) or run another way (other kernel widths, other epilogues).
// chain: the tap steps Armv7ConvKernelRowsChain gave for these offsets, or
// null. With a chain, out_rows such rows, row_b floats apart in the padded
// image and row_c in C, each ended by a tile tail_back (0 to 7) columns
// before the next whole one (arm::Armv7ConvKernelRowsRows).
bool Armv7ConvRowsRun(int kernel_w, int64_t kc, const float* a, const float* base,
                      const int64_t* offsets, float* c, int64_t ldc, int rows, int tiles,
                      const TileEpilogue& epilogue, const int32_t* chain, int out_rows = 1,
                      int64_t row_b = 0, int64_t row_c = 0, int tail_back = 0);
}  // namespace arm

void PlanDirectRuns(int64_t kc, int kernel_w, const int64_t* offsets, const int64_t*,
                    DirectRunsPlan* plan) {
  // Runs of 6-row tiles walk a 3x3 or 7x7 kernel's taps as one chain where
  // the offsets allow, checked once here rather than per run.
  plan->chain =
      arm::Armv7ConvKernelRowsChain(static_cast<int>(kc), kernel_w, offsets, plan->chain_steps);
}

int64_t DirectSteppedRuns(const DirectRunsTask&, int64_t, int64_t) { return 0; }

bool DirectOffsetRuns(const DirectRunsTask& t, int64_t* task, int64_t* oh, int64_t* ow) {
  const int32_t* chain = t.plan->chain ? t.plan->chain_steps : nullptr;
  // This task's and the next ones' whole tiles in this output row go as one
  // run (a padded row's column ow + nr is nr floats after ow's): a call per
  // tile cost about 100 instructions of set-up. A run's tiles are 8
  // columns; dividing by 8, not by nr, is a shift where a 64-bit division
  // would be a library call per task.
  constexpr int64_t kRunNr = 8;
  // Whole output rows from here on that this thread runs: one call for all
  // of them, each row's ragged end a tile ending at its last column (a call
  // per row and ragged end cost about 300 instructions of set-up).
  if (chain != nullptr && *ow == 0 && t.nr == kRunNr && t.out_w >= kRunNr) {
    int64_t out_rows = 0;
    for (int64_t next = *task + t.segments; next <= t.end; next += t.segments) ++out_rows;
    const int64_t tail = t.out_w % kRunNr;
    if (out_rows > 0 && out_rows < (int64_t{1} << 30) &&
        arm::Armv7ConvRowsRun(t.kernel_w, t.kc, t.a, t.base, t.offsets, t.c, t.ldc, t.rows,
                              static_cast<int>(t.out_w / kRunNr), *t.epilogue, chain,
                              static_cast<int>(out_rows), t.row_b, t.out_w,
                              tail != 0 ? static_cast<int>(kRunNr - tail) : 0)) {
      // The last task run: its last row's last segment.
      *task += out_rows * t.segments - 1;
      *oh += out_rows - 1;
      *ow = (t.segments - 1) * t.nr;
      return true;
    }
  }
  const int64_t whole =
      t.nr == kRunNr ? std::min<int64_t>((t.out_w - *ow) / kRunNr, t.end - *task) : 0;
  // A row's ragged last segment whose row this thread ran the segment
  // before: one whole tile ending at the row's last column, which rewrites
  // the columns before it with the values they hold, where staging its part
  // of a tile cost about 200 instructions more (SqueezeNet 1.1's 111
  // columns: 1,221 such tiles). Another thread's columns are not rewritten.
  const bool ragged_end = t.nr == kRunNr && whole == 0 && *task > t.begin && *ow > 0;
  const int64_t back = ragged_end ? kRunNr - t.cols : 0;
  const auto run = [&](int64_t tiles, int64_t shift) {
    return arm::Armv7ConvRowsRun(t.kernel_w, t.kc, t.a, t.base - shift, t.offsets, t.c - shift,
                                 t.ldc, t.rows, static_cast<int>(tiles), *t.epilogue, chain);
  };
  if (whole >= 1 && run(whole, 0)) {
    *task += whole - 1;
    *ow += (whole - 1) * t.nr;
  } else if (!(ragged_end && run(1, back))) {
    arm::Armv7ConvRows(t.kernel_w, t.kc, t.a, t.base, t.offsets, t.c, t.ldc, t.rows, t.cols,
                       *t.epilogue);
  }
  return true;
}

}  // namespace ops
}  // namespace mace
