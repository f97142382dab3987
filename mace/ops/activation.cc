#include "mace/ops/activation.h"

#include "mace/ops/common/activation.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/activation_cpu.h"
#include "mace/ops/cpu/activation_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus ActivationBase::Init() {
  OP_CHECK(InputSize() >= 1 && InputSize() <= 2 && OutputSize() == 1,
           "needs inputs [input, alpha for PRELU] and one output, got ", InputSize(),
           " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  MACE_RETURN_IF_ERROR(ParseActivation(*this, /*allow_prelu=*/true, &params_.activation));
  if (params_.activation.type == ActivationType::PRELU) {
    OP_CHECK(Alpha() != nullptr, "PRELU needs the slope tensor alpha as input 1");
  } else {
    OP_CHECK(Alpha() == nullptr, "only PRELU takes a second input");
  }
  return MaceStatus();
}

MaceStatus ActivationBase::InferShapes() {
  const Tensor* input = Input(0);
  // An empty input gives an empty output, which the net does not run;
  // PRELU's per-channel split needs elements.
  if (params_.activation.type == ActivationType::PRELU) {
    MACE_RETURN_IF_ERROR(CheckTensor(*this, input, kernel_dtype()));
  } else {
    MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, input, kernel_dtype()));
  }
  const int64_t count = input->size();
  params_.outer = count;
  params_.channels = 1;
  params_.inner = 1;
  if (params_.activation.type == ActivationType::PRELU) {
    OP_CHECK(input->dim_size() >= 2, "input has shape ", ShapeToString(input->shape()),
             " but PRELU needs rank 2 or more (channels are dim 1)");
    const Tensor* alpha = Alpha();
    MACE_RETURN_IF_ERROR(CheckTensor(*this, alpha, kernel_dtype()));
    const int64_t channels = input->dim(1);
    OP_CHECK(alpha->dim_size() == 1 && alpha->dim(0) == channels, "alpha has shape ",
             ShapeToString(alpha->shape()), " but needs [", channels, "]");
    params_.outer = input->dim(0);
    params_.channels = channels;
    params_.inner = count / (params_.outer * channels);
  }
  Output(0)->Reshape(input->shape());
  return MaceStatus();
}

MaceStatus RegisterActivation(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Activation", DeviceType::CPU, DT_UINT8, NewActivationUint8Cpu));
  }
  return registry->Register("Activation", DeviceType::CPU, DT_FLOAT, NewActivationCpu);
}

}  // namespace ops
}  // namespace mace
