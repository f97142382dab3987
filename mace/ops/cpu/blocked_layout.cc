#include "mace/ops/cpu/blocked_layout.h"

namespace mace {
namespace ops {

void PadToBlocks(const float* values, int64_t channels, int block, PersistentArena* arena,
                 PersistentFloats* padded) {
  padded->Allocate(BlockCount(channels, block) * block, arena);
  if (values != nullptr) std::copy(values, values + channels, padded->data());
}

WindowPlan::WindowPlan(const BlockedWindow& w, int64_t pos_mul, bool merge_edges) {
  const int64_t extent = (w.kernel_h - 1) * w.dilation_h;
  auto inside = [&](int64_t y) {
    const int64_t iy = y * w.stride_h - w.pad_top;
    return iy >= 0 && iy + extent < w.in_h;
  };
  for (int64_t y = 0; y < w.out_h;) {
    int64_t next = y + 1;
    if (inside(y)) {
      while (next < w.out_h && inside(next)) ++next;
    }
    RowRun run;
    run.y = y;
    run.rows = next - y;
    run.first = static_cast<int32_t>(segments_.size());
    ForEachSegment(w, y, pos_mul, merge_edges, [&](const Segment& s) { segments_.push_back(s); });
    run.count = static_cast<int32_t>(segments_.size()) - run.first;
    runs_.push_back(run);
    y = next;
  }
}

namespace {

// Positions per step of a conversion: a step's blocked side (64 positions of
// up to 16 lanes, 4 KiB) stays in L1 while each lane's plain row streams.
constexpr int64_t kConvertTile = 64;

}  // namespace

void PackChannelBlocks(const float* in, int64_t batch, int64_t channels, int64_t plane, int block,
                       float* out, ThreadPool* pool, BlockedPackKernel kernel) {
  const int64_t blocks = BlockCount(channels, block);
  if (plane == 1) {
    // One position: the blocks are the channels in order, then padding.
    for (int64_t n = 0; n < batch; ++n) {
      float* dst = out + n * blocks * block;
      std::copy(in + n * channels, in + (n + 1) * channels, dst);
      std::fill(dst + channels, dst + blocks * block, 0.f);
    }
    return;
  }
  ParallelFor(pool, batch * blocks, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / blocks, b = task % blocks;
      const int lanes = static_cast<int>(std::min<int64_t>(block, channels - b * block));
      const float* src = in + (n * channels + b * block) * plane;
      float* dst = out + task * plane * block;
      if (kernel != nullptr) {
        kernel(src, plane, lanes, plane, dst);
        continue;
      }
      for (int64_t p0 = 0; p0 < plane; p0 += kConvertTile) {
        const int64_t p1 = std::min(plane, p0 + kConvertTile);
        for (int lane = 0; lane < lanes; ++lane) {
          const float* row = src + lane * plane;
          for (int64_t p = p0; p < p1; ++p) dst[p * block + lane] = row[p];
        }
        for (int lane = lanes; lane < block; ++lane) {
          for (int64_t p = p0; p < p1; ++p) dst[p * block + lane] = 0.f;
        }
      }
    }
  });
}

void UnpackChannelBlocks(const float* in, int64_t batch, int64_t channels, int64_t plane, int block,
                         float* out, ThreadPool* pool, BlockedUnpackKernel kernel) {
  const int64_t blocks = BlockCount(channels, block);
  if (plane == 1) {
    // One position (after a global pooling): a copy without the padding
    // lanes. Block by block, each transpose of a whole block made one
    // position, and the pool split the blocks into tasks.
    for (int64_t n = 0; n < batch; ++n) {
      const float* src = in + n * blocks * block;
      std::copy(src, src + channels, out + n * channels);
    }
    return;
  }
  ParallelFor(pool, batch * blocks, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / blocks, b = task % blocks;
      const int lanes = static_cast<int>(std::min<int64_t>(block, channels - b * block));
      const float* src = in + task * plane * block;
      float* dst = out + (n * channels + b * block) * plane;
      if (kernel != nullptr) {
        kernel(src, lanes, plane, dst, plane);
        continue;
      }
      for (int64_t p0 = 0; p0 < plane; p0 += kConvertTile) {
        const int64_t p1 = std::min(plane, p0 + kConvertTile);
        for (int lane = 0; lane < lanes; ++lane) {
          float* row = dst + lane * plane;
          for (int64_t p = p0; p < p1; ++p) row[p] = src[p * block + lane];
        }
      }
    }
  });
}

}  // namespace ops
}  // namespace mace
