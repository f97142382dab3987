// Dropout's CPU kernel: a copy of the data (unless the output aliases it)
// and a mask of ones, once the run's ratio and training_mode allow it.
#include "mace/ops/cpu/dropout_cpu.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "mace/ops/dropout.h"

namespace mace {
namespace ops {
namespace {

class DropoutCpu final : public DropoutBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(CheckNothingDropped());
    const Tensor* input = Input(0);
    Tensor* output = Output(0);
    if (output->raw_data() != input->raw_data()) {
      std::memcpy(output->raw_mutable_data(), input->raw_data(), input->raw_size());
    }
    if (OutputSize() > 1) {
      float* mask = Output(1)->mutable_data<float>();
      std::fill(mask, mask + Output(1)->size(), 1.f);
    }
    return MaceStatus();
  }

  int InPlaceInput() const override { return 0; }
};

}  // namespace

std::unique_ptr<Operation> NewDropoutCpu() { return std::make_unique<DropoutCpu>(); }

}  // namespace ops
}  // namespace mace
