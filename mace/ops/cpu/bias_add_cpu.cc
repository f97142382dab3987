// BiasAdd's CPU kernel: the reference kernel.
#include "mace/ops/cpu/bias_add_cpu.h"

#include <memory>

#include "mace/ops/bias_add.h"

namespace mace {
namespace ops {
namespace {

class BiasAddCpu final : public BiasAddBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::BiasAdd(params(), Input(0)->data<float>(), Input(1)->data<float>(),
                 Output(0)->mutable_data<float>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewBiasAddCpu() { return std::make_unique<BiasAddCpu>(); }

}  // namespace ops
}  // namespace mace
