// The channel-blocked ("NCHWc") layout of micro_kernels.h for whole tensors:
// conversion from and to plain NCHW, and the drivers of the blocked
// blocked kernels (cpu/conv_2d_blocked, depthwise_conv_2d_blocked, pooling_blocked).
//
// The net keeps a run of ops that all have blocked kernels in the blocked
// layout (mace/core/net_layout.cc), so that a 1x1 convolution reads its
// input in place instead of packing it, and a depthwise convolution or a
// pooling works on whole vectors of channels with no border code. The
// public layout stays NCHW: the net converts where a blocked run meets the
// rest of the graph.
#ifndef MACE_OPS_CPU_BLOCKED_LAYOUT_H_
#define MACE_OPS_CPU_BLOCKED_LAYOUT_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "mace/ops/cpu/micro_kernels.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// Kernels of up to this many taps (kh x kw) have blocked drivers.
constexpr int kMaxBlockedTaps = 64;

inline int64_t BlockCount(int64_t channels, int block) { return (channels + block - 1) / block; }

// dst[0, block) = src[0, block): one vector of a table's channel block, with
// the sizes of the tables (16, 8, 4 floats) as constants, so that packers
// store a vector where a variable length would call memmove.
inline void CopyBlockVector(const float* src, int64_t block, float* dst) {
  switch (block) {
    case 16:
      std::memcpy(dst, src, 16 * sizeof(float));
      return;
    case 8:
      std::memcpy(dst, src, 8 * sizeof(float));
      return;
    case 4:
      std::memcpy(dst, src, 4 * sizeof(float));
      return;
    default:
      std::memcpy(dst, src, static_cast<size_t>(block) * sizeof(float));
  }
}

// NCHW [batch, channels, plane] to blocked, padding lanes set to zero, and
// back. `kernel` (optional: scalar loops without) is a table's channel_pack
// or channel_unpack, for a table whose channel_block is `block`.
void PackChannelBlocks(const float* in, int64_t batch, int64_t channels, int64_t plane, int block,
                       float* out, ThreadPool* pool, BlockedPackKernel kernel = nullptr);
void UnpackChannelBlocks(const float* in, int64_t batch, int64_t channels, int64_t plane, int block,
                         float* out, ThreadPool* pool, BlockedUnpackKernel kernel = nullptr);

// Where a window (kernel_h x kernel_w taps at stride and dilation, with
// leading padding) lies in the input.
struct BlockedWindow {
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  int64_t pad_bottom = 0, pad_right = 0;  // pooling's count_include_pad only
};

// The window of an op's parameters (ref::Conv2DParams,
// DepthwiseConv2dParams or PoolingParams).
template <typename Params>
BlockedWindow WindowOf(const Params& p) {
  BlockedWindow w;
  w.in_h = p.in_h;
  w.in_w = p.in_w;
  w.out_h = p.out_h;
  w.out_w = p.out_w;
  w.kernel_h = p.kernel_h;
  w.kernel_w = p.kernel_w;
  w.stride_h = p.stride_h;
  w.stride_w = p.stride_w;
  w.dilation_h = p.dilation_h;
  w.dilation_w = p.dilation_w;
  w.pad_top = p.pad_top;
  w.pad_left = p.pad_left;
  return w;
}

// `values` (one per channel, or zeros when null) in lanes padded to whole
// blocks.
void PadToBlocks(const float* values, int64_t channels, int block, PersistentArena* arena,
                 PersistentFloats* padded);

// The taps of one run of output positions. Offsets count input positions
// from the plane's start, times the layout's floats per position.
struct Segment {
  int64_t x0 = 0, count = 0;
  int32_t taps = 0;
  int32_t rows = 0;         // kernel rows inside the input
  int64_t padded_taps = 0;  // taps inside the input or its declared padding
  // A merged row (see WindowPlan): the first position's first column, or the
  // last position's last column, lies outside the input and reads as zero.
  bool clip_left = false, clip_right = false;
  int64_t tap_offsets[kMaxBlockedTaps];
  int32_t tap_index[kMaxBlockedTaps];
};

