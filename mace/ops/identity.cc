#include "mace/ops/identity.h"

#include "mace/ops/cpu/identity_cpu.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {

MaceStatus IdentityBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  return MaceStatus();
}

MaceStatus IdentityBase::InferShapes() {
  Output(0)->Reshape(Input(0)->shape());
  return MaceStatus();
}

MaceStatus RegisterIdentity(OpRegistry* registry) {
  return registry->Register("Identity", DeviceType::CPU, DT_FLOAT, NewIdentityCpu);
}

}  // namespace ops
}  // namespace mace
