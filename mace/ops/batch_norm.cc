#include "mace/ops/batch_norm.h"

#include <cmath>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/batch_norm_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

// Names of the inputs by position, for error messages.
constexpr const char* kRoles[] = {"input", "scale", "offset", "mean", "var"};

}  // namespace

MaceStatus BatchNormBase::Init() {
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

MaceStatus BatchNormBase::InferShapes() {
  const Tensor* input = Input(0);
  // The statistics and the square root make this float-only.
  MACE_RETURN_IF_ERROR(CheckInputsTypeAndShape(*this, DT_FLOAT));
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

MaceStatus RegisterBatchNorm(OpRegistry* registry) {
  return registry->Register("BatchNorm", DeviceType::CPU, DT_FLOAT, NewBatchNormCpu);
}

}  // namespace ops
}  // namespace mace
