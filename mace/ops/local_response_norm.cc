// LocalResponseNorm across channels on NCHW, as TensorFlow defines it:
// y = x / (bias + alpha * sum of x^2 over channels [c - r, c + r]) ^ beta.
// ONNX and Caffe LRN map onto it with r = (size - 1) / 2 and
// alpha = alpha_onnx / size (docs/ops/spatial.md).
#include "mace/ops/ref/local_response_norm.h"

#include <cmath>
#include <string>

#include "mace/ops/common/element_count.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class LocalResponseNormOp : public Operation {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    double radius = 0.0;
    MACE_RETURN_IF_ERROR(ReadNumber("depth_radius", 5.0, &radius));
    OP_CHECK(radius >= 0.0 && radius <= static_cast<double>(kMaxElements) &&
                 radius == std::floor(radius),
             "depth_radius must be a non-negative integer of at most 2^31, got ", radius);
    params_.depth_radius = static_cast<int64_t>(radius);
    MACE_RETURN_IF_ERROR(ReadNumber("bias", 1.0, &params_.bias));
    MACE_RETURN_IF_ERROR(ReadNumber("alpha", 1.0, &params_.alpha));
    MACE_RETURN_IF_ERROR(ReadNumber("beta", 0.5, &params_.beta));
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input is ", DataTypeName(input->dtype()),
             " but must be float32");
    OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 4 (NCHW)");
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
    params_.batch = input->dim(0);
    params_.channels = input->dim(1);
    params_.height = input->dim(2);
    params_.width = input->dim(3);
    Output(0)->Reshape(input->shape());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::LocalResponseNorm(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }

 private:
  // Converters write these as int or float arguments alike; any other type
  // is an error that Construct reports.
  MaceStatus ReadNumber(const std::string& name, double default_value, double* value) const {
    *value = GetNumber(name, default_value);
    OP_CHECK(std::isfinite(*value), name, " must be a finite number, got ", *value);
    return MaceStatus();
  }

  ref::LocalResponseNormParams params_;
};

}  // namespace

MaceStatus RegisterLocalResponseNorm(OpRegistry* registry) {
  return RegisterOp<LocalResponseNormOp>(registry, "LocalResponseNorm", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
