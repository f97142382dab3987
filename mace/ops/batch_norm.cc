// BatchNorm (inference): y = scale * (x - mean) / sqrt(var + epsilon) + offset
// per channel (dim 1), or the folded y = x * scale + offset that converters
// produce when they precompute the statistics. A fused activation follows.
// Elementwise, so the output may take over the input's memory.
#include "mace/ops/ref/batch_norm.h"

#include <cmath>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

// Names of the inputs by position, for error messages.
constexpr const char* kRoles[] = {"input", "scale", "offset", "mean", "var"};

class BatchNormOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK((InputSize() == 3 || InputSize() == 5) && OutputSize() == 1,
             "needs inputs [input, scale, offset] or [input, scale, offset, mean, var] and one "
             "output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    for (int i = 0; i < InputSize(); ++i) {
      OP_CHECK(Input(i) != nullptr, kRoles[i], " is missing");
    }
    params_.epsilon = GetFloat("epsilon", 1e-3f);
    // Also rejects NaN, which fails every comparison.
    OP_CHECK(params_.epsilon >= 0.f && std::isfinite(params_.epsilon),
             "epsilon must be finite and non-negative, got ", params_.epsilon);
    return ParseActivation(*this, /*allow_prelu=*/false, &params_.activation);
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    for (int i = 0; i < InputSize(); ++i) MACE_RETURN_IF_ERROR(CheckTensor(Input(i)));
    OP_CHECK(input->dim_size() >= 2 && input->dim_size() <= 4, "input has shape ",
             ShapeToString(input->shape()), " but needs rank 2 to 4 (channels are dim 1)");
    const int64_t channels = input->dim(1);
    for (int i = 1; i < InputSize(); ++i) {
      const Tensor* tensor = Input(i);
      OP_CHECK(tensor->dim_size() == 1 && tensor->dim(0) == channels, kRoles[i], " has shape ",
               ShapeToString(tensor->shape()), " but needs [", channels, "]");
    }
    params_.outer = input->dim(0);
    params_.channels = channels;
    params_.inner = input->size() / (params_.outer * channels);
    Output(0)->Reshape(input->shape());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const bool folded = InputSize() == 3;
    ref::BatchNorm(params_, Input(0)->data<float>(), Input(1)->data<float>(),
                   Input(2)->data<float>(), folded ? nullptr : Input(3)->data<float>(),
                   folded ? nullptr : Input(4)->data<float>(), Output(0)->mutable_data<float>());
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

  ref::BatchNormParams params_;
};

}  // namespace

MaceStatus RegisterBatchNorm(OpRegistry* registry) {
  return RegisterOp<BatchNormOp>(registry, "BatchNorm", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
