#include "mace/ops/common/op_checks.h"

#include <algorithm>

namespace mace {
namespace ops {
MaceStatus OpError(const Operation& op, const std::string& message) {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, StrCat(op.Describe(), ": ", message));
}

MaceStatus ParseFlag(const Operation& op, const std::string& name, bool* flag) {
  const int64_t value = op.GetInt(name, 0);
  if (value != 0 && value != 1) return OpError(op, StrCat(name, " must be 0 or 1, got ", value));
  *flag = value == 1;
  return MaceStatus();
}

MaceStatus CheckInputsTypeAndShape(const Operation& op, DataType dtype) {
  for (int i = 0; i < op.InputSize(); ++i) {
    const Tensor* tensor = op.Input(i);
    if (tensor == nullptr) continue;
    if (tensor->dtype() != dtype) {
      return OpError(op, StrCat("'", tensor->name(), "' is ", DataTypeName(tensor->dtype()),
                                " but must be ", DataTypeName(dtype)));
    }
    const std::vector<int64_t>& shape = tensor->shape();
    if (!std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0; })) {
      return OpError(op, StrCat("'", tensor->name(), "' has shape ", ShapeToString(shape),
                                " with a non-positive dimension"));
    }
  }
  return MaceStatus();
}

MaceStatus CheckBias(const Operation& op, int64_t channels) {
  const Tensor* bias = OptionalBias(op);
  if (bias == nullptr || (bias->dim_size() == 1 && bias->dim(0) == channels)) return MaceStatus();
  return OpError(
      op, StrCat("bias has shape ", ShapeToString(bias->shape()), " but needs [", channels, "]"));
}

}  // namespace ops
}  // namespace mace
