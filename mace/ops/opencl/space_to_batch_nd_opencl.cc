// SpaceToBatchND on the OpenCL runtime: any block and paddings.
#include "mace/ops/space_to_batch_nd.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class SpaceToBatchNDOpenCL : public RemapOp<ops::SpaceToBatchNDBase> {
 protected:
  RemapArgs ArgsFor(int /*output*/) const override {
    RemapArgs args;
    args.mode = RemapMode::kSpaceToBatch;
    args.a = Int4(params().block_h, params().block_w, params().pad_top, params().pad_left);
    return args;
  }
};

}  // namespace

MaceStatus RegisterSpaceToBatchNDOpenCL(OpRegistry* registry) {
  return RegisterOp<SpaceToBatchNDOpenCL>(registry, "SpaceToBatchND", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
