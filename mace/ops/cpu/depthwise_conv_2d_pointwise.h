// A depthwise convolution and the 1x1 convolution that reads its output,
// fused on channel-blocked tensors: each task computes a band of depthwise
// output rows over every channel block into a per-thread buffer that stays
// in L2, then runs the 1x1 tiles on that band, so the depthwise output is
// never written to memory nor read back. Optionally the 1x1 expansion
// before the depthwise layer too (an inverted residual block): the band's
// input rows are then computed into a second per-thread buffer, so the
// expanded tensor is never written whole either.
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_POINTWISE_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_POINTWISE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/ops/ref/depthwise_conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// A CPU op whose work may be a blocked 1x1 convolution that a depthwise
// op absorbs (the net's (DepthwiseConv2d, Conv2D) fusion): Conv2D's kernel.
class BlockedPointwiseReader {
 public:
  virtual ~BlockedPointwiseReader() = default;
  // Whether the op runs as a blocked convolution with a constant filter and
  // bias, and if so its shapes and arguments, filter (OIHW) and bias (null
  // when none). Valid after Prepare, before UseStorage.
  virtual bool BlockedConvolution(ref::Conv2DParams* params, const float** filter,
                                  const float** bias) const = 0;
};

// Whether depthwise ops absorb the 1x1 convolutions that alone read them:
// the current engine's CpuTunables (on unless configured off or
// MACE_CPU_FUSE_DEPTHWISE=0).
bool DepthwisePointwiseFusionEnabled();
// The smallest output map (height times width) where the fused kernel
// beats the two layers: 56x56.
constexpr int64_t kDepthwisePointwiseMinPlane = 56 * 56;

// Whether a 1x1 convolution that a fused depthwise and 1x1 pair alone
// reads computes into that pair (the whole inverted residual block): on
// unless the current engine's CpuTunables turn it or the pair's fusion off
// (MACE_CPU_FUSE_EXPAND=0, MACE_CPU_FUSE_DEPTHWISE=0).
bool ExpandFusionEnabled();

// A CPU op that may be a depthwise layer fused with its 1x1 reader, which
// the 1x1 expansion before it absorbs (the net's (Conv2D, DepthwiseConv2d)
// fusion): DepthwiseConv2d's kernel (DepthwiseConv2dCpuPair).
class BlockedDepthwisePointwiseReader {
 public:
  virtual ~BlockedDepthwisePointwiseReader() = default;
  // Whether the op runs as a fused depthwise and 1x1 pair, and if so both
  // layers' shapes and arguments, filters and biases (null when none).
  // Valid after the op absorbed its 1x1 reader, before UseStorage.
  virtual bool FusedLayers(ref::DepthwiseConv2dParams* depthwise, const float** depthwise_filter,
                           const float** depthwise_bias, ref::Conv2DParams* pointwise,
                           const float** pointwise_filter,
                           const float** pointwise_bias) const = 0;
};

// `count` stretches of `floats` floats, `stride` floats apart from `first`
// (none when null).
struct Stretches {
  const float* first = nullptr;
  int64_t floats = 0, stride = 0, count = 0;
};

// A blocked 1x1 convolution's weights in output blocks and its tile runs,
// reading channel-blocked positions.
class BlockedPointwiseTiles {
 public:
  // `in_block_stride`: floats from one input channel block to the next.
  BlockedPointwiseTiles(const KernelTable& table, const ref::Conv2DParams& params,
                        const float* filter, const float* bias, int64_t in_block_stride,
                        PersistentArena* arena);
  // `positions` consecutive positions from `in` to `out`, whose output
  // blocks are `out_block_stride` floats apart, on the calling thread;
  // meanwhile the tile runs bring `ahead` toward L2, a share each.
  void Run(const float* in, int64_t positions, float* out, int64_t out_block_stride,
           const Stretches& ahead = Stretches()) const;

