// Resize: ONNX's Resize (opset 18 and later) of a float tensor of any rank,
// with every mode the reference kernel (mace/ops/ref/resize_nd.h) defines.
//
// Arguments:
//   mode                            string: nearest (default), linear, cubic
//   coordinate_transformation_mode  string: half_pixel (default),
//                                   half_pixel_symmetric, pytorch_half_pixel,
//                                   align_corners, asymmetric,
//                                   tf_crop_and_resize
//   nearest_mode                    string: round_prefer_floor (default),
//                                   round_prefer_ceil, floor, ceil
//   cubic_coeff_a                   float, default -0.75
//   exclude_outside, antialias      int 0/1, default 0 (antialias: linear
//                                   and cubic only)
//   extrapolation_value             float, default 0 (tf_crop_and_resize)
//   axes                            ints: the resized axes (default all)
//   scales | sizes                  floats > 0 | ints >= 1, one per axis:
//                                   exactly one of them. Scales give
//                                   out = floor(in * scale); sizes give the
//                                   scale out / in
//   keep_aspect_ratio_policy        string: stretch (default), not_larger,
//                                   not_smaller (with sizes only): one scale,
//                                   the least or greatest of out / in, for
//                                   every axis, out = round-half-up(in * it)
//   roi                             floats [starts..., ends...] of the axes,
//                                   as fractions of the input: required by
//                                   tf_crop_and_resize and only there
// Optional inputs 1 (roi, float32), 2 (scales, float32) and 3 (sizes, int32
// or float32 holding whole numbers), 1-D, replace the argument of the same
// name (giving both is an error). With one computed at run time the output
// is planned for the shape the model declares (common/runtime_ints.h), and
// every run reads the values, checks they give that shape and recomputes
// the taps.
//
// ResizeBase is the device-neutral part; the CPU kernel is the reference one
// (mace/ops/cpu/resize_nd_cpu.cc).
#ifndef MACE_OPS_RESIZE_ND_H_
#define MACE_OPS_RESIZE_ND_H_

#include <cstdint>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/resize_nd.h"

namespace mace {
namespace ops {

class ResizeBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  MaceStatus InferShapes();
  // With an input computed at run time: reads the values and rebuilds the
  // taps for this run. Kernels call it in Run.
  MaceStatus ReadRuntimeInputs();
  const ref::ResizeParams& params() const { return params_; }

 private:
  // The roi, scales and sizes: arguments or the values of inputs 1 to 3.
  MaceStatus ReadValues(std::vector<float>* roi, std::vector<float>* scales,
                        std::vector<int64_t>* sizes) const;
  // Checks the values and computes the output shape and the taps.
  MaceStatus Geometry(const std::vector<float>& roi, const std::vector<float>& scales,
                      const std::vector<int64_t>& sizes, std::vector<int64_t>* out_shape);

  ref::ResizeOptions options_;
  std::vector<int64_t> axes_, sizes_;
  std::vector<float> scales_, roi_;
  int keep_aspect_ = 0;  // 0 stretch, -1 not_larger, 1 not_smaller
  bool computed_ = false;  // an input is read on every run
  ref::ResizeParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_RESIZE_ND_H_
