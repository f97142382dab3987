// Fast 3x3 depthwise convolution at stride 1 or 2 (any vertical stride 1 or
// 2, no dilation, any padding and channel multiplier).
//
// Each output row splits into a left border, an interior whose taps are all
// inside the input, and a right border. The interior runs through the ISA's
// row kernel (8 or 4 outputs per vector); the borders, at most a few pixels,
// run scalar here. Rows in the vertical padding are passed as null so the
// row kernel skips them. Work is split over (plane, output row) pairs, which
// balances well even with few channels.
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_3X3_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_3X3_H_

#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/depthwise_conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class DepthwiseConv3x3 {
 public:
  static bool Supports(const KernelTable& table, const ref::DepthwiseConv2dParams& params);

  DepthwiseConv3x3(const KernelTable& table, const ref::DepthwiseConv2dParams& params);

  // Arguments as in ref::DepthwiseConv2d; output must not alias input.
  void Run(const float* input, const float* filter, const float* bias, float* output,
           ThreadPool* pool) const;

 private:
  void RunRow(const float* plane, const float* taps, float bias, int64_t oh, float* out) const;
  // One output whose taps may fall in the padding; rows[r] is input row r
  // of the window, null in the vertical padding.
  float BorderOutput(const float* const rows[3], const float* taps, float bias, int64_t ow) const;

  ref::DepthwiseConv2dParams params_;
  DepthwiseRowKernel row_kernel_ = nullptr;
  TileEpilogue epilogue_;
  bool fused_activation_ = false;
  int64_t interior_begin_ = 0, interior_end_ = 0;  // output columns
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_3X3_H_
