// Conv2D on channel-blocked tensors (cpu/blocked_layout.h).
#ifndef MACE_OPS_CPU_CONV_2D_BLOCKED_H_
#define MACE_OPS_CPU_CONV_2D_BLOCKED_H_

#include <cstdint>
#include <vector>

#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// Convolution with a blocked output; the input may be blocked or plain NCHW
// (a network's first convolution reads the model input as it is).
class BlockedConv2d {
 public:
  // Ungrouped, constant filter, at most kMaxBlockedTaps taps.
  static bool Supports(const KernelTable& table, const ref::Conv2DParams& params);
  // Packs the filter (and bias, or zeros when null) per output block, in
  // `arena` when given, on `pool`'s threads when given.
  BlockedConv2d(const KernelTable& table, const ref::Conv2DParams& params, const float* filter,
                const float* bias, bool blocked_input, PersistentArena* arena = nullptr,
                ThreadPool* pool = nullptr);
  // Scratch Run needs: a zero-padded copy of the input when the window
  // reaches past it.
  int64_t ScratchBytes() const;
  // `scratch` holds ScratchBytes() bytes (null when that is 0).
  void Run(const float* input, float* output, ThreadPool* pool, float* scratch) const;

  // Whether RunRows can compute this convolution a few output rows at a
  // time: a window on a wide map of a plain input (a stem) with a fused
  // activation, read in place or from one whole padded copy.
  bool RunsRows() const;
  // The input RunRows reads: `input` itself, or its padded copy, written
  // into `scratch` (ScratchBytes()) on `pool`'s threads.
  const float* RowsInput(const float* input, float* scratch, ThreadPool* pool) const;
  // Output rows [y0, y1) of image n, every output block, on the calling
  // thread: row y of block b at rows + b * block_stride + (y - y0) * out_w
  // * lanes. `input` is what RowsInput returned.
  void RunRows(const float* input, int64_t n, int64_t y0, int64_t y1, float* rows,
               int64_t block_stride) const;
  const ref::Conv2DParams& params() const { return params_; }

 private:
  // Copies the input into `padded` with zero borders.
  void PadInput(const float* input, float* padded, ThreadPool* pool) const;
  // Row y of the padded copy of one input plane (rows of `row` floats) into
  // `out`: padded_w_ positions, zero outside the input.
  void PadRow(const float* plane, int64_t row, int64_t y, float* out) const;
  // Pads padded columns [col, col + width) of padded row y of a plain input
  // plane into `out`.
  void PadStripRow(const float* plane, int64_t y, int64_t col, int64_t width, float* out) const;

  const KernelTable& table_;
  ref::Conv2DParams params_;
  bool blocked_input_;
  bool pointwise_;  // 1x1, stride 1, no padding: positions run across rows
  // Other windows read rows of a padded_h x padded_w input in which every
  // tap is inside: the input itself, or a zero-padded copy (padded_).
  bool padded_;
  int64_t padded_h_, padded_w_;
  // Windows on narrow maps run across rows instead (whole kernel tiles
  // where a row would leave a short tail): the input position of each
  // output position, in floats from the padded input's start.
  bool gather_;
  std::vector<int64_t> pos_offsets_;
  std::vector<int64_t> tap_offsets_;
  // Other windows go in bands of band_ output rows (bands_ of them).
  int64_t band_ = 0, bands_ = 0;
  // A plain padded input (a stem) is padded band by band, in each task,
  // into its thread's band_floats_ of the scratch: channels of band_rows_
  // padded rows, at band_channel_offsets_. The rows stay in L1 for the
  // tiles, and the whole padded copy is never written.
  bool band_pad_ = false;
  int64_t band_rows_ = 0, band_floats_ = 0;
  std::vector<int64_t> band_channel_offsets_;
  // Of such bands, those whose rows are all inside the input read the
  // columns [direct_first_, direct_last_) of their output rows, whose taps
  // are all inside too, in place from the input (direct_); only the output
  // columns left and right of them read padded strips, of strip_w_[s]
  // padded columns from strip_col_[s] (s = 0 left, 1 right), with
  // strip_channel_offsets_[s] and strip_tap_offsets_[s], at
  // strip_floats_[s] floats into the thread's band buffer.
  bool direct_ = false;
  int64_t direct_first_ = 0, direct_last_ = 0;
  std::vector<int64_t> direct_channel_offsets_, direct_tap_offsets_;
  int64_t strip_col_[2] = {0, 0}, strip_w_[2] = {0, 0}, strip_floats_[2] = {0, 0};
  std::vector<int64_t> strip_channel_offsets_[2], strip_tap_offsets_[2];
  // The first output block of group g of `groups`, and how many it has: the
  // output blocks split into groups of near-equal size, the larger ones
  // spread evenly (64 blocks in 22 groups: 20 of 3 and 2 of 2, not 21 and
  // one lone block, whose tiles would run on one weight vector per input
  // value; 32 blocks in 12 groups for two threads: 16 blocks per half).
  int64_t GroupFirst(int64_t g, int64_t groups) const { return g * out_blocks_ / groups; }
  int32_t GroupSize(int64_t g, int64_t groups) const {
    return static_cast<int32_t>(GroupFirst(g + 1, groups) - GroupFirst(g, groups));
  }

  int block_;
  int64_t out_blocks_, group_blocks_, groups_;
  int64_t reduction_part_;  // input channels per part of the reduction
  TileEpilogue epilogue_;
  bool separate_activation_;
  PersistentFloats weights_;  // [out block][part][tap][channel][lane]
  PersistentFloats bias_;     // [out block][lane]
  std::vector<int64_t> channel_offsets_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_BLOCKED_H_
