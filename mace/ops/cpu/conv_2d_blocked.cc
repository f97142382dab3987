#include "mace/ops/cpu/conv_2d_blocked.h"

#include <algorithm>

#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {
namespace {

// Positions per task of a 1x1 convolution: a multiple of every kernel's tile
// (8, 6 and 4 positions).
constexpr int64_t kPointwiseChunk = 48;
// Input channels per part of a 1x1 convolution's reduction.
constexpr int64_t kReductionPart = 128;

}  // namespace

bool BlockedConv2d::Supports(const KernelTable& table, const ref::Conv2DParams& params) {
  return table.blocked_conv != nullptr && params.group == 1 &&
         params.kernel_h * params.kernel_w <= kMaxBlockedTaps;
}

BlockedConv2d::BlockedConv2d(const KernelTable& table, const ref::Conv2DParams& params,
                             const float* filter, const float* bias, bool blocked_input)
    : table_(table),
      params_(params),
      window_(WindowOf(params)),
      blocked_input_(blocked_input),
      pointwise_(params.kernel_h == 1 && params.kernel_w == 1 && params.stride_h == 1 &&
                 params.stride_w == 1 && params.pad_top == 0 && params.pad_left == 0 &&
                 params.out_h == params.in_h && params.out_w == params.in_w),
      block_(table.channel_block),
      out_blocks_(BlockCount(params.out_channels, table.channel_block)),
      groups_((out_blocks_ + table.blocked_conv_blocks - 1) / table.blocked_conv_blocks) {
  separate_activation_ = !FuseActivation(params.activation, &epilogue_);
  const int64_t channels = params.in_channels;
  const int64_t taps = params.kernel_h * params.kernel_w;
  weights_.assign(out_blocks_ * channels * taps * block_, 0.f);
  for (int64_t o = 0; o < params.out_channels; ++o) {
    const int64_t ob = o / block_, lane = o % block_;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t t = 0; t < taps; ++t) {
        weights_[((ob * channels + c) * taps + t) * block_ + lane] =
            filter[(o * channels + c) * taps + t];
      }
    }
  }
  bias_ = PadToBlocks(bias, params.out_channels, block_);
  const int64_t plane = params.in_h * params.in_w;
  channel_offsets_.resize(channels);
  for (int64_t c = 0; c < channels; ++c) {
    channel_offsets_[c] = blocked_input ? (c / block_) * plane * block_ + c % block_ : c * plane;
  }
}

void BlockedConv2d::Run(const float* input, float* output, ThreadPool* pool) const {
  const ref::Conv2DParams& p = params_;
  const int64_t L = block_;
  const int64_t pos_mul = blocked_input_ ? L : 1;
  const int64_t in_plane = p.in_h * p.in_w;
  const int64_t out_plane = p.out_h * p.out_w;
  const int64_t in_batch =
      blocked_input_ ? BlockCount(p.in_channels, block_) * in_plane * L : p.in_channels * in_plane;
  const int64_t out_batch = out_blocks_ * out_plane * L;
  const int64_t group_blocks = table_.blocked_conv_blocks;
  // Pointwise chunks split the plane evenly, in whole 8-position tiles where
  // they can: a chunk of one or two positions would stream its weights once
  // more for almost nothing.
  const int64_t chunks = pointwise_ ? (out_plane + kPointwiseChunk - 1) / kPointwiseChunk : p.out_h;
  const int64_t chunk_size = std::min(out_plane, ((out_plane + chunks - 1) / chunks + 7) / 8 * 8);
  const int64_t taps = p.kernel_h * p.kernel_w;
  const bool weights_major = static_cast<int64_t>(weights_.size()) >= in_batch;
  ParallelFor(pool, p.batch * groups_ * chunks, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / (groups_ * chunks);
      // A thread's consecutive tasks share what is larger, the weights or the
      // input, so that it stays in cache: a group of output blocks over its
      // chunks, or a chunk of positions over every group.
      const int64_t g = weights_major ? task / chunks % groups_ : task % groups_;
      const int64_t chunk = weights_major ? task % chunks : task / groups_ % chunks;
      BlockedConvRun run;
      run.in = input + n * in_batch;
      run.channels = p.in_channels;
      run.channel_offsets = channel_offsets_.data();
      run.kernel_taps = static_cast<int32_t>(taps);
      run.weight_block_stride = p.in_channels * taps * L;
      const float* weights = weights_.data() + g * group_blocks * run.weight_block_stride;
      run.weights = weights;
      run.bias = bias_.data() + g * group_blocks * L;
      run.out_block_stride = out_plane * L;
      run.blocks = static_cast<int32_t>(std::min(group_blocks, out_blocks_ - g * group_blocks));
      run.epilogue = epilogue_;
      run.blocked_input = blocked_input_;
      float* out = output + n * out_batch + g * group_blocks * out_plane * L;
      if (pointwise_) {
        const int64_t p0 = chunk * chunk_size;
        if (p0 >= out_plane) continue;
        const int64_t tap_offset = p0 * pos_mul;
        const int32_t tap_index = 0;
        run.taps = 1;
        run.tap_offsets = &tap_offset;
        run.tap_index = &tap_index;
        run.pos_step = pos_mul;
        run.positions = std::min(chunk_size, out_plane - p0);
        run.out = out + p0 * L;
        // Long reductions go in parts, so that a part's weights stay in
        // cache across the chunk's tiles.
        for (int64_t c0 = 0; c0 < p.in_channels; c0 += kReductionPart) {
          run.channels = std::min(kReductionPart, p.in_channels - c0);
          run.channel_offsets = channel_offsets_.data() + c0;
          run.weights = weights + c0 * taps * L;
          run.epilogue.accumulate = c0 > 0;
          run.epilogue.last = c0 + run.channels == p.in_channels;
          table_.blocked_conv(run);
        }
        continue;
      }
      const int64_t y = chunk;
      run.pos_step = p.stride_w * pos_mul;
      ForEachSegment(window_, y, pos_mul, [&](const Segment& s) {
        run.taps = s.taps;
        run.tap_offsets = s.tap_offsets;
        run.tap_index = s.tap_index;
        run.positions = s.count;
        run.out = out + (y * p.out_w + s.x0) * L;
        table_.blocked_conv(run);
      });
    }
  });
  if (separate_activation_) {
    ApplyActivation(p.activation, output, p.batch * out_batch, pool);
  }
}

}  // namespace ops
}  // namespace mace
