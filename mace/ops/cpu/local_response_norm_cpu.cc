// LocalResponseNorm's CPU kernel: the reference kernel.
#include "mace/ops/cpu/local_response_norm_cpu.h"

#include <memory>

#include "mace/ops/local_response_norm.h"

namespace mace {
namespace ops {
namespace {

class LocalResponseNormCpu final : public LocalResponseNormBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::LocalResponseNorm(params(), Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewLocalResponseNormCpu() {
  return std::make_unique<LocalResponseNormCpu>();
}

}  // namespace ops
}  // namespace mace
