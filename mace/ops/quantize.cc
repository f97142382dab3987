#include "mace/ops/quantize.h"

#include "mace/ops/common/quantize.h"
#include "mace/ops/cpu/quantize_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus QuantizeBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  return MaceStatus();
}

MaceStatus QuantizeBase::InferShapes() {
  const Tensor* input = Input(0);
  OP_CHECK(input->dtype() == DT_FLOAT, "'", input->name(), "' is ", DataTypeName(input->dtype()),
           " but must be float32");
  const MaceStatus status = CheckQuantParams(*Output(0));
  if (!status.ok()) return Invalid(status.information());
  Output(0)->Reshape(input->shape());
  return MaceStatus();
}

MaceStatus RegisterQuantize(OpRegistry* registry) {
  for (DataType dtype : {DT_FLOAT, DT_UINT8}) {
    MACE_RETURN_IF_ERROR(registry->Register("Quantize", DeviceType::CPU, dtype, NewQuantizeCpu));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
