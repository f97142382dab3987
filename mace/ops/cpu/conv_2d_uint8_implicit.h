// The uint8 Conv2D as an implicit GEMM, without im2col, for windows of
// more than one tap with stride 1 or 2 and no dilation or groups
// (SqueezeNet's and ResNet's 3x3 convolutions, the 3-channel stems).
//
// Layout. Each image is copied once into quads of channels (4 channels of
// one position per 32-bit word, channels past the input's as 0), padded
// with the input zero point, and split by stride into phases: with strides
// (sh, sw), padded position (Y, X) goes to phase (Y % sh, X % sw) at
// (Y / sh, X / sw) of a plane `flat_width` = ceil(padded width / sw) words
// wide. Output (oh, ow) is "flat position" p = oh * flat_width + ow, and tap
// (i, j) of it reads phase (i % sh, j % sw) at p + (i / sh) * flat_width +
// j / sw: one fixed offset per tap, so the kernel table's
// QuantizedConvTapsKernel reads every tap of 32 consecutive positions with
// two vector loads. The positions with ow >= out_w in between rows are
// computed and dropped (2 of 15 on a 13 x 13 output, 2 of 57 on 55 x 55).
// The padding is written once at Create; Run writes only the inside.
//
// Arithmetic: the input's uint8 bytes times the weights as int8 (uint8
// weights minus 128), summed exactly in int32, then corrected as in
// Conv2dUint8Gemm: per channel bias - zp_in * sum(w - zp_w), per position
// (128 - zp_w) * (sum of the inputs the window reads; none for int8
// weights). The sums of the inputs are a per-position sum over the quads
// followed by a sum over the taps' offsets. The output step is fused in the
// kernel, so Run applies only where every channel's total is exact in int32
// and its multiplier is below 1; elsewhere it returns false and the caller
// runs another kernel. The results equal ref::quantized::Conv2D bit for bit.
#ifndef MACE_OPS_CPU_CONV_2D_UINT8_IMPLICIT_H_
#define MACE_OPS_CPU_CONV_2D_UINT8_IMPLICIT_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class Conv2dUint8Implicit {
 public:
  // Null where the table has no QuantizedConvTapsKernel or the convolution
  // is not one it runs (one tap, dilation, groups, a stride other than 1 or
  // 2, a reduction too deep for exact int32 sums). `filter` is uint8 unless
  // `int8_filter`.
  static std::unique_ptr<Conv2dUint8Implicit> Create(const KernelTable& table,
                                                     const ref::Conv2DParams& params,
                                                     const ref::quantized::ConvQuantization& quant,
                                                     const void* filter, bool int8_filter);

  // False, with nothing written, where the fused output step does not apply
  // for this bias (a total that could saturate, a multiplier of 1 or more).
  // Threads split the strips of 32 flat positions, or the output channels
  // where there are fewer strips than threads; `pool` may be null.
  bool Run(const uint8_t* input, const int32_t* bias, uint8_t* output,
           ThreadPool* pool = nullptr);

  const char* name() const { return "uint8 implicit gemm (u8 x s8 quads)"; }

  // The packed filter words and the per-channel sums of (w - zp_w).
  const std::vector<int32_t>& packed_filter() const { return filter_; }
  const std::vector<int64_t>& filter_sums() const { return filter_sums_; }

  // Bytes kept for the op's lifetime: packed filter and input, terms.
  int64_t HeldBytes() const {
    return VectorBytes(tap_offsets_, filter_, filter_sums_, input_, zero_row_, position_sums_,
                       column_terms_, row_terms_, multipliers_, shifts_);
  }

 private:
  Conv2dUint8Implicit() = default;
  bool SetRows(const int32_t* bias);
  void Pack(const uint8_t* image, ThreadPool* pool);
  void ColumnSums();

  QuantizedConvTapsKernel kernel_ = nullptr;
  QuantizedQuadPackKernel pack_ = nullptr;
  ref::Conv2DParams p_;
  ref::quantized::ConvQuantization quant_;
  int64_t depth_ = 0;        // in_channels x taps
  int64_t quads_ = 0;        // input channels / 4, rounded up
  int64_t phases_ = 1;       // stride_h x stride_w
  int64_t flat_width_ = 0;   // words per row of a phase plane
  int64_t phase_rows_ = 0;   // rows of a phase plane that hold input
  int64_t plane_words_ = 0;  // words per phase plane, with the slack the taps read past
  int64_t rows_ = 0;         // output channels, rounded up to kQuantGemmRows
  int64_t cols_ = 0;         // flat positions, rounded up to kQuantGemmCols
  int32_t input_correction_ = 0;  // 128 - zp_w for uint8 weights, 0 for int8
  std::vector<int64_t> tap_offsets_;
  std::vector<int32_t> filter_;       // rows_ x quads_ x taps words, in the kernel's row blocks
  std::vector<int64_t> filter_sums_;  // per output channel: sum(w - zp_w)
  std::vector<int32_t> input_;        // [quads_][phases_][plane_words_]
  std::vector<uint8_t> zero_row_;     // the rows of channels past the input's
  std::vector<int32_t> position_sums_, column_terms_;
  std::vector<int32_t> row_terms_, multipliers_, shifts_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_UINT8_IMPLICIT_H_
