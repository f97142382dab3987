// Pad's CPU kernel: the reference one (mace/ops/ref/pad.h).
#include "mace/ops/cpu/pad_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/pad.h"
#include "mace/ops/ref/pad.h"

namespace mace {
namespace ops {

namespace {

// The reference kernel; Prepare tells InferShapes whether the inputs hold
// this run's values (a shape taken from the pads needs them).
class PadCpu final : public RefKernelCpu<PadBase, ref::Pad> {
 public:
  MaceStatus Prepare(OpContext* context) override { return InferShapes(context->input_values); }

  MaceStatus Run(OpContext* context) override {
    MACE_RETURN_IF_ERROR(ReadRuntimeInputs());
    return RefKernelCpu<PadBase, ref::Pad>::Run(context);
  }
};

}  // namespace

std::unique_ptr<Operation> NewPadCpu() { return std::make_unique<PadCpu>(); }

}  // namespace ops
}  // namespace mace
