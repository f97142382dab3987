// BatchToSpaceND on NCHW with TensorFlow's batch order: interleaves the
// block_h x block_w phase batches back into planes, then crops them. The
// inverse of SpaceToBatchND, which it follows around dilated convolutions.
//
// BatchToSpaceNDBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/batch_to_space_nd_cpu.cc.
#ifndef MACE_OPS_BATCH_TO_SPACE_ND_H_
#define MACE_OPS_BATCH_TO_SPACE_ND_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/batch_to_space_nd.h"

namespace mace {
namespace ops {

class BatchToSpaceNDBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the arguments, fills params()
  // and sets the output's shape.
  MaceStatus InferShapes();
  const ref::BatchToSpaceNDParams& params() const { return params_; }

 private:
  std::vector<int64_t> crops_;  // top, bottom, left, right
  ref::BatchToSpaceNDParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_BATCH_TO_SPACE_ND_H_
