// Reshape: the same elements in row-major order under a new shape. The shape
// comes from the `shape` argument or an int32 second input; one entry
// may be -1 (inferred from the element count) and 0 copies the input
// dimension at the same index (ONNX with allowzero = 0), or, with the
// allow_zero argument, is a dimension of size 0. It only moves data,
// so float32 and int32 tensors go through the same kernels
// (common/moved_types.h). A shape input computed at run time (int32, or
// float32 holding integers) is read on every run and must give the planned
// output shape, the `shape` argument (common/runtime_ints.h).
//
// ReshapeBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/reshape_cpu.cc.
#ifndef MACE_OPS_RESHAPE_H_
#define MACE_OPS_RESHAPE_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/common/moved_types.h"

namespace mace {
namespace ops {

class ReshapeBase : public DataMovementOp {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the requested shape and sets
  // the output's shape.
  MaceStatus InferShapes();
  // With a shape input computed at run time: checks that this run's values
  // give the output shape planned in Prepare. Kernels call it in Run.
  MaceStatus CheckComputedShape() const;

 private:
  // Entries >= -1, at most one -1.
  MaceStatus CheckSpec(const std::vector<int64_t>& spec) const;
  // The output shape `spec` gives for the input (0 copies, -1 infers).
  MaceStatus Resolve(const std::vector<int64_t>& spec, std::vector<int64_t>* resolved) const;
  // Resolve with allow_zero: entries are taken as they are (-1 inferred).
  MaceStatus ResolveLiteral(const std::vector<int64_t>& spec, std::vector<int64_t>* resolved) const;
  // Resolve for an input without elements.
  MaceStatus ResolveEmpty(const std::vector<int64_t>& spec, std::vector<int64_t>* resolved) const;

  std::vector<int64_t> shape_;
  bool computed_shape_ = false;
  bool allow_zero_ = false;  // ONNX allowzero = 1: a 0 entry is a 0
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_RESHAPE_H_
