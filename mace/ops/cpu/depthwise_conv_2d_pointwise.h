// A depthwise convolution and the 1x1 convolution that reads its output,
// fused on channel-blocked tensors: each task computes a band of depthwise
// output rows over every channel block into a per-thread buffer that stays
// in L2, then runs the 1x1 tiles on that band, so the depthwise output is
// never written to memory nor read back.
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_POINTWISE_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_POINTWISE_H_

#include <cstdint>

#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/ops/ref/depthwise_conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// A CPU op whose work may be a blocked 1x1 convolution that a depthwise
// op absorbs (Operation::AbsorbReader): Conv2D's kernel.
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
// on unless MACE_CPU_FUSE_DEPTHWISE=0.
bool DepthwisePointwiseFusionEnabled();
// The smallest output map (height times width) where the fused kernel
// beats the two layers: 56x56.
constexpr int64_t kDepthwisePointwiseMinPlane = 56 * 56;

class BlockedDepthwisePointwise {
 public:
  // A depthwise layer BlockedDepthwise runs with its activation fused, and
  // a 1x1 convolution (stride 1, no padding, fused activation) over its
  // whole output.
  static bool Supports(const KernelTable& table, const ref::DepthwiseConv2dParams& depthwise,
                       const ref::Conv2DParams& pointwise);
  BlockedDepthwisePointwise(const KernelTable& table, const ref::DepthwiseConv2dParams& depthwise,
                            const float* depthwise_filter, const float* depthwise_bias,
                            const ref::Conv2DParams& pointwise, const float* pointwise_filter,
                            const float* pointwise_bias, PersistentArena* arena = nullptr);
  // Scratch Run needs with `threads` threads: a band buffer each.
  int64_t ScratchBytes(int threads) const;
  // Blocked input (the depthwise layer's) and output (the 1x1 layer's).
  void Run(const float* input, float* output, ThreadPool* pool, float* scratch) const;

 private:
  // The 1x1 layer on the band of `rows` rows from output row y0 of image
  // n, whose depthwise output is in `band`.
  void RunPointwise(const float* band, int64_t n, int64_t y0, int64_t rows, float* output) const;

  const KernelTable& table_;
  BlockedDepthwise depthwise_;
  ref::Conv2DParams pointwise_;
  int block_;
  int64_t in_blocks_, out_blocks_;
  int32_t group_blocks_;
  int64_t band_rows_;     // depthwise output rows per task
  int64_t band_floats_;   // one thread's band buffer
  TileEpilogue epilogue_;
  std::vector<int64_t> channel_offsets_;  // in the band buffer
  PersistentFloats weights_;  // [out block][channel][lane]
  PersistentFloats bias_;     // [out block][lane]
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_POINTWISE_H_
