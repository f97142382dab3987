#include "mace/ops/cast.h"

#include <string>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/cast_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus CastBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  OP_CHECK(HasArg("to"), "to is required");
  const std::string to = GetString("to", "");
  OP_CHECK(ref::ParseCastType(to, &params_.to), "unknown type '", to, "'");
  const int saturate = GetInt("saturate", 1);
  OP_CHECK(saturate == 0 || saturate == 1, "saturate must be 0 or 1, got ", saturate);
  params_.saturate = saturate == 1;
  const int truncate = GetInt("truncate", 0);
  OP_CHECK(truncate == 0 || truncate == 1, "truncate must be 0 or 1, got ", truncate);
  OP_CHECK(truncate == 0 || params_.to == ref::CastType::BFLOAT16,
           "truncate applies to BFLOAT16 only, not ", to);
  params_.truncate = truncate == 1;
  return MaceStatus();
}

MaceStatus CastBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, input, kernel_dtype()));
  params_.count = input->size();
  Output(0)->Reshape(input->shape());
  return MaceStatus();
}

MaceStatus RegisterCast(OpRegistry* registry) {
  return registry->Register("Cast", DeviceType::CPU, DT_FLOAT, NewCastCpu);
}

}  // namespace ops
}  // namespace mace
