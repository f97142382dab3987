// DepthToSpace on NCHW: moves channel blocks into block x block spatial
// tiles. `mode` picks the channel order: DCR (TensorFlow, ONNX default) or
// CRD (ONNX, PyTorch pixel_shuffle).
//
// DepthToSpaceBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/depth_to_space_cpu.cc.
#ifndef MACE_OPS_DEPTH_TO_SPACE_H_
#define MACE_OPS_DEPTH_TO_SPACE_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/depth_to_space.h"

namespace mace {
namespace ops {

class DepthToSpaceBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the arguments, fills params()
  // and sets the output's shape.
  MaceStatus InferShapes();
  const ref::DepthToSpaceParams& params() const { return params_; }

 private:
  ref::DepthToSpaceParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_DEPTH_TO_SPACE_H_
