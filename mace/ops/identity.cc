#include "mace/ops/identity.h"

#include "mace/ops/cpu/identity_cpu.h"
#include "mace/ops/op_registration.h"

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
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Identity", DeviceType::CPU, DT_UINT8, NewIdentityUint8Cpu));
  }
  return registry->Register("Identity", DeviceType::CPU, DT_FLOAT, NewIdentityCpu);
}

}  // namespace ops
}  // namespace mace
