#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"

#include <algorithm>

#include "mace/ops/cpu/fused_activation.h"
#include "mace/runtimes/cpu/cpu_tunables.h"

namespace mace {
namespace ops {

namespace {

// One thread's band of depthwise output: small enough to stay in L2 with
// the rows the band reads and the 1x1 outputs it writes.
constexpr int64_t kBandBytes = 128 << 10;
// With the expansion fused, a band's depthwise output and the expanded
// rows it reads together.
constexpr int64_t kExpandBandBytes = 256 << 10;
// 1x1 positions per tile run: their inputs over every channel stay in L1
// while the output block groups go over them.
constexpr int64_t kChunk = 48;
// Input channels per part of the 1x1 reduction, as the blocked 1x1 layers.
constexpr int64_t kReductionPart = 128;
// Floats per cache line, the unit of a prefetch.
constexpr int64_t kLineFloats = 64 / sizeof(float);
// Bands per thread when the rows allow: fewer leave a thread idle at the end.
constexpr int64_t kBandsPerThread = 2;

// A 1x1 convolution over a whole map: stride 1, no padding, ungrouped,
// with an activation the tiles fuse.
bool PlainPointwise(const ref::Conv2DParams& p) {
  TileEpilogue unused;
  return FuseActivation(p.activation, &unused) && p.group == 1 && p.kernel_h == 1 &&
         p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
         p.pad_left == 0 && p.out_h == p.in_h && p.out_w == p.in_w;
}

// Floats per thread rounded up to whole cache lines, so that threads'
// buffers never share one.
int64_t CacheLines(int64_t floats) { return (floats + 31) / 32 * 32; }

// Depthwise output rows per task: `row_bytes` per output row.
int64_t RowsInBudget(const ref::DepthwiseConv2dParams& dw, int64_t budget, int64_t row_bytes) {
  return std::clamp<int64_t>(budget / row_bytes, 1, dw.out_h);
}

int64_t PickBandRows(const KernelTable& table, const ref::DepthwiseConv2dParams& dw,
                     bool expand) {
  const int64_t lane_bytes = table.channel_block * static_cast<int64_t>(sizeof(float));
  const int64_t blocks = BlockCount(dw.channels, table.channel_block);
  const int64_t out_row = blocks * dw.out_w * lane_bytes;
  if (!expand) return RowsInBudget(dw, kBandBytes, out_row);
  return RowsInBudget(dw, kExpandBandBytes, out_row + dw.stride_h * blocks * dw.in_w * lane_bytes);
}

}  // namespace

bool DepthwisePointwiseFusionEnabled() {
  return CurrentCpuTunables().fuse_depthwise_pointwise;
}

bool ExpandFusionEnabled() {
  const CpuTunables tunables = CurrentCpuTunables();
  return tunables.fuse_depthwise_pointwise && tunables.fuse_expand;
}

BlockedPointwiseTiles::BlockedPointwiseTiles(const KernelTable& table,
                                             const ref::Conv2DParams& params, const float* filter,
                                             const float* bias, int64_t in_block_stride,
                                             PersistentArena* arena)
    : table_(table),
      block_(table.channel_block),
      channels_(params.in_channels),
      out_blocks_(BlockCount(params.out_channels, table.channel_block)) {
  FuseActivation(params.activation, &epilogue_);
  const int64_t L = block_, channels = channels_;
  const int32_t wide = table.blocked_window_conv_blocks;
  group_blocks_ = wide > 0 ? wide : table.blocked_conv_blocks;
  channel_offsets_.resize(channels);
  for (int64_t c = 0; c < channels; ++c) {
    channel_offsets_[c] = (c / L) * in_block_stride + c % L;
  }
  weights_.AllocateUnfilled(out_blocks_ * channels * L, arena);
  for (int64_t ob = 0; ob < out_blocks_; ++ob) {
    const int64_t lanes = std::min(L, params.out_channels - ob * L);
    const float* rows = filter + ob * L * channels;
    float* dst = weights_.data() + ob * channels * L;
    if (table.blocked_pack != nullptr) {
      table.blocked_pack(rows, channels, static_cast<int>(lanes), channels, dst);
      continue;
    }
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t lane = 0; lane < L; ++lane) {
        dst[c * L + lane] = lane < lanes ? rows[lane * channels + c] : 0.f;
      }
    }
  }
  PadToBlocks(bias, params.out_channels, block_, arena, &bias_);
}

