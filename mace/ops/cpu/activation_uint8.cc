// Activation on uint8: real 0 is the zero point, so RELU clamps below at it
// and RELU6/RELUX also above at zero point + round(limit / scale)
// (MakeOutputClamp, the same clamp the fused kernels use).
#include "mace/ops/cpu/activation_uint8.h"

#include <memory>

#include "mace/ops/activation.h"
#include "mace/ops/common/uint8_checks.h"

namespace mace {
namespace ops {
namespace {

class ActivationUint8Cpu final : public ActivationBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const ActivationType type = params().activation.type;
    OP_CHECK(type == ActivationType::NOOP || type == ActivationType::RELU ||
                 type == ActivationType::RELUX,
             "the uint8 Activation does RELU, RELU6 and RELUX only");
    MACE_RETURN_IF_ERROR(KeepInputQuantization(*this, *Input(0), Output(0)));
    return MakeOutputClamp(params().activation, Output(0)->quant(), Describe(), &clamp_);
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const uint8_t* input = Input(0)->data<uint8_t>();
    uint8_t* output = Output(0)->mutable_data<uint8_t>();
    const int64_t count = Input(0)->size();
    const uint8_t low = static_cast<uint8_t>(clamp_.min);
    const uint8_t high = static_cast<uint8_t>(clamp_.max);
    for (int64_t i = 0; i < count; ++i) {
      output[i] = input[i] < low ? low : input[i] > high ? high : input[i];
    }
    return MaceStatus();
  }

 private:
  OutputClamp clamp_;
};

}  // namespace

std::unique_ptr<Operation> NewActivationUint8Cpu() {
  return std::make_unique<ActivationUint8Cpu>();
}

}  // namespace ops
}  // namespace mace
