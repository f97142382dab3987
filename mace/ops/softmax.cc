// Softmax: normalized exponentials along one axis (default the last), or
// log-softmax with use_log. Classifiers end with it; MobileNet v2 applies it
// to the channel axis of [N, classes, 1, 1] logits. Each output element
// depends only on its own slice, so the output may take over the input.
#include "mace/ops/ref/softmax.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class SoftmaxOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    axis_ = GetInt("axis", -1);
    const int64_t use_log = GetInt("use_log", 0);
    OP_CHECK(use_log == 0 || use_log == 1, "use_log must be 0 or 1, got ", use_log);
    params_.use_log = use_log == 1;
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    MACE_RETURN_IF_ERROR(CheckTensor(input));
    const int64_t rank = input->dim_size();
    OP_CHECK(rank >= 1, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 1 or more");
    // The rank is only known here, so a negative axis is resolved here too.
    OP_CHECK(axis_ >= -rank && axis_ < rank, "axis ", axis_, " is out of range for input shape ",
             ShapeToString(input->shape()), " (rank ", rank, ")");
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    params_.outer = 1;
    params_.inner = 1;
    for (int d = 0; d < axis; ++d) params_.outer *= input->dim(d);
    params_.axis_size = input->dim(axis);
    for (int d = axis + 1; d < rank; ++d) params_.inner *= input->dim(d);
    Output(0)->Reshape(input->shape());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::Softmax(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>());
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

  int64_t axis_ = -1;
  ref::SoftmaxParams params_;
};

}  // namespace

MaceStatus RegisterSoftmax(OpRegistry* registry) {
  return RegisterOp<SoftmaxOp>(registry, "Softmax", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