void BlockedPointwiseTiles::Run(const float* in, int64_t positions, float* out,
                                int64_t out_block_stride, const Stretches& ahead) const {
  const int64_t L = block_, channels = channels_;
  const int64_t groups = (out_blocks_ + group_blocks_ - 1) / group_blocks_;
  // Run k of `runs` brings the stretches' lines up to total * (k + 1) /
  // runs, from where the run before stopped to its stretch's end at most.
  const int64_t runs = (positions + kChunk - 1) / kChunk * groups *
                       ((channels + kReductionPart - 1) / kReductionPart);
  const int64_t stretch_lines = (ahead.floats + kLineFloats - 1) / kLineFloats;
  const int64_t total = ahead.first != nullptr ? stretch_lines * ahead.count : 0;
  int64_t done = 0, k = 0;
  for (int64_t p0 = 0; p0 < positions; p0 += kChunk) {
    const int64_t tap_offset = p0 * L;
    for (int64_t g = 0; g < groups; ++g) {
      // Groups of near-equal size, as the blocked 1x1 layers split theirs.
      const int64_t first = g * out_blocks_ / groups, last = (g + 1) * out_blocks_ / groups;
      BlockedConvRun run;
      run.in = in;
      run.pos_step = L;
      run.taps = 1;
      run.tap_offsets = &tap_offset;
      run.weight_block_stride = channels * L;
      run.bias = bias_.data() + first * L;
      run.out = out + first * out_block_stride + p0 * L;
      run.out_block_stride = out_block_stride;
      run.blocks = static_cast<int32_t>(last - first);
      run.positions = std::min(kChunk, positions - p0);
      run.blocked_input = true;
      run.epilogue = epilogue_;
      for (int64_t c0 = 0; c0 < channels; c0 += kReductionPart) {
        run.channels = std::min(kReductionPart, channels - c0);
        run.channel_offsets = channel_offsets_.data() + c0;
        run.weights = weights_.data() + (first * channels + c0) * L;
        run.weight_tap_stride = run.channels * L;
        run.epilogue.accumulate = c0 > 0;
        run.epilogue.last = c0 + run.channels == channels;
        run.prefetch = nullptr;
        const int64_t until = total * ++k / runs;
        if (done < until) {
          const int64_t stretch = done / stretch_lines, line = done % stretch_lines;
          const int64_t lines = std::min(until, (stretch + 1) * stretch_lines) - done;
          run.prefetch = ahead.first + stretch * ahead.stride + line * kLineFloats;
          run.prefetch_floats = std::min(lines * kLineFloats, ahead.floats - line * kLineFloats);
          run.prefetch_blocks = 1;
          done += lines;
        }
        table_.blocked_conv(run);
      }
    }
  }
  // What the runs left at their stretches' ends.
  for (; done < total; ++done) {
    const int64_t stretch = done / stretch_lines, line = done % stretch_lines;
    __builtin_prefetch(ahead.first + stretch * ahead.stride + line * kLineFloats, 0, 2);
  }
}

bool BlockedDepthwisePointwise::Supports(const KernelTable& table,
                                         const ref::DepthwiseConv2dParams& dw,
                                         const ref::Conv2DParams& pw) {
  TileEpilogue unused;
  return table.blocked_conv != nullptr && BlockedDepthwise::Supports(table, dw) &&
         FuseActivation(dw.activation, &unused) && PlainPointwise(pw) && pw.batch == dw.batch &&
         pw.in_channels == dw.channels && pw.in_h == dw.out_h && pw.in_w == dw.out_w;
}

