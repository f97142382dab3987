// ArgMax's CPU kernel: the reference kernel.
#include "mace/ops/cpu/arg_max_cpu.h"

#include <memory>

#include "mace/ops/arg_max.h"

namespace mace {
namespace ops {
namespace {

class ArgMaxCpu final : public ArgMaxBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::ArgMax(params(), Input(0)->data<float>(), Output(0)->mutable_data<int32_t>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewArgMaxCpu() { return std::make_unique<ArgMaxCpu>(); }

}  // namespace ops
}  // namespace mace
