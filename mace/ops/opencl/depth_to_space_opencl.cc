// DepthToSpace on the OpenCL runtime, in DCR and CRD order.
#include "mace/ops/depth_to_space.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class DepthToSpaceOpenCL : public RemapOp<ops::DepthToSpaceBase> {
 protected:
  RemapArgs ArgsFor(int /*output*/) const override {
    RemapArgs args;
    args.mode = RemapMode::kDepthToSpace;
    args.a = Int4(params().block, params().crd ? 1 : 0, 0, 0);
    return args;
  }
};

}  // namespace

MaceStatus RegisterDepthToSpaceOpenCL(OpRegistry* registry) {
  return RegisterOp<DepthToSpaceOpenCL>(registry, "DepthToSpace", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
