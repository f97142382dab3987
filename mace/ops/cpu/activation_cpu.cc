// Activation's CPU kernel: the reference kernel.
#include "mace/ops/cpu/activation_cpu.h"

#include <memory>

#include "mace/ops/activation.h"

namespace mace {
namespace ops {
namespace {

class ActivationCpu final : public ActivationBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    const Tensor* alpha = Alpha();
    ref::Activate(params(), Input(0)->data<float>(),
                  alpha != nullptr ? alpha->data<float>() : nullptr,
                  Output(0)->mutable_data<float>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewActivationCpu() { return std::make_unique<ActivationCpu>(); }

}  // namespace ops
}  // namespace mace
