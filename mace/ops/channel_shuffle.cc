// ChannelShuffle: the ShuffleNet channel permutation on NCHW. Channels viewed
// as [group, C / group] are transposed to [C / group, group], so each output
// group of `group` channels takes one channel from every input group.
#include "mace/ops/ref/channel_shuffle.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class ChannelShuffleOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    // No default: group 1 would be a silent no-op hiding a converter bug.
    OP_CHECK(HasArg("group"), "group is required");
    params_.group = GetInt("group", 0);
    OP_CHECK(params_.group >= 1, "group must be positive, got ", params_.group);
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input is ", DataTypeName(input->dtype()),
             " but must be float32");
    OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 4 (NCHW)");
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
    OP_CHECK(input->dim(1) % params_.group == 0, "group ", params_.group, " does not divide the ",
             input->dim(1), " input channels");
    params_.batch = input->dim(0);
    params_.channels = input->dim(1);
    params_.height = input->dim(2);
    params_.width = input->dim(3);
    Output(0)->Reshape(input->shape());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::ChannelShuffle(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  ref::ChannelShuffleParams params_;
};

}  // namespace

MaceStatus RegisterChannelShuffle(OpRegistry* registry) {
  return RegisterOp<ChannelShuffleOp>(registry, "ChannelShuffle", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
