// NonMaxSuppression's CPU kernel: the reference one
// (mace/ops/ref/non_max_suppression.h), which also sets the output's row
// count.
#include "mace/ops/cpu/non_max_suppression_cpu.h"

#include <memory>

#include "mace/ops/non_max_suppression.h"
#include "mace/ops/ref/non_max_suppression.h"

namespace mace {
namespace ops {
namespace {

class NonMaxSuppressionCpu final : public NonMaxSuppressionBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    // Prepare set the largest shape (the net prepares this op before every
    // run); Run sets the one it finds.
    MACE_RETURN_IF_ERROR(ReadScalars());
    const int64_t count =
        ref::NonMaxSuppression(params(), Input(0)->data<float>(), Input(1)->data<float>(),
                               Output(0)->mutable_data<int32_t>());
    Output(0)->Reshape({count, 3});
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewNonMaxSuppressionCpu() {
  return std::make_unique<NonMaxSuppressionCpu>();
}

}  // namespace ops
}  // namespace mace
