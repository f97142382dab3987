#include "mace/ops/fully_connected.h"

#include "mace/ops/common/activation.h"
#include "mace/ops/common/conv_inputs.h"
#include "mace/ops/cpu/fully_connected_cpu.h"
#include "mace/ops/cpu/fully_connected_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus FullyConnectedBase::Init() {
  OP_CHECK(InputSize() >= 2 && InputSize() <= 3 && OutputSize() == 1,
           "needs inputs [input, weight, optional bias] and one output, got ", InputSize(),
           " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  OP_CHECK(Input(1) != nullptr, "weight is missing");
  return ParseActivation(*this, /*allow_prelu=*/false, &params_.activation);
}

MaceStatus FullyConnectedBase::InferShapes() {
  MACE_RETURN_IF_ERROR(kernel_dtype() == DT_UINT8 ? CheckQuantizedInputTypes(*this)
                                                  : CheckInputsTypeAndShape(*this, DT_FLOAT));
  MACE_RETURN_IF_ERROR(InferInputWeightShapes());
  return CheckBias(*this, params_.out_features);
}

MaceStatus FullyConnectedBase::InferInputWeightShapes() {
  const Tensor* input = Input(0);
  const Tensor* weight = Input(1);
  OP_CHECK(input->dim_size() == 2 || input->dim_size() == 4, "input has shape ",
           ShapeToString(input->shape()), " but needs rank 2 [N, K] or 4 [N, C, H, W]");
  OP_CHECK(weight->dim_size() == 2, "weight has shape ", ShapeToString(weight->shape()),
           " but needs rank 2 [out_features, in_features]");
  const int64_t batch = input->dim(0);
  const int64_t in_features = input->size() / batch;
  const int64_t out_features = weight->dim(0);
  OP_CHECK(weight->dim(1) == in_features, "weight has shape ", ShapeToString(weight->shape()),
           " but the input ", ShapeToString(input->shape()), " has ", in_features,
           " features per batch");
  params_.batch = batch;
  params_.in_features = in_features;
  params_.out_features = out_features;
  if (input->dim_size() == 4) {
    Output(0)->Reshape({batch, out_features, 1, 1});
  } else {
    Output(0)->Reshape({batch, out_features});
  }
  return MaceStatus();
}

int64_t FullyConnectedBase::Macs() const {
  return params_.batch * params_.in_features * params_.out_features;
}

MaceStatus RegisterFullyConnected(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(
      registry->Register("FullyConnected", DeviceType::CPU, DT_FLOAT, NewFullyConnectedCpu));
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("FullyConnected", DeviceType::CPU, DT_UINT8, NewFullyConnectedUint8Cpu));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
