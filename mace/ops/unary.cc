#include "mace/ops/unary.h"

#include <cmath>
#include <string>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/unary_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus UnaryBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  OP_CHECK(HasArg("type"), "type is required");
  const std::string type = GetString("type", "");
  OP_CHECK(ref::ParseUnaryType(type, &params_.type), "unknown type '", type, "'");
  const bool selu = params_.type == ref::UnaryType::SELU;
  params_.alpha = GetFloat("alpha", selu ? 1.67326319f : 1.f);
  params_.gamma = GetFloat("gamma", selu ? 1.05070102f : 1.f);
  OP_CHECK(std::isfinite(params_.alpha) && std::isfinite(params_.gamma),
           "alpha and gamma must be finite, got ", params_.alpha, " and ", params_.gamma);
  OP_CHECK(params_.type != ref::UnaryType::CELU || params_.alpha != 0.f,
           "CELU's alpha must not be 0");
  return MaceStatus();
}

MaceStatus UnaryBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, input, kernel_dtype()));
  params_.count = input->size();
  Output(0)->Reshape(input->shape());
  return MaceStatus();
}

MaceStatus RegisterUnary(OpRegistry* registry) {
  return registry->Register("Unary", DeviceType::CPU, DT_FLOAT, NewUnaryCpu);
}

}  // namespace ops
}  // namespace mace
