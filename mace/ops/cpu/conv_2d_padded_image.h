// A zero-padded copy of a convolution's input channels, laid out so that
// one tap's inputs for consecutive outputs of an output row are consecutive
// floats: at horizontal stride 2 each padded row is stored as its even
// columns, then its odd ones. Direct convolution reads B rows in place from
// it; im2col packing copies runs from it with no bounds checks.
#ifndef MACE_OPS_CPU_CONV_2D_PADDED_IMAGE_H_
#define MACE_OPS_CPU_CONV_2D_PADDED_IMAGE_H_

#include <cstdint>
#include <vector>

#include "mace/ops/ref/conv_2d.h"

namespace mace {
namespace ops {

class PaddedImage {
 public:
  // Undilated, horizontal stride 1 or 2 (any vertical stride).
  static bool Supports(const ref::Conv2DParams& params);

  PaddedImage() = default;
  // `channels` channels of `params`' input; rows hold at least `columns`
  // outputs' worth of every tap (out_w, or more when readers round it up).
  PaddedImage(const ref::Conv2DParams& params, int64_t channels, int64_t columns);

  int64_t floats() const { return channels_ * rows_ * pitch_; }
  // Copies channels [begin, end) of `image` (in_h x in_w planes) into
  // `padded` (floats() values): floats, or halves (uint16_t bit patterns,
  // copied as they are).
  template <typename T>
  void Fill(const T* image, int64_t begin, int64_t end, T* padded) const;
  // Tap (ic, kh, kw) of output (oh, ow + j) is at
  // padded + Origin(oh, ow) + offsets()[(ic * kernel_h + kh) * kernel_w + kw] + j.
  int64_t Origin(int64_t oh, int64_t ow) const { return oh * stride_h_ * pitch_ + ow; }
  const int64_t* offsets() const { return offsets_.data(); }

 private:
  int64_t in_h_ = 0, in_w_ = 0, pad_top_ = 0, pad_left_ = 0;
  int64_t stride_h_ = 1, stride_w_ = 1;
  int64_t channels_ = 0;
  int64_t rows_ = 0;   // per channel
  int64_t half_ = 0;   // stride 2: floats per column half of a row
  int64_t pitch_ = 0;  // floats per padded row
  std::vector<int64_t> offsets_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_PADDED_IMAGE_H_
