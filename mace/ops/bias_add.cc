#include "mace/ops/bias_add.h"

#include "mace/ops/common/activation.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/bias_add_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus BiasAddBase::Init() {
  OP_CHECK(InputSize() == 2 && OutputSize() == 1, "needs inputs [input, bias] and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  OP_CHECK(Input(1) != nullptr, "bias is missing");
  return ParseActivation(*this, /*allow_prelu=*/false, &params_.activation);
}

MaceStatus BiasAddBase::InferShapes() {
  const Tensor* input = Input(0);
  const Tensor* bias = Input(1);
  // A quantized bias is int32 beside a uint8 input: float-only as it stands.
  MACE_RETURN_IF_ERROR(CheckInputsTypeAndShape(*this, DT_FLOAT));
  OP_CHECK(input->dim_size() >= 2, "input has shape ", ShapeToString(input->shape()),
           " but needs rank 2 or more (channels are dim 1)");
  const int64_t channels = input->dim(1);
  OP_CHECK(bias->dim_size() == 1 && bias->dim(0) == channels, "bias has shape ",
           ShapeToString(bias->shape()), " but needs [", channels, "]");
  params_.outer = input->dim(0);
  params_.channels = channels;
  params_.inner = input->size() / (params_.outer * channels);
  Output(0)->Reshape(input->shape());
  return MaceStatus();
}

MaceStatus RegisterBiasAdd(OpRegistry* registry) {
  return registry->Register("BiasAdd", DeviceType::CPU, DT_FLOAT, NewBiasAddCpu);
}

}  // namespace ops
}  // namespace mace
