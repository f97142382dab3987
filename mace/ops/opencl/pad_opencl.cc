// Pad on the OpenCL runtime: every pad type (constant, reflect, symmetric,
// edge) on tensors of rank 4 or less.
#include "mace/ops/pad.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class PadOpenCL : public RemapOp<ops::PadBase> {
 protected:
  RemapArgs ArgsFor(int /*output*/) const override {
    RemapArgs args;
    args.mode = RemapMode::kPad;
    args.a = PerDimension(params().pads_before, 0);
    args.b = Int4(static_cast<int>(params().type), 0, 0, 0);
    args.constant = params().constant_value;
    return args;
  }
};

}  // namespace

MaceStatus RegisterPadOpenCL(OpRegistry* registry) {
  return RegisterOp<PadOpenCL>(registry, "Pad", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
