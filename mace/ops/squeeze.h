// Squeeze: removes size-1 dimensions, either the ones listed in `axis` or, if
// none are listed, all of them. It only moves data, so float32 and int32
// tensors go through the same kernels (common/moved_types.h).
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

 private:
  std::vector<int64_t> axes_;  // empty: every size-1 dimension
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_SQUEEZE_H_
