// Identity: output = input. Converters remove most of them; the ones left
// alias their input, so they cost a copy only when aliasing is not legal.
#include <cstring>

#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class IdentityOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    Output(0)->Reshape(Input(0)->shape());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    if (Output(0)->raw_data() != Input(0)->raw_data()) {
      std::memcpy(Output(0)->raw_mutable_data(), Input(0)->raw_data(), Input(0)->raw_size());
    }
    return MaceStatus();
  }

  int InPlaceInput() const override { return 0; }
};

}  // namespace

MaceStatus RegisterIdentity(OpRegistry* registry) {
  return RegisterOp<IdentityOp>(registry, "Identity", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
