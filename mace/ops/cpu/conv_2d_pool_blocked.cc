#include "mace/ops/cpu/conv_2d_pool_blocked.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "mace/runtimes/cpu/cpu_tunables.h"

namespace mace {
namespace ops {

bool ConvPoolingFusionEnabled() { return CurrentCpuTunables().fuse_conv_pooling; }

bool ConvPoolingFusionPays(const ref::Conv2DParams& conv, int block) {
  return block > 0 && conv.batch * BlockCount(conv.out_channels, block) * block * conv.out_h *
                              conv.out_w * static_cast<int64_t>(sizeof(float)) >=
                          kLastFirstBytes;
}

bool BlockedConvPool::Supports(const KernelTable& table, const BlockedConv2d& conv,
                               const ref::PoolingParams& pooling) {
  const ref::Conv2DParams& c = conv.params();
  return table.channel_block > 0 && conv.RunsRows() &&
         BlockedPooling::Supports(table, pooling, false) &&
         (pooling.type == ref::PoolingType::MAX || pooling.type == ref::PoolingType::AVG) &&
         pooling.batch == c.batch && pooling.channels == c.out_channels &&
         pooling.in_h == c.out_h && pooling.in_w == c.out_w && pooling.out_h > 0 &&
         pooling.out_w > 0;
}

BlockedConvPool::BlockedConvPool(const KernelTable& table, std::unique_ptr<BlockedConv2d> conv,
                                 const ref::PoolingParams& pooling, int64_t band_bytes)
    : conv_(std::move(conv)),
      pooling_(table, pooling, /*global=*/false),
      block_(table.channel_block),
      blocks_(BlockCount(pooling.channels, table.channel_block)) {
  const ref::PoolingParams& p = pooling;
  const int64_t row_bytes = blocks_ * p.in_w * block_ * static_cast<int64_t>(sizeof(float));
  const int64_t reach = (p.kernel_h - 1) * p.dilation_h + 1;
  const int64_t fit = std::max(reach, band_bytes / row_bytes);
  band_ = std::clamp<int64_t>((fit - reach) / p.stride_h + 1, 1, p.out_h);
  buffer_rows_ = std::min(p.in_h, (band_ - 1) * p.stride_h + reach);
  buffer_floats_ = blocks_ * buffer_rows_ * p.in_w * block_;
  // Keep every thread's buffer on cache lines of its own.
  buffer_floats_ = (buffer_floats_ + 31) / 32 * 32;
}

int64_t BlockedConvPool::BandRows(int threads) const {
  const ref::PoolingParams& p = pooling_.params();
  auto tasks = [&](int64_t band) { return p.batch * ((p.out_h + band - 1) / band); };
  const int64_t most = (tasks(band_) + threads - 1) / threads * threads;
  for (int64_t band = band_; band >= 1 && tasks(band) <= most; --band) {
    if (tasks(band) % threads == 0) return band;
  }
  return band_;
}

int64_t BlockedConvPool::ScratchBytes(int threads) const {
  const int64_t padded = (conv_->ScratchBytes() + 127) / 128 * 128;
  return padded + threads * buffer_floats_ * static_cast<int64_t>(sizeof(float));
}

void BlockedConvPool::Run(const float* input, float* output, ThreadPool* pool,
                          float* scratch) const {
  const ref::PoolingParams& p = pooling_.params();
  const int64_t L = block_;
  const float* rows_input = conv_->RowsInput(input, scratch, pool);
  float* buffers =
      scratch + (conv_->ScratchBytes() + 127) / 128 * 128 / static_cast<int64_t>(sizeof(float));
  const int64_t band = BandRows(NumThreads(pool));
  const int64_t bands = (p.out_h + band - 1) / band;
  const int64_t row = p.in_w * L, block_stride = buffer_rows_ * row;
  const int64_t out_plane = p.out_h * p.out_w * L;
  const int64_t reach = (p.kernel_h - 1) * p.dilation_h + 1;
  ParallelFor(pool, p.batch * bands, [&](int64_t begin, int64_t end, int thread) {
    float* buffer = buffers + thread * buffer_floats_;
    // The convolution rows [held0, held1) of image held_n in the buffer.
    int64_t held_n = -1, held0 = 0, held1 = 0;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / bands, y0 = task % bands * band;
      const int64_t y1 = std::min(p.out_h, y0 + band);
      const int64_t r0 = std::clamp<int64_t>(y0 * p.stride_h - p.pad_top, 0, p.in_h);
      const int64_t r1 = std::clamp<int64_t>((y1 - 1) * p.stride_h - p.pad_top + reach, r0, p.in_h);
      // The rows the band above computed that this one reads too (a 3x3
      // stride-2 window's last row is the next one's first) move to the
      // buffer's start rather than being computed again.
      int64_t from = r0;
      if (held_n == n && held0 <= r0 && r0 < held1) {
        const int64_t keep = std::min(held1, r1) - r0;
        if (r0 > held0) {
          for (int64_t b = 0; b < blocks_; ++b) {
            float* plane = buffer + b * block_stride;
            std::memmove(plane, plane + (r0 - held0) * row,
                         keep * row * static_cast<int64_t>(sizeof(float)));
          }
        }
        from = r0 + keep;
      }
      if (r1 > from) {
        conv_->RunRows(rows_input, n, from, r1, buffer + (from - r0) * row, block_stride);
      }
      held_n = n;
      held0 = r0;
      held1 = r1;
      for (int64_t b = 0; b < blocks_; ++b) {
        pooling_.RunRows(buffer + b * block_stride, r0, y0, y1,
                         output + (n * blocks_ + b) * out_plane);
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
