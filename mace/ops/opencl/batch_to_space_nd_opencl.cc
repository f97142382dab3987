// BatchToSpaceND on the OpenCL runtime: any block and crops.
#include "mace/ops/batch_to_space_nd.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class BatchToSpaceNDOpenCL : public RemapOp<ops::BatchToSpaceNDBase> {
 protected:
  RemapArgs ArgsFor(int /*output*/) const override {
    RemapArgs args;
    args.mode = RemapMode::kBatchToSpace;
    args.a = Int4(params().block_h, params().block_w, params().crop_top, params().crop_left);
    return args;
  }
};

}  // namespace

MaceStatus RegisterBatchToSpaceNDOpenCL(OpRegistry* registry) {
  return RegisterOp<BatchToSpaceNDOpenCL>(registry, "BatchToSpaceND", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
