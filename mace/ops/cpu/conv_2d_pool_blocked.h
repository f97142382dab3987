// A network's stem and the windowed pooling that reads its output, fused
// on channel-blocked tensors: each task computes the stem's output rows
// that a band of pooling rows reads, over every channel block, into a
// per-thread buffer that stays in L2, and pools them there, so the stem's
// large output (64 x 112 x 112 in ResNet-18) is never written to memory
// nor read back.
#ifndef MACE_OPS_CPU_CONV_2D_POOL_BLOCKED_H_
#define MACE_OPS_CPU_CONV_2D_POOL_BLOCKED_H_

#include <cstdint>
#include <memory>

#include "mace/ops/cpu/conv_2d_blocked.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/cpu/pooling_blocked.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/ops/ref/pooling.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// Whether stems absorb the pooling that alone reads them: the current
// engine's CpuTunables::fuse_conv_pooling (on unless configured off or
// MACE_CPU_FUSE_POOLING=0).
bool ConvPoolingFusionEnabled();

// Whether fusing pays: a convolution output of at least kLastFirstBytes,
// more than an L2 (a smaller one stays there between the two layers).
bool ConvPoolingFusionPays(const ref::Conv2DParams& conv, int block);

class BlockedConvPool {
 public:
  // One thread's band buffer, about half an L2 of 1 MiB, so that it stays
  // there with the input rows the band reads (ResNet-18's 64 x 112 stem
  // output: 17 rows for 8 pooling rows).
  static constexpr int64_t kBandBytes = 512 << 10;

  // A convolution BlockedConv2d runs a few rows at a time (RunsRows; `conv`
  // built for a plain input), and a windowed pooling over its whole output.
  static bool Supports(const KernelTable& table, const BlockedConv2d& conv,
                       const ref::PoolingParams& pooling);
  // `conv` is the convolution's blocked kernel, which this one takes over;
  // a band holds as many convolution rows as fit `band_bytes`.
  BlockedConvPool(const KernelTable& table, std::unique_ptr<BlockedConv2d> conv,
                  const ref::PoolingParams& pooling, int64_t band_bytes = kBandBytes);
  // Scratch Run needs with `threads` threads: the convolution's padded
  // input, then a band buffer per thread.
  int64_t ScratchBytes(int threads) const;
  // Plain input (the convolution's), blocked output (the pooling's).
  void Run(const float* input, float* output, ThreadPool* pool, float* scratch) const;

 private:
  // Pooling output rows per task with `threads` threads: band_, or less when
  // that makes the tasks (bands over every image) a multiple of the threads
  // with no more tasks than the next such multiple, so that each thread
  // pools as many bands (ResNet-18's 56 rows went as 7 bands of 8, 4 to one
  // thread and 3 to the other; now 8 of 7).
  int64_t BandRows(int threads) const;

  std::unique_ptr<BlockedConv2d> conv_;
  BlockedPooling pooling_;
  int block_;
  int64_t blocks_;
  int64_t band_;           // pooling output rows per task, at most
  int64_t buffer_rows_;    // convolution output rows a band reads, at most
  int64_t buffer_floats_;  // one thread's band buffer
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_POOL_BLOCKED_H_
