// A port's own fill of a padded image at horizontal stride 2
// (conv_2d_padded_image.cc): none in conv_2d_padded_stride2.cc, armv7's
// in arm/conv_2d_padded_stride2_armv7.cc.
#ifndef MACE_OPS_CPU_CONV_2D_PADDED_STRIDE2_H_
#define MACE_OPS_CPU_CONV_2D_PADDED_STRIDE2_H_

#include <cstdint>

namespace mace {
namespace ops {

// PaddedImage's geometry at stride 2: each padded row is `pitch` floats,
// two halves of `half`, the even padded columns in the first and the odd
// ones in the second.
struct PaddedStride2Rows {
  int64_t in_h, in_w, pad_top, pad_left;
  int64_t rows;  // per channel
  int64_t half, pitch;
};

// Fills channels [begin, end) of the padded image of `image` as
// PaddedImage::Fill does, and returns true; or returns false without
// writing anything, leaving the fill to PaddedImage.
bool FillPaddedStride2(const PaddedStride2Rows& g, const float* image, int64_t begin, int64_t end,
                       float* padded);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_PADDED_STRIDE2_H_
