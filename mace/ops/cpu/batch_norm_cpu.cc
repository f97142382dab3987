// BatchNorm's CPU kernel: the reference kernel.
#include "mace/ops/cpu/batch_norm_cpu.h"

#include <memory>

#include "mace/ops/batch_norm.h"

namespace mace {
namespace ops {
namespace {

class BatchNormCpu final : public BatchNormBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::BatchNorm(params(), Input(0)->data<float>(), Input(1)->data<float>(),
                   Input(2)->data<float>(), folded() ? nullptr : Input(3)->data<float>(),
                   folded() ? nullptr : Input(4)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewBatchNormCpu() { return std::make_unique<BatchNormCpu>(); }

}  // namespace ops
}  // namespace mace
