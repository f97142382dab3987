// Slice on the OpenCL runtime: any axes, starts and (negative too) steps of
// a tensor of rank 4 or less, channel slices that do not start or end on
// a block of 4 included.
#include "mace/ops/slice.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class SliceOpenCL : public RemapOp<ops::SliceBase> {
 protected:
  RemapArgs ArgsFor(int /*output*/) const override {
    RemapArgs args;
    args.mode = RemapMode::kStrided;
    args.a = PerDimension(params().starts, 0);
    args.b = PerDimension(params().steps, 1);
    return args;
  }
};

}  // namespace

MaceStatus RegisterSliceOpenCL(OpRegistry* registry) {
  return RegisterOp<SliceOpenCL>(registry, "Slice", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
