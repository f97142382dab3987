// ResizeBilinear: bilinear up- or down-sampling of NCHW planes. The output
// size and the coordinate mapping are the arguments shared with
// ResizeNearestNeighbor (common/resize_geometry.h). The default mapping is
// half_pixel, which is ONNX's default and PyTorch's align_corners=False.
//
// ResizeBilinearBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/resize_bilinear_cpu.cc.
#ifndef MACE_OPS_RESIZE_BILINEAR_H_
#define MACE_OPS_RESIZE_BILINEAR_H_

#include "mace/core/operation.h"
#include "mace/ops/common/resize_geometry.h"
#include "mace/ops/ref/resize_bilinear.h"

namespace mace {
namespace ops {

class ResizeBilinearBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape, computes the output size, fills
  // params() and sets the output's shape.
  MaceStatus InferShapes();
  // With a size or scales input computed at run time: reads it and checks it
  // gives the planned output size. Kernels call it in Run.
  MaceStatus ReadRuntimeInputs() { return ReadComputedResize(*this, args_, &params_); }
  const ref::ResizeBilinearParams& params() const { return params_; }

 private:
  ResizeArgs args_;
  ref::ResizeBilinearParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_RESIZE_BILINEAR_H_
