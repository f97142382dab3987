// SpaceToDepth on NCHW: folds block x block spatial tiles into channels, the
// inverse of DepthToSpace. The default DCR order is TensorFlow's and ONNX's;
// CRD inverts DepthToSpace in CRD mode.
//
// SpaceToDepthBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/space_to_depth_cpu.cc.
#ifndef MACE_OPS_SPACE_TO_DEPTH_H_
#define MACE_OPS_SPACE_TO_DEPTH_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/space_to_depth.h"

namespace mace {
namespace ops {

class SpaceToDepthBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the arguments, fills params()
  // and sets the output's shape.
  MaceStatus InferShapes();
  const ref::SpaceToDepthParams& params() const { return params_; }

 private:
  ref::SpaceToDepthParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_SPACE_TO_DEPTH_H_
