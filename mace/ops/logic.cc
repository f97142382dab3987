#include "mace/ops/logic.h"

#include <string>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/logic_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus LogicBase::Init() {
  int inputs = 2;
  if (kind_ == LogicKind::COMPARE) {
    OP_CHECK(HasArg("type"),
             "needs the string argument type (equal, less, greater, "
             "less_equal, greater_equal, and, or, xor, not)");
    const std::string type = GetString("type", "");
    OP_CHECK(ref::ParseCompareType(type, &compare_type_), "unknown type '", type,
             "' (equal, less, greater, less_equal, greater_equal, and, or, xor, not)");
    if (compare_type_ == ref::CompareType::NOT) inputs = 1;
  } else if (kind_ == LogicKind::MOD) {
    MACE_RETURN_IF_ERROR(ParseFlag(*this, "fmod", &fmod_));
  } else {
    inputs = 3;
  }
  OP_CHECK(InputSize() == inputs && OutputSize() == 1, "needs ", inputs,
           " input(s) and one output, got ", InputSize(), " inputs and ", OutputSize(), " outputs");
  for (int i = 0; i < InputSize(); ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
  return MaceStatus();
}

MaceStatus LogicBase::InferShapes() {
  MACE_RETURN_IF_ERROR(CheckInputsTypeAndShape(*this, kernel_dtype()));
  std::vector<std::vector<int64_t>> shapes;
  for (int i = 0; i < InputSize(); ++i) shapes.push_back(Input(i)->shape());
  if (!ref::MakeBroadcast(shapes, &params_)) {
    std::string all;
    for (const auto& shape : shapes) all += (all.empty() ? "" : " and ") + ShapeToString(shape);
    OP_CHECK(false, "input shapes ", all, " do not broadcast");
  }
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", params_.shape));
  Output(0)->Reshape(params_.shape);
  return MaceStatus();
}

MaceStatus RegisterLogic(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(registry->Register("Compare", DeviceType::CPU, DT_FLOAT, NewCompareCpu));
  MACE_RETURN_IF_ERROR(registry->Register("Mod", DeviceType::CPU, DT_FLOAT, NewModCpu));
  return registry->Register("Where", DeviceType::CPU, DT_FLOAT, NewWhereCpu);
}

}  // namespace ops
}  // namespace mace