bool BlockedDepthwisePointwise::SupportsExpand(const KernelTable& table,
                                               const ref::Conv2DParams& expand,
                                               const ref::DepthwiseConv2dParams& dw) {
  return table.blocked_conv != nullptr && PlainPointwise(expand) && expand.batch == dw.batch &&
         expand.out_channels == dw.channels && expand.out_h == dw.in_h &&
         expand.out_w == dw.in_w;
}

bool BlockedDepthwisePointwise::ExpandPays(const ref::Conv2DParams& expand, int block) {
  return expand.out_channels >= 4 * expand.in_channels &&
         expand.batch * BlockCount(expand.out_channels, block) * block * expand.out_h *
                 expand.out_w * static_cast<int64_t>(sizeof(float)) >=
             kLastFirstBytes;
}

BlockedDepthwisePointwise::BlockedDepthwisePointwise(
    const KernelTable& table, const ref::DepthwiseConv2dParams& depthwise,
    const float* depthwise_filter, const float* depthwise_bias, const ref::Conv2DParams& pointwise,
    const float* pointwise_filter, const float* pointwise_bias, PersistentArena* arena,
    const ref::Conv2DParams* expand, const float* expand_filter, const float* expand_bias)
    : depthwise_(table, depthwise, depthwise_filter, depthwise_bias, arena),
      block_(table.channel_block),
      in_blocks_(BlockCount(pointwise.in_channels, table.channel_block)),
      out_blocks_(BlockCount(pointwise.out_channels, table.channel_block)),
      out_plane_(pointwise.out_h * pointwise.out_w),
      band_rows_(PickBandRows(table, depthwise, expand != nullptr)),
      band_floats_(CacheLines(in_blocks_ * band_rows_ * pointwise.in_w * table.channel_block)),
      // The band buffer's planes are band_rows_ rows apart.
      pointwise_(table, pointwise, pointwise_filter, pointwise_bias,
                 band_rows_ * pointwise.in_w * table.channel_block, arena),
      prefetch_input_(expand == nullptr && pointwise.out_channels >= pointwise.in_channels) {
  if (expand == nullptr) return;
  const ref::DepthwiseConv2dParams& dw = depthwise;
  // The rows one band reads, and room for the next band's new rows so that
  // the rows two bands share move to the buffer's start every other band.
  const int64_t reach = (band_rows_ - 1) * dw.stride_h + (dw.kernel_h - 1) * dw.dilation_h + 1;
  expand_rows_ = std::min(dw.in_h, reach + band_rows_ * dw.stride_h);
  expand_floats_ = CacheLines(in_blocks_ * expand_rows_ * dw.in_w * block_);
  expand_in_blocks_ = BlockCount(expand->in_channels, block_);
  expand_ = std::make_unique<BlockedPointwiseTiles>(table, *expand, expand_filter, expand_bias,
                                                    expand->in_h * expand->in_w * block_, arena);
}

int64_t BlockedDepthwisePointwise::ScratchBytes(int threads) const {
  return threads * (band_floats_ + expand_floats_) * static_cast<int64_t>(sizeof(float));
}

void BlockedDepthwisePointwise::Expand(const float* input, int64_t n, int64_t r0, int64_t r1,
                                       float* buffer, ExpandedRows* held) const {
  const ref::DepthwiseConv2dParams& dw = depthwise_.params();
  const int64_t row = dw.in_w * block_, plane = expand_rows_ * row;
  if (held->image != n || r0 < held->first || r0 > held->end) {
    *held = ExpandedRows{n, r0, r0};
  }
  if (r1 - held->first > expand_rows_) {
    const int64_t keep = held->end - r0;
    for (int64_t b = 0; b < in_blocks_ && keep > 0; ++b) {
      float* rows = buffer + b * plane;
      std::memmove(rows, rows + (r0 - held->first) * row, keep * row * sizeof(float));
    }
    held->first = r0;
  }
  if (r1 <= held->end) return;
  const float* image = input + n * expand_in_blocks_ * dw.in_h * row;
  expand_->Run(image + held->end * row, (r1 - held->end) * dw.in_w,
               buffer + (held->end - held->first) * row, plane);
  held->end = r1;
}

