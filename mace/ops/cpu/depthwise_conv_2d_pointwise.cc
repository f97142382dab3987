#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {

namespace {

// One thread's band of depthwise output: small enough to stay in L2 with
// the rows the band reads and the 1x1 outputs it writes.
constexpr int64_t kBandBytes = 128 << 10;
// 1x1 positions per tile run: their inputs over every channel stay in L1
// while the output block groups go over them.
constexpr int64_t kChunk = 48;
// Input channels per part of the 1x1 reduction, as the blocked 1x1 layers.
constexpr int64_t kReductionPart = 128;
// Bands per thread when the rows allow: fewer leave a thread idle at the end.
constexpr int64_t kBandsPerThread = 2;

}  // namespace

bool DepthwisePointwiseFusionEnabled() {
  const char* setting = std::getenv("MACE_CPU_FUSE_DEPTHWISE");
  return setting == nullptr || std::strcmp(setting, "0") != 0;
}

bool BlockedDepthwisePointwise::Supports(const KernelTable& table,
                                         const ref::DepthwiseConv2dParams& dw,
                                         const ref::Conv2DParams& pw) {
  TileEpilogue unused;
  return table.blocked_conv != nullptr && BlockedDepthwise::Supports(table, dw) &&
         FuseActivation(dw.activation, &unused) && FuseActivation(pw.activation, &unused) &&
         pw.group == 1 && pw.kernel_h == 1 && pw.kernel_w == 1 && pw.stride_h == 1 &&
         pw.stride_w == 1 && pw.pad_top == 0 && pw.pad_left == 0 && pw.batch == dw.batch &&
         pw.in_channels == dw.channels && pw.in_h == dw.out_h && pw.in_w == dw.out_w &&
         pw.out_h == pw.in_h && pw.out_w == pw.in_w;
}

BlockedDepthwisePointwise::BlockedDepthwisePointwise(
    const KernelTable& table, const ref::DepthwiseConv2dParams& depthwise,
    const float* depthwise_filter, const float* depthwise_bias, const ref::Conv2DParams& pointwise,
    const float* pointwise_filter, const float* pointwise_bias, PersistentArena* arena)
    : table_(table),
      depthwise_(table, depthwise, depthwise_filter, depthwise_bias, arena),
      pointwise_(pointwise),
      block_(table.channel_block),
      in_blocks_(BlockCount(pointwise.in_channels, table.channel_block)),
      out_blocks_(BlockCount(pointwise.out_channels, table.channel_block)) {
  FuseActivation(pointwise.activation, &epilogue_);
  const int64_t L = block_, channels = pointwise.in_channels, width = pointwise.in_w;
  const int32_t wide = table.blocked_window_conv_blocks;
  group_blocks_ = wide > 0 ? wide : table.blocked_conv_blocks;
  const int64_t row_bytes = in_blocks_ * width * L * static_cast<int64_t>(sizeof(float));
  band_rows_ = std::clamp<int64_t>(kBandBytes / row_bytes, 1, pointwise.in_h);
  band_floats_ = in_blocks_ * band_rows_ * width * L;
  // Keep every thread's buffer on cache lines of its own.
  band_floats_ = (band_floats_ + 31) / 32 * 32;
  channel_offsets_.resize(channels);
  for (int64_t c = 0; c < channels; ++c) {
    channel_offsets_[c] = (c / L) * band_rows_ * width * L + c % L;
  }
  weights_.AllocateUnfilled(out_blocks_ * channels * L, arena);
  for (int64_t ob = 0; ob < out_blocks_; ++ob) {
    const int64_t lanes = std::min(L, pointwise.out_channels - ob * L);
    const float* rows = pointwise_filter + ob * L * channels;
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
  PadToBlocks(pointwise_bias, pointwise.out_channels, block_, arena, &bias_);
}

int64_t BlockedDepthwisePointwise::ScratchBytes(int threads) const {
  return threads * band_floats_ * static_cast<int64_t>(sizeof(float));
}

void BlockedDepthwisePointwise::RunPointwise(const float* band, int64_t n, int64_t y0,
                                             int64_t rows, float* output) const {
  const ref::Conv2DParams& p = pointwise_;
  const int64_t L = block_, channels = p.in_channels;
  const int64_t out_plane = p.out_h * p.out_w, positions = rows * p.out_w;
  const int64_t groups = (out_blocks_ + group_blocks_ - 1) / group_blocks_;
  float* out_image = output + (n * out_blocks_ * out_plane + y0 * p.out_w) * L;
  for (int64_t p0 = 0; p0 < positions; p0 += kChunk) {
    const int64_t tap_offset = p0 * L;
    for (int64_t g = 0; g < groups; ++g) {
      // Groups of near-equal size, as the blocked 1x1 layers split theirs.
      const int64_t first = g * out_blocks_ / groups, last = (g + 1) * out_blocks_ / groups;
      BlockedConvRun run;
      run.in = band;
      run.pos_step = L;
      run.taps = 1;
      run.tap_offsets = &tap_offset;
      run.weight_block_stride = channels * L;
      run.bias = bias_.data() + first * L;
      run.out = out_image + (first * out_plane + p0) * L;
      run.out_block_stride = out_plane * L;
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
        table_.blocked_conv(run);
      }
    }
  }
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
  // A large input is read last written first, as the depthwise layers read
  // theirs (see WindowTaskAt): a band's rows over every block are one task.
  const bool last_first =
      dw.batch * in_image * static_cast<int64_t>(sizeof(float)) >= kLastFirstBytes;
  ParallelFor(pool, dw.batch * bands, [&](int64_t begin, int64_t end, int thread) {
    float* buffer = scratch + thread * band_floats_;
    for (int64_t i = begin; i < end; ++i) {
      const int64_t task = last_first ? begin + end - 1 - i : i;
      const int64_t n = task / bands, y0 = task % bands * band;
      const int64_t y1 = std::min(height, y0 + band);
      for (int64_t b = 0; b < in_blocks_; ++b) {
        depthwise_.RunRows(input + n * in_image, b, y0, y1, buffer + b * buffer_plane);
      }
      RunPointwise(buffer, n, y0, y1 - y0, output);
    }
  });
}

}  // namespace ops
}  // namespace mace