 private:
  const KernelTable& table_;
  int block_;
  int64_t channels_, out_blocks_;
  int32_t group_blocks_;
  TileEpilogue epilogue_;
  std::vector<int64_t> channel_offsets_;
  PersistentFloats weights_;  // [out block][channel][lane]
  PersistentFloats bias_;     // [out block][lane]
};

class BlockedDepthwisePointwise {
 public:
  // A depthwise layer BlockedDepthwise runs with its activation fused, and
  // a 1x1 convolution (stride 1, no padding, fused activation) over its
  // whole output.
  static bool Supports(const KernelTable& table, const ref::DepthwiseConv2dParams& depthwise,
                       const ref::Conv2DParams& pointwise);
  // A 1x1 expansion (stride 1, no padding, fused activation) whose output
  // is the whole input of such a depthwise layer.
  static bool SupportsExpand(const KernelTable& table, const ref::Conv2DParams& expand,
                             const ref::DepthwiseConv2dParams& depthwise);
  // Whether fusing the expansion gains: its blocked output is 2 MiB or
  // more (kLastFirstBytes), more than L2 holds, and at least 4 times as
  // wide as its input (an inverted residual block's expansion, not a 1x1
  // that the depthwise op before it would rather absorb). MobileNet v2's
  // 16 -> 96 expansion on 112x112 ran 0.81x of the pair's time with it,
  // the 24 -> 144 one on 56x56 (1.8 MB) 0.97-1.05x; MobileNet v1's 2x 1x1
  // layers before its 56x56 pairs took 1.04x with the pairs before them.
  static bool ExpandPays(const ref::Conv2DParams& expand, int block);
  // With `expand` (filter OIHW, bias null when none), Run computes the
  // expansion too and reads the expansion's input.
  BlockedDepthwisePointwise(const KernelTable& table, const ref::DepthwiseConv2dParams& depthwise,
                            const float* depthwise_filter, const float* depthwise_bias,
                            const ref::Conv2DParams& pointwise, const float* pointwise_filter,
                            const float* pointwise_bias, PersistentArena* arena = nullptr,
                            const ref::Conv2DParams* expand = nullptr,
                            const float* expand_filter = nullptr,
                            const float* expand_bias = nullptr);
  // Scratch Run needs with `threads` threads: band buffers each.
  int64_t ScratchBytes(int threads) const;
  // Blocked input (the expansion's, else the depthwise layer's) and output
  // (the 1x1 layer's).
  void Run(const float* input, float* output, ThreadPool* pool, float* scratch) const;

 private:
  // The expanded rows one thread holds, rows [first, end) of image `image`
  // from the start of its buffer.
  struct ExpandedRows {
    int64_t image = -1, first = 0, end = 0;
  };
  // Makes rows [r0, r1) of image n's expansion present in `buffer`,
  // keeping the rows it already holds (a band's first rows are the band
  // above's last) and computing the others.
  void Expand(const float* input, int64_t n, int64_t r0, int64_t r1, float* buffer,
              ExpandedRows* held) const;
  // The input rows [*r0, *r1) the depthwise output rows [y0, y1) read.
  void InputRows(int64_t y0, int64_t y1, int64_t* r0, int64_t* r1) const;

  BlockedDepthwise depthwise_;
  int block_;
  int64_t in_blocks_, out_blocks_;
  int64_t out_plane_;     // 1x1 output positions per image
  int64_t band_rows_;     // depthwise output rows per task
  int64_t band_floats_;   // one thread's band buffer
  BlockedPointwiseTiles pointwise_;
  // Whether the 1x1 tiles bring the next band's input rows toward L2 (see
  // Run).
  bool prefetch_input_;
  // The expansion, when fused: its input's blocks, the rows its buffer
  // holds and that buffer's floats per thread.
  std::unique_ptr<BlockedPointwiseTiles> expand_;
  int64_t expand_in_blocks_ = 0, expand_rows_ = 0, expand_floats_ = 0;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_POINTWISE_H_
