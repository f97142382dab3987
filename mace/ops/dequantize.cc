#include "mace/ops/dequantize.h"

#include "mace/ops/common/quantize.h"
#include "mace/ops/cpu/dequantize_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus DequantizeBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  return MaceStatus();
}

MaceStatus DequantizeBase::InferShapes() {
  const Tensor* input = Input(0);
  OP_CHECK(input->dtype() == DT_UINT8, "'", input->name(), "' is ", DataTypeName(input->dtype()),
           " but must be uint8");
  const MaceStatus status = CheckQuantParams(*input);
  if (!status.ok()) return Invalid(status.information());
  Output(0)->Reshape(input->shape());
  return MaceStatus();
}

MaceStatus RegisterDequantize(OpRegistry* registry) {
  for (DataType dtype : {DT_FLOAT, DT_UINT8}) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Dequantize", DeviceType::CPU, dtype, NewDequantizeCpu));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
