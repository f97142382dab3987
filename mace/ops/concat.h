// Concat: joins N >= 1 tensors along one axis. The inputs share dtype, rank and
// every other dimension. It only moves data, so float32 activations and int32
// shape tensors go through the same kernels (common/moved_types.h).
//
// ConcatBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/concat_cpu.cc.
#ifndef MACE_OPS_CONCAT_H_
#define MACE_OPS_CONCAT_H_

#include "mace/core/operation.h"
#include "mace/ops/common/moved_types.h"

namespace mace {
namespace ops {

class ConcatBase : public DataMovementOp {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the inputs' types and shapes, resolves the axis and sets the
  // output's shape.
  MaceStatus InferShapes();
  // The axis in [0, rank), valid after InferShapes.
  int axis() const { return axis_; }

 private:
  int64_t axis_arg_ = 1;
  int axis_ = 1;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CONCAT_H_
