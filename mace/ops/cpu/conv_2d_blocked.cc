#include "mace/ops/cpu/conv_2d_blocked.h"

#include <algorithm>
#include <vector>

#include "mace/ops/cpu/fused_activation.h"

namespace mace {
namespace ops {
namespace {

// Positions per task of a 1x1 convolution: a multiple of every kernel's tile
// (8, 6 and 4 positions).
constexpr int64_t kPointwiseChunk = 48;
// A 1x1 or narrow window map at most this large (16x16) runs whole, one
// task per group of output blocks, when there are at least kTasksPerThread such tasks per
// thread and they split evenly enough: the busiest thread's share at most
// kMaxTaskImbalance of the mean.
constexpr int64_t kSmallPlane = 256;
constexpr int64_t kTasksPerThread = 4;
constexpr double kMaxTaskImbalance = 1.05;
// Slots per thread of a run's tasks: the thread pool's pieces per thread.
constexpr int64_t kSlotsPerThread = 4;
// At most this many chunks of positions are split into even shares per
// thread (see Run).
constexpr int64_t kMaxEvenChunks = 64;
// Input channels per part of a 1x1 convolution's reduction.
constexpr int64_t kReductionPart = 128;
// Other windows run across rows on maps narrower than this (ResNet-18's
// 28, 14 and 7), and in rows above.
constexpr int64_t kGatherWidth = 64;
constexpr int64_t kMaxGatherPositions = int64_t{1} << 16;
// Weight bytes per part of a window's reduction: a little under L1d, 40
// KiB of the 48 KiB the blocked kernels were tuned on (kReferenceCaches),
// or the same share of the table's L1d (26 KiB of 32, where 40 KiB parts
// did not fit: a 3x3 part of 3 AVX2 blocks held 34.6 KiB).
constexpr int64_t kWindowPartBytes = 40 << 10;
constexpr int64_t kWindowPartOfL1dSixths = 5;
// A band-padded plain input reads its inner columns in place when there are
// at least this many output columns between the padded edges.
constexpr int64_t kMinDirectColumns = 16;

// Positions from which a stride-1 1x1 takes window tiles (see GroupBlocks).
constexpr int64_t kWidePointwisePlane = 128;
// Positions per chunk of a small map that a 1x1 in window tiles would run
// whole (see Run): twelve 6-position tiles.
constexpr int64_t kSmallPlaneChunk = 72;

// Output blocks per group: the table's width for 1x1 tiles, or for window tiles
// where it has one. Those also take strided 1x1s (ResNet-18's downsampling
// layers ran 5-7 % faster), a 1x1 with exactly the window width's blocks (64
// channels on AVX-512), whose tiles then use each input value for all of them
// (as two groups of two, 32->64 channels on 112x112 ran 8 % slower), and 1x1s
// on maps of at least kWidePointwisePlane positions: MobileNet v1's 1x1s from
// 14x14 up ran 3-6 % faster at one AVX-512 thread and 2-8 % at two. On 7x7 maps
// (49 positions, tiles of 5) they ran 4 % slower at one thread, and Winograd's
// products 20 % slower (conv_2d_blocked_winograd.cc keeps blocked_conv_blocks).
int32_t GroupBlocks(const KernelTable& table, int64_t out_blocks, int64_t positions,
                    bool pointwise) {
  const int32_t wide = table.blocked_window_conv_blocks;
  if (wide > 0 && (!pointwise || out_blocks == wide || positions >= kWidePointwisePlane)) {
    return wide;
  }
  return table.blocked_conv_blocks;
}

}  // namespace

bool BlockedConv2d::Supports(const KernelTable& table, const ref::Conv2DParams& params) {
  return table.blocked_conv != nullptr && params.group == 1 &&
         params.kernel_h * params.kernel_w <= kMaxBlockedTaps;
}

BlockedConv2d::BlockedConv2d(const KernelTable& table, const ref::Conv2DParams& params,
                             const float* filter, const float* bias, bool blocked_input,
                             PersistentArena* arena, ThreadPool* pool)
    : table_(table),
      params_(params),
      blocked_input_(blocked_input),
      pointwise_(params.kernel_h == 1 && params.kernel_w == 1 && params.stride_h == 1 &&
                 params.stride_w == 1 && params.pad_top == 0 && params.pad_left == 0 &&
                 params.out_h == params.in_h && params.out_w == params.in_w),
      block_(table.channel_block),
      out_blocks_(BlockCount(params.out_channels, table.channel_block)),
      group_blocks_(GroupBlocks(table, out_blocks_, params.out_h * params.out_w, pointwise_)),
      groups_((out_blocks_ + group_blocks_ - 1) / group_blocks_) {
  separate_activation_ = !FuseActivation(params.activation, &epilogue_);
  const int64_t channels = params.in_channels;
  const int64_t taps = params.kernel_h * params.kernel_w;
  // The reduction goes in parts whose weights for a group of output blocks
  // stay in cache across the tiles of a task: kReductionPart channels of a
  // 1x1, and for other windows as many as fit kWindowPartBytes (whole
  // channel blocks on a blocked input).
  const int64_t part_bytes = table.blocked_l1d_bytes > 0
                                 ? table.blocked_l1d_bytes * kWindowPartOfL1dSixths / 6
                                 : kWindowPartBytes;
  const int64_t part_floats =
      part_bytes / static_cast<int64_t>(sizeof(float)) / (group_blocks_ * taps * block_);
  reduction_part_ = pointwise_      ? kReductionPart
                    : blocked_input ? std::max<int64_t>(1, part_floats / block_) * block_
                                    : std::max<int64_t>(1, part_floats);
  // Per output block and part, tap by tap, a vector per input channel: a
  // part's weights are one contiguous stretch (stretches of taps a power of
  // two apart would share L1 sets).
  //
  // Written in order, one output block's vector (a cache line on AVX-512) at
  // a time, every float once, padding lanes as zeros: the arena need not
  // zero it first. Filter by filter, each store went to another cache line
  // and the whole buffer was swept once per lane: that loop took 15 ms of
  // ResNet-18's engine creation.
  weights_.AllocateUnfilled(out_blocks_ * channels * taps * block_, arena);
  const int64_t out_c = params.out_channels, L = block_, part_size = reduction_part_;
  float* weights = weights_.data();
  // The table's kernel turns a block's filter rows into lane vectors (one
  // gather per vector on x86), into place for a 1x1 and through a buffer of
  // kPackChannels channels' taps for other windows, whose taps go apart.
  const int64_t row_floats = channels * taps;
  const BlockedPackKernel pack =
      row_floats * (L - 1) < (int64_t{1} << 31) ? table.blocked_pack : nullptr;
  constexpr int64_t kPackChannels = 16;
  ParallelFor(pool, out_blocks_, [&](int64_t begin, int64_t end) {
    std::vector<float> buffer(pack != nullptr && taps > 1 ? kPackChannels * taps * L : 0);
    for (int64_t ob = begin; ob < end; ++ob) {
      const int64_t lanes = std::min(L, out_c - ob * L);
      const float* rows = filter + ob * L * row_floats;
      for (int64_t c0 = 0; c0 < channels; c0 += part_size) {
        const int64_t part = std::min(part_size, channels - c0);
        float* stretch = weights + (ob * channels + c0) * taps * L;
        if (pack != nullptr && taps == 1) {
          pack(rows + c0, row_floats, static_cast<int>(lanes), part, stretch);
          continue;
        }
        for (int64_t c1 = c0; c1 < c0 + part; c1 += kPackChannels) {
          const int64_t c2 = std::min(c0 + part, c1 + kPackChannels);
          if (pack != nullptr) {
            pack(rows + c1 * taps, row_floats, static_cast<int>(lanes), (c2 - c1) * taps,
                 buffer.data());
          }
          for (int64_t c = c1; c < c2; ++c) {
            for (int64_t t = 0; t < taps; ++t) {
              float* dst = stretch + (t * part + c - c0) * L;
              if (pack != nullptr) {
                CopyBlockVector(buffer.data() + ((c - c1) * taps + t) * L, L, dst);
                continue;
              }
              const float* src = rows + c * taps + t;
              for (int64_t lane = 0; lane < lanes; ++lane) dst[lane] = src[lane * row_floats];
              for (int64_t lane = lanes; lane < L; ++lane) dst[lane] = 0.f;
            }
          }
        }
      }
    }
  });
  PadToBlocks(bias, params.out_channels, block_, arena, &bias_);
  const int64_t pos_mul = blocked_input ? block_ : 1;
  padded_h_ =
      std::max(params.in_h, (params.out_h - 1) * params.stride_h +
                                (params.kernel_h - 1) * params.dilation_h + 1 - params.pad_top);
  padded_w_ =
      std::max(params.in_w, (params.out_w - 1) * params.stride_w +
                                (params.kernel_w - 1) * params.dilation_w + 1 - params.pad_left);
  padded_h_ += params.pad_top;
  padded_w_ += params.pad_left;
  padded_ = !pointwise_ && (padded_h_ != params.in_h || padded_w_ != params.in_w);
  if (!padded_) padded_h_ = params.in_h, padded_w_ = params.in_w;
  for (int64_t ky = 0; ky < params.kernel_h; ++ky) {
    for (int64_t kx = 0; kx < params.kernel_w; ++kx) {
      tap_offsets_.push_back((ky * params.dilation_h * padded_w_ + kx * params.dilation_w) *
                             pos_mul);
    }
  }
  gather_ = !pointwise_ && params.out_w < kGatherWidth &&
            params.out_h * params.out_w <= kMaxGatherPositions;
  // Bands of rows of about 128 positions, of equal height.
  const int64_t band_height = std::max<int64_t>(1, 128 / std::max<int64_t>(1, params.out_w));
  bands_ = (params.out_h + band_height - 1) / band_height;
  band_ = (params.out_h + bands_ - 1) / bands_;
  // Bands overlap by the window's height less the stride: padded band by
  // band, a 3x3 stride-2 stem copies its input 1.5 times. A window whose
  // bands would copy it more often (ResNet-18's 7x7 stride-2 stem, 3.5
  // times: the stem gained 2 % and the pooling after it lost 9 %) still
  // copies it whole, once.
  band_rows_ = (band_ - 1) * params.stride_h + (params.kernel_h - 1) * params.dilation_h + 1;
  band_pad_ = padded_ && !blocked_input && !gather_ &&
              2 * band_rows_ <= 3 * band_ * params.stride_h;
  if (band_pad_) {
    band_floats_ = channels * band_rows_ * padded_w_;
    band_channel_offsets_.resize(channels);
    for (int64_t c = 0; c < channels; ++c) band_channel_offsets_[c] = c * band_rows_ * padded_w_;
    // Output columns whose taps are all inside the input's columns.
    const int64_t sw = params.stride_w, reach = (params.kernel_w - 1) * params.dilation_w;
    direct_first_ = std::min(params.out_w, (params.pad_left + sw - 1) / sw);
    direct_last_ = std::min(params.out_w, params.in_w - 1 + params.pad_left - reach >= 0
                                              ? (params.in_w - 1 + params.pad_left - reach) / sw + 1
                                              : 0);
    if (direct_last_ - direct_first_ >= kMinDirectColumns) {
      strip_col_[0] = 0;
      strip_w_[0] = direct_first_ > 0 ? (direct_first_ - 1) * sw + reach + 1 : 0;
      strip_col_[1] = direct_last_ * sw;
      strip_w_[1] = direct_last_ < params.out_w ? (params.out_w - 1 - direct_last_) * sw + reach + 1
                                                : 0;
      strip_floats_[0] = 0;
      strip_floats_[1] = channels * band_rows_ * strip_w_[0];
      // The strips take no more of the band buffer than a padded band.
      direct_ = strip_w_[0] + strip_w_[1] <= padded_w_;
    }
  }
  if (direct_) {
    const int64_t in_plane = params.in_h * params.in_w;
    for (int64_t c = 0; c < channels; ++c) direct_channel_offsets_.push_back(c * in_plane);
    for (int s = 0; s < 2; ++s) {
      for (int64_t c = 0; c < channels; ++c) {
        strip_channel_offsets_[s].push_back(strip_floats_[s] + c * band_rows_ * strip_w_[s]);
      }
    }
    for (int64_t ky = 0; ky < params.kernel_h; ++ky) {
      for (int64_t kx = 0; kx < params.kernel_w; ++kx) {
        const int64_t dy = ky * params.dilation_h, dx = kx * params.dilation_w;
        direct_tap_offsets_.push_back(dy * params.in_w + dx);
        for (int s = 0; s < 2; ++s) strip_tap_offsets_[s].push_back(dy * strip_w_[s] + dx);
      }
    }
  }
  if (gather_) {
    pos_offsets_.resize(params.out_h * params.out_w);
    for (int64_t y = 0; y < params.out_h; ++y) {
      for (int64_t x = 0; x < params.out_w; ++x) {
        pos_offsets_[y * params.out_w + x] =
            (y * params.stride_h * padded_w_ + x * params.stride_w) * pos_mul;
      }
    }
  }
  const int64_t plane = padded_h_ * padded_w_;
  channel_offsets_.resize(channels);
  for (int64_t c = 0; c < channels; ++c) {
    channel_offsets_[c] = blocked_input ? (c / block_) * plane * block_ + c % block_ : c * plane;
  }
}

int64_t BlockedConv2d::ScratchBytes() const {
  if (!padded_) return 0;
  const int64_t channels =
      blocked_input_ ? BlockCount(params_.in_channels, block_) * block_ : params_.in_channels;
  return params_.batch * channels * padded_h_ * padded_w_ * static_cast<int64_t>(sizeof(float));
}

void BlockedConv2d::PadInput(const float* input, float* padded, ThreadPool* pool) const {
  const ref::Conv2DParams& p = params_;
  const int64_t pos_mul = blocked_input_ ? block_ : 1;
  const int64_t planes =
      p.batch * (blocked_input_ ? BlockCount(p.in_channels, block_) : p.in_channels);
  const int64_t row = p.in_w * pos_mul, padded_row = padded_w_ * pos_mul;
  // In bands of rows, so that a stem's three planes split evenly too.
  constexpr int64_t kBandRows = 32;
  const int64_t bands = (padded_h_ + kBandRows - 1) / kBandRows;
  ParallelFor(pool, planes * bands, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t plane = task / bands, y0 = task % bands * kBandRows;
      const float* src = input + plane * p.in_h * row;
      float* dst = padded + plane * padded_h_ * padded_row;
      for (int64_t y = y0; y < std::min(padded_h_, y0 + kBandRows); ++y) {
        PadRow(src, row, y, dst + y * padded_row);
      }
    }
  });
}

