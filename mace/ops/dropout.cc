#include "mace/ops/dropout.h"

#include <cmath>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/dropout_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus DropoutBase::Init() {
  OP_CHECK(InputSize() >= 1 && InputSize() <= 3 && (OutputSize() == 1 || OutputSize() == 2),
           "needs inputs [data, optional ratio, optional training_mode] and outputs [y, "
           "optional mask], got ", InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "data is missing");
  return MaceStatus();
}

MaceStatus DropoutBase::InferShapes() {
  MACE_RETURN_IF_ERROR(CheckTensor(*this, Input(0), kernel_dtype()));
  for (int i = 1; i < InputSize(); ++i) {
    const Tensor* t = Input(i);
    if (t == nullptr) continue;
    MACE_RETURN_IF_ERROR(CheckTensor(*this, t, DT_FLOAT));
    OP_CHECK(t->size() == 1, i == 1 ? "ratio" : "training_mode", " input '", t->name(),
             "' has shape ", ShapeToString(t->shape()), " but must hold one value");
  }
  for (int i = 0; i < OutputSize(); ++i) Output(i)->Reshape(Input(0)->shape());
  return MaceStatus();
}

MaceStatus DropoutBase::CheckNothingDropped() const {
  const Tensor* ratio = InputSize() > 1 ? Input(1) : nullptr;
  const Tensor* training = InputSize() > 2 ? Input(2) : nullptr;
  // ONNX's default ratio is 0.5; training mode is off unless given.
  const float r = ratio != nullptr ? ratio->data<float>()[0] : 0.5f;
  const float t = training != nullptr ? training->data<float>()[0] : 0.f;
  OP_CHECK(r >= 0.f && r < 1.f, "ratio must be in [0, 1), got ", r);
  OP_CHECK(t == 0.f || t == 1.f, "training_mode must be 0 or 1, got ", t);
  OP_CHECK(t == 0.f || r == 0.f, "training mode with ratio ", r,
           " drops values at random, which this engine does not reproduce; only inference "
           "(training_mode false) or ratio 0 can be run");
  return MaceStatus();
}

MaceStatus RegisterDropout(OpRegistry* registry) {
  return registry->Register("Dropout", DeviceType::CPU, DT_FLOAT, NewDropoutCpu);
}

}  // namespace ops
}  // namespace mace
