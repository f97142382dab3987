// DepthwiseConv2d on channel-blocked tensors (cpu/blocked_layout.h).
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_BLOCKED_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_BLOCKED_H_

#include <cstdint>
#include <vector>

#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/depthwise_conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// Depthwise convolution (multiplier 1), blocked input and output.
class BlockedDepthwise {
 public:
  static bool Supports(const KernelTable& table, const ref::DepthwiseConv2dParams& params);
  BlockedDepthwise(const KernelTable& table, const ref::DepthwiseConv2dParams& params,
                   const float* filter, const float* bias, PersistentArena* arena = nullptr);
  void Run(const float* input, float* output, ThreadPool* pool) const;
  // Output rows [y0, y1) of channel block `block` of the image at `image`
  // (blocked), written one after the other from `rows`, on the calling
  // thread. The activation must be fused (FusesActivation).
  void RunRows(const float* image, int64_t block, int64_t y0, int64_t y1, float* rows) const;
  // As RunRows, reading channel block `block` from a plane of which only
  // the input rows from `first_row` on are stored, from `plane_rows` on
  // (rows the output rows [y0, y1) read must be among them).
  void RunRowsFrom(const float* plane_rows, int64_t first_row, int64_t block, int64_t y0,
                   int64_t y1, float* rows) const;
  bool FusesActivation() const { return !separate_activation_; }
  const ref::DepthwiseConv2dParams& params() const { return params_; }

 private:
  // Output rows [y0, y1) of one plane (one image's channel block `block`).
  void RunPlaneRows(const float* in_plane, int64_t block, int64_t y0, int64_t y1,
                    float* out_plane) const;

  const KernelTable& table_;
  ref::DepthwiseConv2dParams params_;
  BlockedWindow window_;
  int block_;
  WindowPlan plan_;
  TileEpilogue epilogue_;
  bool separate_activation_;
  PersistentFloats weights_;  // [block][tap][lane]
  PersistentFloats bias_;     // [block][lane]
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_BLOCKED_H_