void BlockedConv2d::PadStripRow(const float* plane, int64_t y, int64_t col, int64_t width,
                                float* out) const {
  const ref::Conv2DParams& p = params_;
  const int64_t iy = y - p.pad_top;
  const bool row_inside = iy >= 0 && iy < p.in_h;
  for (int64_t x = 0; x < width; ++x) {
    const int64_t ix = col + x - p.pad_left;
    out[x] = row_inside && ix >= 0 && ix < p.in_w ? plane[iy * p.in_w + ix] : 0.f;
  }
}

void BlockedConv2d::PadRow(const float* plane, int64_t row, int64_t y, float* out) const {
  const ref::Conv2DParams& p = params_;
  const int64_t pos_mul = blocked_input_ ? block_ : 1;
  const int64_t padded_row = padded_w_ * pos_mul;
  const int64_t iy = y - p.pad_top;
  if (iy < 0 || iy >= p.in_h) {
    std::fill(out, out + padded_row, 0.f);
    return;
  }
  const int64_t left = p.pad_left * pos_mul;
  std::fill(out, out + left, 0.f);
  std::copy(plane + iy * row, plane + (iy + 1) * row, out + left);
  std::fill(out + left + row, out + padded_row, 0.f);
}

void BlockedConv2d::Run(const float* input, float* output, ThreadPool* pool, float* scratch) const {
  const ref::Conv2DParams& p = params_;
  const int64_t L = block_;
  const int64_t pos_mul = blocked_input_ ? L : 1;
  const int64_t threads = NumThreads(pool);
  // Each thread pads its bands in its own part of the scratch, which holds
  // the whole padded copy, so any thread count up to what that leaves room
  // for.
  const bool in_bands =
      band_pad_ && threads * band_floats_ <= ScratchBytes() / static_cast<int64_t>(sizeof(float));
  const float* raw_input = input;
  if (padded_ && !in_bands) {
    PadInput(input, scratch, pool);
    input = scratch;
  }
  const int64_t in_plane = padded_h_ * padded_w_;
  const int64_t out_plane = p.out_h * p.out_w;
  const int64_t in_batch =
      blocked_input_ ? BlockCount(p.in_channels, block_) * in_plane * L : p.in_channels * in_plane;
  const int64_t out_batch = out_blocks_ * out_plane * L;
  // Pointwise and narrow-map chunks split the plane evenly, in whole
  // 8-position tiles where they can: a chunk of one or two positions would
  // stream its weights once more for almost nothing. Other windows go in
  // bands of rows of about 128 positions, of equal height.
  const int64_t band = band_;
  const bool by_position = pointwise_ || gather_;
  int64_t chunks = by_position ? (out_plane + kPointwiseChunk - 1) / kPointwiseChunk : bands_;
  // A small map (7x7, 14x14) with groups enough to keep every thread busy
  // goes whole: each group then brings its weights in once, not once per
  // chunk (a 3x3 group of 4 blocks over 512 channels holds 1.2 MB, more
  // than L2), and a 1x1 on a 7x7 map goes in tiles of 7 without an
  // overlapped remainder. With several threads the groups are first made a
  // multiple of the threads (11 groups of 32 blocks become 12 of 2 or 3),
  // so that each thread gets the same number of blocks.
  int64_t groups = groups_;
  bool group_chunks = false;  // chunks of a whole group's map, not of a thread's share
  if (by_position && out_plane <= kSmallPlane) {
    const int64_t even = (groups_ + threads - 1) / threads * threads;
    const int64_t candidate = even <= out_blocks_ ? even : groups_;
    const int64_t tasks = candidate * p.batch;
    if (tasks >= kTasksPerThread * threads &&
        static_cast<double>((tasks + threads - 1) / threads * threads) <=
            kMaxTaskImbalance * static_cast<double>(tasks)) {
      chunks = 1;
      groups = candidate;
      // A 1x1 in groups of four blocks whose reduction goes in parts still
      // takes a 14x14 map in chunks of twelve 6-position tiles, each group
      // over its chunks in turn (its weights stay in L2 across them), so
      // that the partial sums a part reads back are a chunk's, not the
      // whole map's: MobileNet v1's 14x14 layers ran 4-6 % faster in the
      // network at one thread than with the whole map per group. Chunks of
      // 104 and 40 positions, which leave overlapped tiles, were 4 % slower
      // and no faster. With several threads the groups stay what splits
      // the work: a thread's slots are whole groups, each over its chunks,
      // as at one thread.
      if (pointwise_ && group_blocks_ == table_.blocked_window_conv_blocks &&
          p.in_channels > reduction_part_) {
        chunks = (out_plane + kSmallPlaneChunk - 1) / kSmallPlaneChunk;
        group_chunks = true;
      }
    }
  }
  // With several threads and few chunks of positions, the chunks are made a
  // multiple of the threads, the plane is split evenly into one share per
  // thread (in units of 4 positions, whole cache lines of output), and each
  // share is cut as a whole plane is: chunks of whole 8-position tiles but
  // the last. Cut only that way, the short remainder fell to the last
  // thread: SqueezeNet 1.1's 13x13 squeeze layers (169 positions, one group
  // of output blocks) went 96 positions to one thread and 73 to the other,
  // now 88 and 81. Many chunks keep that cut: the remainder is a small part
  // of a thread's work there. The starts are computed once here, since the
  // slots' search below asks for them many times.
  int64_t even_starts[kMaxEvenChunks + 1];
  bool even_shares = false;
  const int64_t position_units = (out_plane + 3) / 4;
  if (by_position && chunks > 1 && threads > 1 && !group_chunks) {
    const int64_t even = std::min((chunks + threads - 1) / threads * threads, position_units);
    if (even % threads == 0 && even <= kMaxEvenChunks) {
      chunks = even;
      even_shares = true;
      const int64_t per_share = chunks / threads;
      for (int64_t share = 0; share < threads; ++share) {
        int64_t first = 0, last = 0;
        ThreadPool::ChunkRange(position_units, static_cast<int>(threads), static_cast<int>(share),
                               &first, &last);
        first = std::min(first * 4, out_plane);
        last = std::min(last * 4, out_plane);
        const int64_t size =
            std::min(last - first, ((last - first + per_share - 1) / per_share + 7) / 8 * 8);
        for (int64_t k = 0; k < per_share; ++k) {
          even_starts[share * per_share + k] = std::min(first + k * size, last);
        }
      }
      even_starts[chunks] = out_plane;
    }
  }
  const int64_t chunk_size = std::min(out_plane, ((out_plane + chunks - 1) / chunks + 7) / 8 * 8);
  // Positions before chunk c, for c up to chunks.
  auto position_start = [&](int64_t c) {
    return even_shares ? even_starts[c] : std::min(c * chunk_size, out_plane);
  };
  const int64_t taps = p.kernel_h * p.kernel_w;
  const bool weights_major = weights_.size() >= in_batch;
  // A run adds up its reduction's parts in place. When a 1x1's weights
  // outweigh its input, they come from memory (each is used once per
  // inference, and a network's worth does not stay in cache): a group's
  // first task prefetches each next part while it computes one, and its
  // last the next group's first part, or a part's first tile waits on
  // misses the hardware prefetcher does not hide (MobileNet v1's
  // 1024-channel 7x7 layer ran 20 % slower in the network than with its
  // weights in cache). Later chunks of a group find them in L2. Smaller
  // weights stay in cache, where a prefetch only costs its issue.
  auto run_parts = [&](BlockedConvRun run, int64_t g, int64_t chunk) {
    const float* weights = run.weights;
    const int64_t* channel_offsets = run.channel_offsets;
    const bool prefetch_parts = pointwise_ && weights_major && chunk == 0;
    const bool prefetch_next_group =
        pointwise_ && weights_major && chunk == chunks - 1 && g + 1 < groups;
    for (int64_t c0 = 0; c0 < p.in_channels; c0 += reduction_part_) {
      run.channels = std::min(reduction_part_, p.in_channels - c0);
      run.channel_offsets = channel_offsets + c0;
      run.weights = weights + c0 * taps * L;
      run.weight_tap_stride = run.channels * L;
      run.epilogue.accumulate = c0 > 0;
      run.epilogue.last = c0 + run.channels == p.in_channels;
      run.prefetch = nullptr;
      if (!run.epilogue.last && prefetch_parts) {
        run.prefetch = run.weights + run.channels * L;
        run.prefetch_floats = std::min(reduction_part_, p.in_channels - c0 - run.channels) * L;
        run.prefetch_blocks = run.blocks;
      } else if (run.epilogue.last && prefetch_next_group) {
        run.prefetch = weights + run.blocks * run.weight_block_stride;
        run.prefetch_floats = std::min(reduction_part_, p.in_channels) * L;
        run.prefetch_blocks = GroupSize(g + 1, groups);
      }
      table_.blocked_conv(run);
    }
  };
  const int64_t raw_batch = p.in_channels * p.in_h * p.in_w;
  // The pool gives each thread a near-equal share of the tasks, but tasks
  // differ in work (a group of fewer blocks, a short last chunk or band),
  // and a piece in progress cannot be taken over. The tasks go in
  // kSlotsPerThread slots per thread instead, as many as the pool makes
  // pieces, each of near-equal work: output blocks times positions, so that
  // those count for what they are (MobileNet v1's 28x28 layers' first thread
  // did 4 % more than half the work with equal task counts, 1 % now).
  const int64_t tasks = p.batch * groups * chunks;
  const int64_t slots = std::min(tasks, threads * kSlotsPerThread);
  // Positions before chunk c (a chunk of positions, or a band of rows).
  auto chunk_start = [&](int64_t c) {
    return by_position ? position_start(c) : std::min(c * band, p.out_h) * p.out_w;
  };
  // Blocks x positions of the tasks before `task`, in the loop's order.
  auto work_before = [&](int64_t task) {
    const int64_t n = task / (groups * chunks), rest = task % (groups * chunks);
    int64_t work = n * out_blocks_ * out_plane;
    if (weights_major) {
      const int64_t g = rest / chunks, chunk = rest % chunks;
      return work + GroupFirst(g, groups) * out_plane + GroupSize(g, groups) * chunk_start(chunk);
    }
    const int64_t chunk = rest / groups, g = rest % groups;
    return work + out_blocks_ * chunk_start(chunk) +
           GroupFirst(g, groups) * (chunk_start(chunk + 1) - chunk_start(chunk));
  };
  const int64_t total_work = p.batch * out_blocks_ * out_plane;
  // The first task of slot s: the first whose work before reaches s / slots
  // of the total.
  auto slot_start = [&](int64_t s) {
    const int64_t target = s * total_work / slots;
    int64_t lo = 0, hi = tasks;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (work_before(mid) >= target) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  };
  ParallelFor(pool, slots, [&](int64_t first_slot, int64_t last_slot, int thread) {
    const int64_t begin = slot_start(first_slot);
    const int64_t end = last_slot == slots ? tasks : slot_start(last_slot);
    int64_t band_in_buffer = -1;  // batch * chunks + chunk of the rows padded last
    for (int64_t task = begin; task < end; ++task) {
      const int64_t n = task / (groups * chunks);
      // A thread's consecutive tasks share what is larger, the weights or the
      // input, so that it stays in cache: a group of output blocks over its
      // chunks, or a chunk of positions over every group.
      const int64_t g = weights_major ? task / chunks % groups : task % groups;
      const int64_t chunk = weights_major ? task % chunks : task / groups % chunks;
      BlockedConvRun run;
      run.in = input + n * in_batch;
      run.channels = p.in_channels;
      run.channel_offsets = channel_offsets_.data();
      run.weight_block_stride = p.in_channels * taps * L;
      const int64_t first_block = GroupFirst(g, groups);
      run.weights = weights_.data() + first_block * run.weight_block_stride;
      run.bias = bias_.data() + first_block * L;
      run.out_block_stride = out_plane * L;
      run.blocks = GroupSize(g, groups);
      run.epilogue = epilogue_;
      run.blocked_input = blocked_input_;
      float* out = output + n * out_batch + first_block * out_plane * L;
      if (pointwise_) {
        const int64_t p0 = position_start(chunk), p1 = position_start(chunk + 1);
        if (p1 <= p0) continue;
        const int64_t tap_offset = p0 * pos_mul;
        run.taps = 1;
        run.tap_offsets = &tap_offset;
        run.pos_step = pos_mul;
        run.positions = p1 - p0;
        run.out = out + p0 * L;
        run_parts(run, g, chunk);
        continue;
      }
      if (gather_) {
        const int64_t p0 = position_start(chunk), p1 = position_start(chunk + 1);
        if (p1 <= p0) continue;
        run.taps = static_cast<int32_t>(taps);
        run.tap_offsets = tap_offsets_.data();
        run.pos_step = p.stride_w * pos_mul;
        run.pos_offsets = pos_offsets_.data() + p0;
        run.positions = p1 - p0;
        run.out = out + p0 * L;
        run_parts(run, g, chunk);
        continue;
      }
      // Every tap of every output is inside the (padded) input: whole rows.
      const int64_t y0 = chunk * band;
      run.taps = static_cast<int32_t>(taps);
      run.tap_offsets = tap_offsets_.data();
      run.pos_step = p.stride_w * pos_mul;
      run.positions = p.out_w;
      run.rows = std::min(band, p.out_h - y0);
      run.in_row_step = p.stride_h * padded_w_ * pos_mul;
      run.out_row_step = p.out_w * L;
      run.out = out + y0 * run.out_row_step;
      if (in_bands) {
        // The rows this band's taps read, padded into the thread's buffer
        // (once for the groups of output blocks that follow on it).
        float* rows = scratch + thread * band_floats_;
        const int64_t first = y0 * p.stride_h;
        const int64_t count = (run.rows - 1) * p.stride_h + (p.kernel_h - 1) * p.dilation_h + 1;
        const float* planes = raw_input + n * raw_batch;
        // Rows all inside the input: the inner columns in place, only the
        // edges from padded strips.
        const bool direct =
            direct_ && first - p.pad_top >= 0 && first - p.pad_top + count <= p.in_h;
        if (direct) {
          if (band_in_buffer != n * chunks + chunk) {
            band_in_buffer = n * chunks + chunk;
            for (int s = 0; s < 2; ++s) {
              for (int64_t c = 0; c < p.in_channels && strip_w_[s] > 0; ++c) {
                for (int64_t r = 0; r < count; ++r) {
                  PadStripRow(planes + c * p.in_h * p.in_w, first + r, strip_col_[s], strip_w_[s],
                              rows + strip_channel_offsets_[s][c] + r * strip_w_[s]);
                }
              }
            }
          }
          const int64_t column[3] = {0, direct_first_, direct_last_};
          const int64_t column_end[3] = {direct_first_, direct_last_, p.out_w};
          for (int part = 0; part < 3; ++part) {
            if (column_end[part] <= column[part]) continue;
            BlockedConvRun edge = run;
            edge.positions = column_end[part] - column[part];
            edge.out = run.out + column[part] * L;
            if (part == 1) {
              edge.in = planes + (first - p.pad_top) * p.in_w +
                        (direct_first_ * p.stride_w - p.pad_left);
              edge.channel_offsets = direct_channel_offsets_.data();
              edge.tap_offsets = direct_tap_offsets_.data();
              edge.in_row_step = p.stride_h * p.in_w;
            } else {
              const int s = part / 2;
              edge.in = rows;
              edge.channel_offsets = strip_channel_offsets_[s].data();
              edge.tap_offsets = strip_tap_offsets_[s].data();
              edge.in_row_step = p.stride_h * strip_w_[s];
            }
            run_parts(edge, g, chunk);
          }
          continue;
        }
        if (band_in_buffer != n * chunks + chunk) {
          band_in_buffer = n * chunks + chunk;
          for (int64_t c = 0; c < p.in_channels; ++c) {
            for (int64_t r = 0; r < count; ++r) {
              PadRow(planes + c * p.in_h * p.in_w, p.in_w, first + r,
                     rows + band_channel_offsets_[c] + r * padded_w_);
            }
          }
        }
        run.in = rows;
        run.channel_offsets = band_channel_offsets_.data();
      } else {
        run.in += y0 * run.in_row_step;
      }
      run_parts(run, g, chunk);
    }
  });
  if (separate_activation_) {
    ApplyActivation(p.activation, output, p.batch * out_batch, pool);
  }
}