// Calls emit(segment) for output row y: the columns whose window lies inside
// the input along x as one segment, every other column as a segment of its
// own with the taps outside the input left out. With merge_edges, a window
// three columns wide at dilation 1 whose only outside columns are the first
// position's first and the last position's last makes one segment of the
// whole row instead, with those two flagged (Segment::clip_left and
// clip_right) and their offsets pointing outside the row.
template <typename Emit>
inline void ForEachSegment(const BlockedWindow& w, int64_t y, int64_t pos_mul, bool merge_edges,
                           Emit&& emit) {
  Segment s;
  const int64_t iy0 = y * w.stride_h - w.pad_top;
  auto build = [&](int64_t x0, int64_t count, bool inside) {
    s.x0 = x0;
    s.count = count;
    s.taps = 0;
    s.rows = 0;
    int64_t padded_rows = 0, padded_cols = 0;
    const int64_t ix0 = x0 * w.stride_w - w.pad_left;
    for (int64_t kx = 0; kx < w.kernel_w; ++kx) {
      const int64_t ix = ix0 + kx * w.dilation_w;
      if (ix >= -w.pad_left && ix < w.in_w + w.pad_right) ++padded_cols;
    }
    for (int64_t ky = 0; ky < w.kernel_h; ++ky) {
      const int64_t iy = iy0 + ky * w.dilation_h;
      if (iy >= -w.pad_top && iy < w.in_h + w.pad_bottom) ++padded_rows;
      if (iy < 0 || iy >= w.in_h) continue;
      ++s.rows;
      for (int64_t kx = 0; kx < w.kernel_w; ++kx) {
        const int64_t ix = ix0 + kx * w.dilation_w;
        if (!inside && (ix < 0 || ix >= w.in_w)) continue;
        s.tap_offsets[s.taps] = (iy * w.in_w + ix) * pos_mul;
        s.tap_index[s.taps] = static_cast<int32_t>(ky * w.kernel_w + kx);
        ++s.taps;
      }
    }
    s.padded_taps = padded_rows * (inside ? w.kernel_w : padded_cols);
    emit(static_cast<const Segment&>(s));
  };
  // Columns x in [x_lo, x_hi) have all their taps inside [0, in_w).
  const int64_t extent = (w.kernel_w - 1) * w.dilation_w;
  const int64_t x_lo = std::min(w.out_w, (w.pad_left + w.stride_w - 1) / w.stride_w);
  const int64_t last = w.in_w - 1 - extent + w.pad_left;
  const int64_t x_hi = last < 0 ? 0 : std::min(w.out_w, last / w.stride_w + 1);
  if (x_hi <= x_lo) {
    for (int64_t x = 0; x < w.out_w; ++x) build(x, 1, false);
    return;
  }
  if (merge_edges && w.kernel_w == 3 && w.dilation_w == 1 && x_lo <= 1 && x_hi >= w.out_w - 1) {
    // Column x reads x * stride - pad_left + {0, 1, 2}.
    const int64_t right = (w.out_w - 1) * w.stride_w - w.pad_left;
    const bool left_ok = x_lo == 0 || w.pad_left == 1;
    const bool right_ok = x_hi == w.out_w || right + 1 == w.in_w - 1;
    if (left_ok && right_ok) {
      s.clip_left = x_lo == 1;
      s.clip_right = x_hi == w.out_w - 1;
      build(0, w.out_w, true);
      s.clip_left = s.clip_right = false;
      return;
    }
  }
  for (int64_t x = 0; x < x_lo; ++x) build(x, 1, false);
  build(x_lo, x_hi - x_lo, true);
  for (int64_t x = x_hi; x < w.out_w; ++x) build(x, 1, false);
}

// Output rows per task of a per-channel window op: about 512 positions, so
// that a task's setup is small beside its work.
inline int64_t BandRows(int64_t out_h, int64_t out_w) {
  return std::max<int64_t>(1, std::min(out_h, 512 / std::max<int64_t>(out_w, 1)));
}

