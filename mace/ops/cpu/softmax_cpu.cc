// Softmax's CPU kernel: the reference kernel.
#include "mace/ops/cpu/softmax_cpu.h"

#include <memory>

#include "mace/ops/softmax.h"

namespace mace {
namespace ops {
namespace {

class SoftmaxCpu final : public SoftmaxBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::Softmax(params(), Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewSoftmaxCpu() { return std::make_unique<SoftmaxCpu>(); }

}  // namespace ops
}  // namespace mace
