// The fast uint8 3x3 depthwise convolution: each input channel is copied
// once into a zero-padded int16 plane (inputs minus their zero point, so
// padding is real 0), the kernel table's row kernel sums the nine taps of
// an output row exactly in int32, and the output step adds the bias and
// requantizes with the rule of common/quantize.h. Where the total cannot
// saturate and the multiplier is below 1, the table's fused row kernel
// does both in registers and stores bytes (or, without one, the row
// kernel's sums go through requantize_row); otherwise a scalar int64 loop
// requantizes the sums. Where the table has a channel-blocked kernel (16
// channels a vector, see DepthwiseUint8BlockKernel) and the layer suits it
// (multiplier 1, int8 taps), that kernel runs instead. Its results equal
// ref::quantized::DepthwiseConv2d bit for bit.
#ifndef MACE_OPS_CPU_DEPTHWISE_CONV_2D_UINT8_FAST_H_
#define MACE_OPS_CPU_DEPTHWISE_CONV_2D_UINT8_FAST_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class DepthwiseUint8Fast {
 public:
  // Null unless the table has the row kernel for the horizontal stride
  // (1 or 2) and the window is 3x3 without dilation. `filter` is
  // [multiplier, channels, 3, 3], uint8 unless `int8_filter`.
  static std::unique_ptr<DepthwiseUint8Fast> Create(
      const KernelTable& table, const ref::DepthwiseConv2dParams& params,
      const ref::quantized::ConvQuantization& quant, const void* filter, bool int8_filter);

  // Threads split the input channels; `pool` may be null (one thread).
  void Run(const uint8_t* input, const int32_t* bias, uint8_t* output,
           ThreadPool* pool = nullptr) const;

  // Bytes kept for the op's lifetime: the repacked taps and their terms.
  int64_t HeldBytes() const {
    return VectorBytes(block_taps_, tap_sums_, block_multipliers_, block_shifts_, taps_,
                       planar_steps_, planar_patterns_, planar_quads_, planar_scales_);
  }

 private:
  DepthwiseUint8Fast() = default;
  // Input channel c of image n. `plane` (plane_h_ x plane_w_) must be zero
  // outside the input, as the caller leaves it: only the inside is written.
  void RunChannel(const uint8_t* plane_in, int64_t n, int64_t c, const int32_t* bias,
                  uint8_t* output, int16_t* plane, int32_t* sums) const;
  // The same for the flat layout (below); `sums` and `bytes` hold
  // flat_count_ rounded up to kDepthwiseUint8Lanes values (`bytes` 16 more).
  void RunChannelFlat(const uint8_t* plane_in, int64_t n, int64_t c, const int32_t* bias,
                      uint8_t* output, int16_t* plane, int32_t* sums, uint8_t* bytes) const;
  // A row of output channel oc's taps and `count` outputs.
  DepthwiseUint8Row TapsRow(int64_t oc, int64_t count) const;
  // Writes input plane `plane_in` minus the zero point into `plane`
  // (height x width, row y and column x holding input y - pad_top,
  // x - pad_left); only the part inside the input is written.
  void FillPlane(const uint8_t* plane_in, int16_t* plane, int64_t height, int64_t width) const;

  // The channel-blocked path (below): the input's blocks of 16 channels
  // are transposed into position-major padded tiles, run through the
  // table's block kernel and transposed back (or, on small planes, run
  // in place by the planar kernel). False where a channel's sum
  // could saturate or its multiplier is 1 or more (the rows above run).
  bool RunBlocked(const uint8_t* input, const int32_t* bias, uint8_t* output,
                  ThreadPool* pool) const;
  // Output rows [oy0, oy1) of channel block `block` of image n; `tile`
  // and `staging` are the work buffers (BlockedTileBytes and
  // BlockedStagingBytes).
  void RunBlock(const uint8_t* input, int64_t n, int64_t block, int64_t oy0, int64_t oy1,
                const int32_t* terms, uint8_t* output, uint8_t* tile, uint8_t* staging) const;
  int64_t BlockedTileBytes(int64_t band_rows) const;
  // The planar path (DepthwiseUint8PlanarKernel) with the blocked path's
  // terms; threads split the planes.
  void RunPlanar(const uint8_t* input, const int32_t* terms, uint8_t* output,
                 ThreadPool* pool) const;
  // The planar kernel's steps for this layer with windows of `window` (64
  // or 128) bytes; false where a step's bytes span more than that.
  bool MakePlanarSteps(int64_t window);

  DepthwiseUint8RowKernel row_kernel_ = nullptr;
  // Channel-blocked kernel (null where the table has none, the channel
  // multiplier is not 1 or a tap minus the filter zero point is not int8).
  DepthwiseUint8BlockKernel block_kernel_ = nullptr;
  int64_t blocked_w_ = 0;              // tile positions per row
  std::vector<int8_t> block_taps_;     // per block: 3 x 16 quads
  std::vector<int32_t> tap_sums_;      // per channel
  std::vector<int32_t> block_multipliers_, block_shifts_;  // per channel, padded to blocks
  // Layers with the blocked path's conditions, small output planes and 16
  // outputs that read at most 128 input bytes per filter row run the
  // table's planar kernel (null where it has none or the layer does not
  // suit it).
  DepthwiseUint8PlanarKernel planar_kernel_ = nullptr;
  std::vector<DepthwiseUint8PlanarStep> planar_steps_;  // 3 per vector of 16 outputs
  std::vector<DepthwiseUint8PlanarPattern> planar_patterns_;  // the steps' distinct shapes
  int64_t planar_window_ = 128;
  std::vector<int32_t> planar_quads_;                   // 3 per channel
  std::vector<DepthwiseUint8PlanarScale> planar_scales_;
  // The rows with the output step fused (null where the table has none).
  DepthwiseUint8RequantRowKernel requant_kernel_ = nullptr;
  // The table's fused stride-1 rows, for the flat layout.
  DepthwiseUint8RequantRowKernel flat_kernel_ = nullptr;
  RequantizeRowKernel requantize_row_ = nullptr;
  ref::DepthwiseConv2dParams p_;
  ref::quantized::ConvQuantization quant_;
  int64_t padded_count_ = 0;  // out_w rounded up to kDepthwiseUint8Lanes
  int64_t plane_h_ = 0, plane_w_ = 0;
  // Narrow stride-1 outputs run flat: the padded plane is out_w + 2 wide,
  // so the output at (y, x) reads flat positions y * flat_w_ + x + the
  // taps' offsets, and one row call of flat_count_ outputs covers the
  // whole plane (the outputs at x >= out_w are computed and dropped). This
  // saves the per-row set-up and the half-empty vectors of rows of 7 or
  // 14 outputs. Zero where the layer does not run flat.
  int64_t flat_w_ = 0, flat_h_ = 0, flat_count_ = 0;
  std::vector<int16_t> taps_;  // per output channel: 9 taps minus the zero point
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_DEPTHWISE_CONV_2D_UINT8_FAST_H_
