// SpaceToBatchND on NCHW with TensorFlow's batch order: pads H and W, then
// moves each of the block_h x block_w pixel phases into its own batch.
// Converters pair it with BatchToSpaceND to run a dilated (atrous)
// convolution as a plain one on the phases.
//
// SpaceToBatchNDBase is the device-neutral part: arguments (Init) and shapes
// (InferShapes), shared by every device's kernel. The CPU kernel is
// mace/ops/cpu/space_to_batch_nd_cpu.cc.
#ifndef MACE_OPS_SPACE_TO_BATCH_ND_H_
#define MACE_OPS_SPACE_TO_BATCH_ND_H_

#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/ref/space_to_batch_nd.h"

namespace mace {
namespace ops {

class SpaceToBatchNDBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks the input's type and shape against the arguments, fills params()
  // and sets the output's shape.
  MaceStatus InferShapes();
  const ref::SpaceToBatchNDParams& params() const { return params_; }

 private:
  std::vector<int64_t> pads_;  // top, bottom, left, right
  ref::SpaceToBatchNDParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_SPACE_TO_BATCH_ND_H_
