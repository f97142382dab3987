#include "mace/ops/local_response_norm.h"

#include <cmath>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/local_response_norm_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus LocalResponseNormBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  double radius = 0.0;
  MACE_RETURN_IF_ERROR(ReadNumber("depth_radius", 5.0, &radius));
  OP_CHECK(
      radius >= 0.0 && radius <= static_cast<double>(kMaxElements) && radius == std::floor(radius),
      "depth_radius must be a non-negative integer of at most 2^31, got ", radius);
  params_.depth_radius = static_cast<int64_t>(radius);
  MACE_RETURN_IF_ERROR(ReadNumber("bias", 1.0, &params_.bias));
  MACE_RETURN_IF_ERROR(ReadNumber("alpha", 1.0, &params_.alpha));
  MACE_RETURN_IF_ERROR(ReadNumber("beta", 0.5, &params_.beta));
  return MaceStatus();
}

MaceStatus LocalResponseNormBase::InferShapes() {
  const Tensor* input = Input(0);
  // The power with a fractional beta makes this float-only.
  MACE_RETURN_IF_ERROR(CheckNchwInput(*this, DT_FLOAT));
  params_.batch = input->dim(0);
  params_.channels = input->dim(1);
  params_.height = input->dim(2);
  params_.width = input->dim(3);
  Output(0)->Reshape(input->shape());
  return MaceStatus();
}

MaceStatus LocalResponseNormBase::ReadNumber(const std::string& name, double default_value,
                                             double* value) const {
  *value = GetNumber(name, default_value);
  OP_CHECK(std::isfinite(*value), name, " must be a finite number, got ", *value);
  return MaceStatus();
}

MaceStatus RegisterLocalResponseNorm(OpRegistry* registry) {
  return registry->Register("LocalResponseNorm", DeviceType::CPU, DT_FLOAT,
                            NewLocalResponseNormCpu);
}

}  // namespace ops
}  // namespace mace
