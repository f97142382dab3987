// Transpose: permutes the dimensions of a tensor. Output dimension d is input
// dimension dims[d]; without `dims` (or with an empty list) the order is
// reversed, as in numpy and ONNX. It only moves data, so float32 and int32
// tensors go through the same kernels (common/moved_types.h).
//
// TransposeBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/transpose_cpu.cc.
#ifndef MACE_OPS_TRANSPOSE_H_
#define MACE_OPS_TRANSPOSE_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/common/moved_types.h"
#include "mace/ops/ref/transpose.h"

namespace mace {
namespace ops {

class TransposeBase : public DataMovementOp {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against dims, fills params() (the
  // permutation with no negative entries) and sets the output's shape.
  MaceStatus InferShapes();
  const ref::TransposeParams& params() const { return params_; }

 private:
  std::vector<int64_t> dims_;  // empty: reversed
  ref::TransposeParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_TRANSPOSE_H_
