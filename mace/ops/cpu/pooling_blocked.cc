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
    ParallelFor(pool, planes, [&](int64_t begin, int64_t end) {
      for (int64_t plane = begin; plane < end; ++plane) {
        BlockedWindowRun run;
        run.in = input + plane * in_plane * L;
        run.pos_step = L;
        run.taps = static_cast<int32_t>(in_plane);
        run.tap_offsets = plane_offsets_.data();
        run.mode = mode;
        run.scale = 1.f / static_cast<float>(in_plane);
        run.out = output + plane * L;
        run.positions = 1;
        table_.blocked_window(run);
      }
    });
    return;
  }
  ParallelFor(pool, planes * p.out_h, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t plane = task / p.out_h, y = task % p.out_h;
      BlockedWindowRun run;
      run.in = input + plane * in_plane * L;
      run.pos_step = p.stride_w * L;
      run.mode = mode;
      float* out = output + plane * out_plane * L + y * p.out_w * L;
      ForEachSegment(window_, y, L, [&](const Segment& s) {
        run.taps = s.taps;
        run.tap_offsets = s.tap_offsets;
        const int64_t divisor = p.count_include_pad ? s.padded_taps : s.taps;
        run.scale = divisor > 0 ? 1.f / static_cast<float>(divisor) : 0.f;
        run.positions = s.count;
        run.out = out + s.x0 * L;
        table_.blocked_window(run);
      });
    }
  });
}

}  // namespace ops
}  // namespace mace