void BlockedDepthwisePointwise::InputRows(int64_t y0, int64_t y1, int64_t* r0,
                                          int64_t* r1) const {
  const ref::DepthwiseConv2dParams& dw = depthwise_.params();
  *r0 = std::max<int64_t>(0, y0 * dw.stride_h - dw.pad_top);
  *r1 = std::min(dw.in_h,
                 (y1 - 1) * dw.stride_h - dw.pad_top + (dw.kernel_h - 1) * dw.dilation_h + 1);
}

void BlockedDepthwisePointwise::Run(const float* input, float* output, ThreadPool* pool,
                                    float* scratch) const {
  const ref::DepthwiseConv2dParams& dw = depthwise_.params();
  const int64_t L = block_, height = dw.out_h, width = dw.out_w;
  const int64_t threads = NumThreads(pool);
  const int64_t fair = (dw.batch * height + kBandsPerThread * threads - 1) /
                       (kBandsPerThread * threads);
  const int64_t band = threads > 1 ? std::clamp<int64_t>(fair, 1, band_rows_) : band_rows_;
  const int64_t bands = (height + band - 1) / band;
  const int64_t in_image = in_blocks_ * dw.in_h * dw.in_w * L;
  // The buffer's planes are band_rows_ rows apart whatever `band` is, as the
  // channel offsets say.
  const int64_t buffer_plane = band_rows_ * width * L;
  const int64_t expand_plane = expand_rows_ * dw.in_w * L;
  // A large input is read last written first, as the depthwise layers read
  // theirs (see WindowTaskAt): a band's rows over every block are one task.
  // An expansion's input is narrow, and its bands go top down so that each
  // keeps the rows it shares with the band above.
  const bool last_first = expand_ == nullptr &&
      dw.batch * in_image * static_cast<int64_t>(sizeof(float)) >= kLastFirstBytes;
  ParallelFor(pool, dw.batch * bands, [&](int64_t begin, int64_t end, int thread) {
    float* buffer = scratch + thread * (band_floats_ + expand_floats_);
    float* expanded = buffer + band_floats_;
    ExpandedRows held;
    for (int64_t i = begin; i < end; ++i) {
      const int64_t task = last_first ? begin + end - 1 - i : i;
      const int64_t n = task / bands, y0 = task % bands * band;
      const int64_t y1 = std::min(height, y0 + band);
      Stretches ahead;
      if (expand_ != nullptr) {
        int64_t r0, r1;
        InputRows(y0, y1, &r0, &r1);
        Expand(input, n, r0, r1, expanded, &held);
        for (int64_t b = 0; b < in_blocks_; ++b) {
          depthwise_.RunRowsFrom(expanded + b * expand_plane, held.first, b, y0, y1,
                                 buffer + b * buffer_plane);
        }
      } else {
        for (int64_t b = 0; b < in_blocks_; ++b) {
          depthwise_.RunRows(input + n * in_image, b, y0, y1, buffer + b * buffer_plane);
        }
        // The depthwise rows wait on the input they read, the 1x1 tiles
        // on their multiply-adds, so the tiles bring the next task's input
        // rows toward L2 while they compute. MobileNet v1's pairs on
        // 112x112 maps ran 6-15 % faster. Where the 1x1 narrows the
        // channels (MobileNet v2's projections) its tiles end too soon to
        // hide the transfer and measured 0-3 % slower, so those do without.
        if (prefetch_input_ && i + 1 < end) {
          const int64_t next = last_first ? task - 1 : task + 1;
          const int64_t next_y0 = next % bands * band;
          int64_t r0, r1;
          InputRows(next_y0, std::min(height, next_y0 + band), &r0, &r1);
          ahead.first = input + next / bands * in_image + r0 * dw.in_w * L;
          ahead.floats = (r1 - r0) * dw.in_w * L;
          ahead.stride = dw.in_h * dw.in_w * L;
          ahead.count = in_blocks_;
        }
      }
      pointwise_.Run(buffer, (y1 - y0) * width,
                     output + (n * out_blocks_ * out_plane_ + y0 * width) * L, out_plane_ * L,
                     ahead);
    }
  });
}

}  // namespace ops
}  // namespace mace
