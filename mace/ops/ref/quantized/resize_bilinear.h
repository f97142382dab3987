// Reference uint8 ResizeBilinear, with the coordinates of ref::ResizeBilinear
// (the source coordinate in double, clamped to the input). The fraction
// between the two taps becomes an integer in 1/2048ths (rounded half away
// from zero), the four taps are blended exactly with weights in 1/2048^2, and
// the sum is rounded half up to a uint8. The output keeps the input's scale
// and zero point (the op checks).
#ifndef MACE_OPS_REF_QUANTIZED_RESIZE_BILINEAR_H_
#define MACE_OPS_REF_QUANTIZED_RESIZE_BILINEAR_H_

#include <cstdint>

#include "mace/ops/ref/resize_bilinear.h"

namespace mace {
namespace ops {
namespace ref {
namespace quantized {

constexpr int kResizeFractionBits = 11;

// The two source taps of output coordinate x and the weight of `high` in
// 1/2^kResizeFractionBits; shared with the DSP, which gets them as a table.
struct FixedTaps {
  int64_t low = 0, high = 0;
  int64_t frac = 0;
};
FixedTaps ResizeTaps(CoordinateMode mode, int64_t x, int64_t in_len, int64_t out_len,
                     double scale);

void ResizeBilinear(const ResizeBilinearParams& params, const uint8_t* input, uint8_t* output);

}  // namespace quantized
}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_QUANTIZED_RESIZE_BILINEAR_H_
