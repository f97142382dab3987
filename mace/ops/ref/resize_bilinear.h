// Reference ResizeBilinear over NCHW planes: each output pixel blends the
// four input pixels around its source coordinate.
#ifndef MACE_OPS_REF_RESIZE_BILINEAR_H_
#define MACE_OPS_REF_RESIZE_BILINEAR_H_

#include <cstdint>

#include "mace/ops/common/resize_geometry.h"

namespace mace {
namespace ops {
namespace ref {

struct ResizeBilinearParams {
  int64_t batch = 0, channels = 0;
  int64_t in_h = 0, in_w = 0;
  int64_t out_h = 0, out_w = 0;
  CoordinateMode mode = CoordinateMode::HALF_PIXEL;
  // ResizeGeometry scales: the given scale, or 0 for exactly out / in.
  double scale_h = 0.0, scale_w = 0.0;
};

// input [batch, channels, in_h, in_w], output [batch, channels, out_h, out_w].
// Source coordinates are clamped to the input, so edges repeat the border.
void ResizeBilinear(const ResizeBilinearParams& params, const float* input, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_RESIZE_BILINEAR_H_