// Input sizes from which a per-channel window op takes a thread's tasks last
// first: about an L2. The layer before wrote the input in bands of rows over
// every channel block, and what it wrote last is what is still in L2; read
// first, those rows come from there before the op's own misses evict them.
constexpr int64_t kLastFirstBytes = int64_t{2} << 20;

// Task i of a thread's range [begin, end) of a per-channel window op's
// batch x blocks x bands tasks. In order, an image's blocks go one after the
// other, each band by band; last first, the exact reverse of the order the
// input was written in: the last band over every block, then the one above.
struct WindowTask {
  int64_t image = 0, block = 0, y0 = 0;
};
inline WindowTask WindowTaskAt(int64_t i, int64_t begin, int64_t end, int64_t blocks,
                               int64_t bands, int64_t band, bool last_first) {
  const int64_t task = last_first ? begin + end - 1 - i : i;
  const int64_t r = task % (blocks * bands);
  WindowTask t;
  t.image = task / (blocks * bands);
  t.block = last_first ? r % blocks : r / bands;
  t.y0 = (last_first ? r / blocks : r % bands) * band;
  return t;
}

// The segments of every output row of a window op, built once when the op
// is created so that a run only looks them up. Rows whose window lies
// inside the input along y share the segments of the first of them.
class WindowPlan {
 public:
  WindowPlan() = default;
  // merge_edges: see ForEachSegment (a depthwise row path that clips).
  WindowPlan(const BlockedWindow& w, int64_t pos_mul, bool merge_edges);

  // Calls emit(segment, y, rows, skipped) for output rows [y_begin, y_end):
  // `rows` consecutive rows from y with the same segment. The segment's
  // offsets are those of row y - skipped, the first row that shares it.
  template <typename Emit>
  void ForEach(int64_t y_begin, int64_t y_end, Emit&& emit) const {
    auto it = std::partition_point(runs_.begin(), runs_.end(),
                                   [&](const RowRun& r) { return r.y + r.rows <= y_begin; });
    for (; it != runs_.end() && it->y < y_end; ++it) {
      const int64_t y = std::max(y_begin, it->y);
      const int64_t rows = std::min(y_end, it->y + it->rows) - y;
      for (int32_t i = 0; i < it->count; ++i) emit(segments_[it->first + i], y, rows, y - it->y);
    }
  }

 private:
  struct RowRun {
    int64_t y = 0, rows = 0;
    int32_t first = 0, count = 0;  // in segments_
  };
  std::vector<RowRun> runs_;  // in order, covering [0, out_h)
  std::vector<Segment> segments_;
};

// Runs a window kernel over output rows [y0, y1) of one blocked plane:
// `run` holds what the plane fixes (in, weights, mode, ...), the segments
// set taps, positions and rows, and adjust(&run, segment) anything else a
// segment decides (a depthwise row path, an average's divisor).
template <typename Adjust>
inline void RunWindowBand(const BlockedWindow& w, const WindowPlan& plan,
                          BlockedWindowKernel kernel, int64_t lanes, int64_t y0, int64_t y1,
                          BlockedWindowRun run, float* out_plane, Adjust&& adjust) {
  run.pos_step = w.stride_w * lanes;
  run.in_row_step = w.stride_h * w.in_w * lanes;
  run.out_row_step = w.out_w * lanes;
  const float* in_plane = run.in;
  plan.ForEach(y0, y1, [&](const Segment& s, int64_t y, int64_t rows, int64_t skipped) {
    run.in = in_plane + skipped * run.in_row_step;
    run.taps = s.taps;
    run.tap_offsets = s.tap_offsets;
    run.tap_index = s.tap_index;
    run.positions = s.count;
    run.rows = rows;
    run.clip_left = s.clip_left;
    run.clip_right = s.clip_right;
    run.out = out_plane + (y * w.out_w + s.x0) * lanes;
    adjust(&run, s);
    kernel(run);
  });
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_BLOCKED_LAYOUT_H_