bool BlockedConv2d::RunsRows() const {
  return !pointwise_ && !gather_ && !blocked_input_ && !band_pad_ && !separate_activation_;
}

const float* BlockedConv2d::RowsInput(const float* input, float* scratch, ThreadPool* pool) const {
  if (!padded_) return input;
  PadInput(input, scratch, pool);
  return scratch;
}

void BlockedConv2d::RunRows(const float* input, int64_t n, int64_t y0, int64_t y1, float* rows,
                            int64_t block_stride) const {
  const ref::Conv2DParams& p = params_;
  const int64_t L = block_, taps = p.kernel_h * p.kernel_w;
  const int64_t in_row_step = p.stride_h * padded_w_;
  const float* image = input + n * p.in_channels * padded_h_ * padded_w_;
  // Each group of output blocks over the rows, in bands of band_ rows as
  // Run goes: a part's weights stay in L1 over a band's tiles.
  for (int64_t g = 0; g < groups_; ++g) {
    const int64_t first_block = GroupFirst(g, groups_);
    for (int64_t y = y0; y < y1; y += band_) {
      BlockedConvRun run;
      run.in = image + y * in_row_step;
      run.weight_block_stride = p.in_channels * taps * L;
      run.bias = bias_.data() + first_block * L;
      run.out = rows + first_block * block_stride + (y - y0) * p.out_w * L;
      run.out_block_stride = block_stride;
      run.blocks = GroupSize(g, groups_);
      run.epilogue = epilogue_;
      run.taps = static_cast<int32_t>(taps);
      run.tap_offsets = tap_offsets_.data();
      run.pos_step = p.stride_w;
      run.positions = p.out_w;
      run.rows = std::min(band_, y1 - y);
      run.in_row_step = in_row_step;
      run.out_row_step = p.out_w * L;
      const float* weights = weights_.data() + first_block * run.weight_block_stride;
      for (int64_t c0 = 0; c0 < p.in_channels; c0 += reduction_part_) {
        run.channels = std::min(reduction_part_, p.in_channels - c0);
        run.channel_offsets = channel_offsets_.data() + c0;
        run.weights = weights + c0 * taps * L;
        run.weight_tap_stride = run.channels * L;
        run.epilogue.accumulate = c0 > 0;
        run.epilogue.last = c0 + run.channels == p.in_channels;
        table_.blocked_conv(run);
      }
    }
  }
}

}  // namespace ops
}  // namespace mace
