// Activation: a standalone activation function, for the activations that a
// converter could not fuse into the op before, and for PRELU, whose
// per-channel slope tensor only this op takes. Elementwise, so the output
// may take over the input's memory.
#include "mace/ops/ref/activation.h"

#include "mace/ops/common/activation.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class ActivationOp : public Operation {
 public:
  MaceStatus Init() override {
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

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    MACE_RETURN_IF_ERROR(CheckTensor(input));
    const int64_t count = input->size();
    params_.outer = count;
    params_.channels = 1;
    params_.inner = 1;
    if (params_.activation.type == ActivationType::PRELU) {
      OP_CHECK(input->dim_size() >= 2, "input has shape ", ShapeToString(input->shape()),
               " but PRELU needs rank 2 or more (channels are dim 1)");
      const Tensor* alpha = Alpha();
      MACE_RETURN_IF_ERROR(CheckTensor(alpha));
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

  MaceStatus Run(OpContext* /*context*/) override {
    const Tensor* alpha = Alpha();
    ref::Activate(params_, Input(0)->data<float>(),
                  alpha != nullptr ? alpha->data<float>() : nullptr,
                  Output(0)->mutable_data<float>());
    return MaceStatus();
  }

  int InPlaceInput() const override { return 0; }

 private:
  const Tensor* Alpha() const { return InputSize() > 1 ? Input(1) : nullptr; }

  // Float32, positive dimensions, and at most kMaxElements elements, so that
  // index arithmetic cannot overflow on hostile shapes.
  MaceStatus CheckTensor(const Tensor* tensor) const {
    OP_CHECK(tensor->dtype() == DT_FLOAT, "'", tensor->name(), "' is ",
             DataTypeName(tensor->dtype()), " but must be float32");
    return CheckElementCount(*this, StrCat("'", tensor->name(), "'"), tensor->shape());
  }

  ref::ActivationParams params_;
};

}  // namespace

MaceStatus RegisterActivation(OpRegistry* registry) {
  return RegisterOp<ActivationOp>(registry, "Activation", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
