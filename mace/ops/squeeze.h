// Squeeze: removes size-1 dimensions, either the ones listed in `axis` or, if
// none are listed, all of them. It only moves data, so float32 and int32
// tensors go through the same kernels (common/moved_types.h).
//
// With `unsqueeze` 1 it inserts size-1 dimensions instead, at the output
// positions listed in `axis` (ONNX Unsqueeze; at least one). The axes may
// instead be input 1, as ONNX opset 13 has them: a weight is read once, a
// tensor computed at run time (int32, or float32 holding integers) on every
// run, and those axes must give the planned output shape, the one the model
// declares (common/runtime_ints.h).
//
// SqueezeBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/squeeze_cpu.cc.
#ifndef MACE_OPS_SQUEEZE_H_
#define MACE_OPS_SQUEEZE_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/common/moved_types.h"

namespace mace {
namespace ops {

class SqueezeBase : public DataMovementOp {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the axes and sets the
  // output's shape.
  MaceStatus InferShapes();
  // With axes computed at run time: reads them and checks they give the
  // output shape planned in Prepare. Kernels call it in Run.
  MaceStatus ReadRuntimeInputs();

 private:
  // The output shape for the input and `axes`.
  MaceStatus ComputeShape(const std::vector<int64_t>& axes, std::vector<int64_t>* shape) const;

  std::vector<int64_t> axes_;  // empty: every size-1 dimension
  bool unsqueeze_ = false;
  bool computed_ = false;  // the axes are read on every run
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_SQUEEZE_H_
