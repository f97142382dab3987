// RoiAlign (ONNX RoiAlign): inputs [X of NCHW, rois [R, 4] as (x1, y1, x2,
// y2), batch_indices [R] (whole numbers as float32)]; output [R, C,
// output_height, output_width]. Arguments: mode ("avg" or "max"),
// output_height, output_width (default 1), sampling_ratio (0: adaptive),
// spatial_scale (default 1), coordinate_transformation_mode ("half_pixel",
// the default, or "output_half_pixel", which is opset 10's behaviour).
//
// RoiAlignBase is the device-neutral part; the CPU kernel is
// mace/ops/cpu/roi_align_cpu.cc over the reference kernel.
#ifndef MACE_OPS_ROI_ALIGN_H_
#define MACE_OPS_ROI_ALIGN_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/roi_align.h"

namespace mace {
namespace ops {

class RoiAlignBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the inputs' shapes, fills params() and sets the output's shape.
  MaceStatus InferShapes();
  // Checks the run-time values: finite ROIs with sampling grids of at most
  // 2^24 points per bin, batch indices in range.
  MaceStatus CheckRois() const;
  const ref::RoiAlignParams& params() const { return params_; }

 private:
  ref::RoiAlignParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ROI_ALIGN_H_
