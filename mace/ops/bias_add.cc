// BiasAdd: adds a per-channel bias along dim 1 of an NCHW (or [N, C, ...])
// tensor, with a fused activation. Converters usually fold it into the
// preceding Conv2D or FullyConnected; the ones left run here. Elementwise, so
// the output may take over the input's memory.
#include "mace/ops/ref/bias_add.h"

#include "mace/ops/common/activation.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class BiasAddOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 2 && OutputSize() == 1,
             "needs inputs [input, bias] and one output, got ", InputSize(), " inputs and ",
             OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    OP_CHECK(Input(1) != nullptr, "bias is missing");
    return ParseActivation(*this, /*allow_prelu=*/false, &params_.activation);
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    const Tensor* bias = Input(1);
    MACE_RETURN_IF_ERROR(CheckTensor(input));
    MACE_RETURN_IF_ERROR(CheckTensor(bias));
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

  MaceStatus Run(OpContext* /*context*/) override {
    ref::BiasAdd(params_, Input(0)->data<float>(), Input(1)->data<float>(),
                 Output(0)->mutable_data<float>());
    return MaceStatus();
  }

  int InPlaceInput() const override { return 0; }

 private:
  // Float32, positive dimensions, and at most kMaxElements elements, so that
  // index arithmetic cannot overflow on hostile shapes.
  MaceStatus CheckTensor(const Tensor* tensor) const {
    OP_CHECK(tensor->dtype() == DT_FLOAT, "'", tensor->name(), "' is ",
             DataTypeName(tensor->dtype()), " but must be float32");
    return CheckElementCount(*this, StrCat("'", tensor->name(), "'"), tensor->shape());
  }

  ref::BiasAddParams params_;
};

}  // namespace

MaceStatus RegisterBiasAdd(OpRegistry* registry) {
  return RegisterOp<BiasAddOp>(registry, "BiasAdd", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
