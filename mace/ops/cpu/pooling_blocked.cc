#include "mace/ops/cpu/pooling_blocked.h"

#include <algorithm>

namespace mace {
namespace ops {

bool BlockedPooling::Supports(const KernelTable& table, const ref::PoolingParams& params,
                              bool global) {
  return table.blocked_window != nullptr &&
         (global || params.kernel_h * params.kernel_w <= kMaxBlockedTaps);
}

BlockedPooling::BlockedPooling(const KernelTable& table, const ref::PoolingParams& params,
                               bool global)
    : table_(table),
      params_(params),
      window_(WindowOf(params)),
      global_(global),
      block_(table.channel_block) {
  window_.pad_bottom = params.pad_bottom;
  window_.pad_right = params.pad_right;
  if (!global) plan_ = WindowPlan(window_, block_, /*merge_edges=*/false);
  if (global) {
    plane_offsets_.resize(params.in_h * params.in_w);
    for (int64_t i = 0; i < static_cast<int64_t>(plane_offsets_.size()); ++i) {
      plane_offsets_[i] = i * block_;
    }
  }
}

void BlockedPooling::Run(const float* input, float* output, ThreadPool* pool) const {
  const ref::PoolingParams& p = params_;
  const int64_t L = block_;
  const int64_t planes = p.batch * BlockCount(p.channels, block_);
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int32_t mode = p.type == ref::PoolingType::MAX ? kBlockedMax : kBlockedAverage;
  if (global_) {
    // A thread's planes are one run, each plane a position of it: their
    // single outputs lie side by side, and the kernel's tiles then keep
    // several planes' sums apart. One plane at a time was one chain of
    // dependent adds per block (49 of them on a 7x7 map).
    ParallelFor(pool, planes, [&](int64_t begin, int64_t end) {
      BlockedWindowRun run;
      run.in = input + begin * in_plane * L;
      run.pos_step = in_plane * L;
      run.taps = static_cast<int32_t>(in_plane);
      run.tap_offsets = plane_offsets_.data();
      run.mode = mode;
      run.scale = 1.f / static_cast<float>(in_plane);
      run.out = output + begin * L;
      run.positions = end - begin;
      table_.blocked_window(run);
    });
    return;
  }
  const int64_t band = BandRows(p.out_h, p.out_w);
  const int64_t bands = (p.out_h + band - 1) / band;
  const int64_t blocks = BlockCount(p.channels, block_);
  // A large input (a stem's output) is read last written first, as the
  // depthwise layers read theirs (see WindowTaskAt).
  const bool last_first =
      planes * in_plane * L * static_cast<int64_t>(sizeof(float)) >= kLastFirstBytes;
  ParallelFor(pool, planes * bands, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const WindowTask t = WindowTaskAt(i, begin, end, blocks, bands, band, last_first);
      const int64_t plane = t.image * blocks + t.block;
      RunRows(input + plane * in_plane * L, 0, t.y0, std::min(t.y0 + band, p.out_h),
              output + plane * out_plane * L);
    }
  });
}

void BlockedPooling::RunRows(const float* in_rows, int64_t r0, int64_t y0, int64_t y1,
                             float* out_plane) const {
  const ref::PoolingParams& p = params_;
  BlockedWindowRun run;
  // The plan's offsets count from the plane's first row: the plane whose
  // row r0 is `in_rows`, of which only the rows held are read.
  run.in = in_rows - r0 * p.in_w * block_;
  run.mode = p.type == ref::PoolingType::MAX ? kBlockedMax : kBlockedAverage;
  RunWindowBand(window_, plan_, table_.blocked_window, block_, y0, y1, run, out_plane,
                [&](BlockedWindowRun* r, const Segment& s) {
                  const int64_t divisor = p.count_include_pad ? s.padded_taps : s.taps;
                  r->scale = divisor > 0 ? 1.f / static_cast<float>(divisor) : 0.f;
                });
}

}  // namespace ops
}  // namespace mace
