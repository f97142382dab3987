#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"

#include <algorithm>

#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {

namespace {

// Whether a row's taps come in rows of three adjacent columns at a stride
// the kernels' row path has (blocked_kernels.inc).
bool RowsOfThree(const ref::DepthwiseConv2dParams& p) {
  return p.kernel_w == 3 && p.dilation_w == 1 && (p.stride_w == 1 || p.stride_w == 2);
}

}  // namespace

bool BlockedDepthwise::Supports(const KernelTable& table,
                                const ref::DepthwiseConv2dParams& params) {
  return table.blocked_window != nullptr && params.multiplier == 1 &&
         params.kernel_h * params.kernel_w <= kMaxBlockedTaps;
}

BlockedDepthwise::BlockedDepthwise(const KernelTable& table,
                                   const ref::DepthwiseConv2dParams& params, const float* filter,
                                   const float* bias, PersistentArena* arena)
    : table_(table), params_(params), window_(WindowOf(params)), block_(table.channel_block) {
  separate_activation_ = !FuseActivation(params.activation, &epilogue_);
  // The rows-of-three path (see Run) reads a row's padded edge columns as
  // zero, so a row is one segment instead of an edge column on each side.
  plan_ = WindowPlan(window_, block_, RowsOfThree(params));
  const int64_t taps = params.kernel_h * params.kernel_w;
  weights_.Allocate(BlockCount(params.channels, block_) * taps * block_, arena);
  for (int64_t c = 0; c < params.channels; ++c) {
    for (int64_t t = 0; t < taps; ++t) {
      weights_[((c / block_) * taps + t) * block_ + c % block_] = filter[c * taps + t];
    }
  }
  PadToBlocks(bias, params.channels, block_, arena, &bias_);
}

void BlockedDepthwise::RunPlaneRows(const float* in_plane, int64_t block, int64_t y0,
                                    int64_t y1, float* out_plane) const {
  const int64_t L = block_, taps = params_.kernel_h * params_.kernel_w;
  const bool rows_of_three = RowsOfThree(params_);
  BlockedWindowRun run;
  run.in = in_plane;
  run.weights = weights_.data() + block * taps * L;
  run.bias = bias_.data() + block * L;
  run.mode = kBlockedDepthwise;
  run.epilogue = epilogue_;
  RunWindowBand(window_, plan_, table_.blocked_window, L, y0, y1, run, out_plane,
                [&](BlockedWindowRun* r, const Segment& s) {
                  r->row_taps = rows_of_three && s.taps == 3 * s.rows ? 3 : 0;
                });
}

void BlockedDepthwise::RunRows(const float* image, int64_t block, int64_t y0, int64_t y1,
                               float* rows) const {
  RunRowsFrom(image + block * params_.in_h * params_.in_w * block_, 0, block, y0, y1, rows);
}

void BlockedDepthwise::RunRowsFrom(const float* plane_rows, int64_t first_row, int64_t block,
                                   int64_t y0, int64_t y1, float* rows) const {
  const int64_t L = block_, in_row = params_.in_w * L, out_row = params_.out_w * L;
  // The kernels read input row r at in_plane + r * in_row and write output
  // row y at out_plane + y * out_row: the planes whose rows first_row and
  // y0 are `plane_rows` and `rows`.
  RunPlaneRows(plane_rows - first_row * in_row, block, y0, y1, rows - y0 * out_row);
}

void BlockedDepthwise::Run(const float* input, float* output, ThreadPool* pool) const {
  const ref::DepthwiseConv2dParams& p = params_;
  const int64_t L = block_;
  const int64_t blocks = BlockCount(p.channels, block_);
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int64_t band = BandRows(p.out_h, p.out_w);
  const int64_t bands = (p.out_h + band - 1) / band;
  // The layer before wrote the input in bands of rows over every block, and
  // what it wrote last is what is still in L2. When the input is larger
  // than that, a thread goes through its tasks in the reverse order, so
  // that it reads those rows before its own misses evict them: MobileNet
  // v1's stride-2 layer on 64 x 112 x 112 (3.2 MB) ran 15-20 % faster; on
  // inputs that fit it gained nothing.
  const bool last_first =
      p.batch * blocks * in_plane * L * static_cast<int64_t>(sizeof(float)) >= kLastFirstBytes;
  ParallelFor(pool, p.batch * blocks * bands, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const WindowTask t = WindowTaskAt(i, begin, end, blocks, bands, band, last_first);
      const int64_t plane = t.image * blocks + t.block;
      RunPlaneRows(input + plane * in_plane * L, t.block, t.y0, std::min(t.y0 + band, p.out_h),
                   output + plane * out_plane * L);
    }
  });
  if (separate_activation_) {
    ApplyActivation(p.activation, output, p.batch * blocks * out_plane * L, pool);
  }
}

}  // namespace ops
}  // namespace mace
