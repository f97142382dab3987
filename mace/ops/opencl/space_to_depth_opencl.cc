// SpaceToDepth on the OpenCL runtime, in DCR and CRD order.
#include "mace/ops/space_to_depth.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class SpaceToDepthOpenCL : public RemapOp<ops::SpaceToDepthBase> {
 protected:
  RemapArgs ArgsFor(int /*output*/) const override {
    RemapArgs args;
    args.mode = RemapMode::kSpaceToDepth;
    args.a = Int4(params().block, params().crd ? 1 : 0, 0, 0);
    return args;
  }
};

}  // namespace

MaceStatus RegisterSpaceToDepthOpenCL(OpRegistry* registry) {
  return RegisterOp<SpaceToDepthOpenCL>(registry, "SpaceToDepth", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
