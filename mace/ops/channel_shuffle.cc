#include "mace/ops/channel_shuffle.h"

#include <vector>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/channel_shuffle_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus ChannelShuffleBase::Init() {
  OP_CHECK(InputSize() == 1 && (OutputSize() == 1 || (OutputSize() > 1 && SplitsOutput())),
           "needs one input and one output", SplitsOutput() ? " or more" : "", ", got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  // No default: group 1 would be a silent no-op hiding a converter bug.
  OP_CHECK(HasArg("group"), "group is required");
  params_.group = GetInt("group", 0);
  OP_CHECK(params_.group >= 1, "group must be positive, got ", params_.group);
  return MaceStatus();
}

MaceStatus ChannelShuffleBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckNchwInput(*this));
  OP_CHECK(input->dim(1) % params_.group == 0, "group ", params_.group, " does not divide the ",
           input->dim(1), " input channels");
  OP_CHECK(input->dim(1) % OutputSize() == 0, "the ", input->dim(1),
           " input channels do not split evenly into ", OutputSize(), " outputs");
  params_.batch = input->dim(0);
  params_.channels = input->dim(1);
  params_.height = input->dim(2);
  params_.width = input->dim(3);
  std::vector<int64_t> shape = input->shape();
  shape[1] /= OutputSize();
  for (int i = 0; i < OutputSize(); ++i) Output(i)->Reshape(shape);
  return MaceStatus();
}

MaceStatus RegisterChannelShuffle(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("ChannelShuffle", DeviceType::CPU, DT_UINT8, NewChannelShuffleUint8Cpu));
  }
  return registry->Register("ChannelShuffle", DeviceType::CPU, DT_FLOAT, NewChannelShuffleCpu);
}

}  // namespace ops
}  // namespace mace
