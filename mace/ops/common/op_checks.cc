#include "mace/ops/common/op_checks.h"

#include "mace/ops/common/element_count.h"

namespace mace {
namespace ops {

MaceStatus OpError(const Operation& op, const std::string& message) {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, StrCat(op.Describe(), ": ", message));
}

MaceStatus ParseFlag(const Operation& op, const std::string& name, bool* flag) {
  const int64_t value = op.GetInt(name, *flag ? 1 : 0);
  if (value != 0 && value != 1) return OpError(op, StrCat(name, " must be 0 or 1, got ", value));
  *flag = value == 1;
  return MaceStatus();
}

MaceStatus CheckTensor(const Operation& op, const Tensor* tensor, DataType dtype) {
  if (tensor->dtype() != dtype) {
    return OpError(op, StrCat("'", tensor->name(), "' is ", DataTypeName(tensor->dtype()),
                              " but must be ", DataTypeName(dtype)));
  }
  return CheckElementCount(op, StrCat("'", tensor->name(), "'"), tensor->shape());
}

MaceStatus CheckTensorMayBeEmpty(const Operation& op, const Tensor* tensor, DataType dtype) {
  if (tensor->size() != 0) return CheckTensor(op, tensor, dtype);
  if (tensor->dtype() != dtype) return CheckTensor(op, tensor, dtype);
  // Empty: the other dimensions still obey the element bound.
  std::vector<int64_t> others;
  for (int64_t d : tensor->shape()) {
    if (d != 0) others.push_back(d);
  }
  return CheckElementCount(op, StrCat("'", tensor->name(), "'"), others);
}

MaceStatus CheckNchwInput(const Operation& op, DataType dtype) {
  const Tensor* input = op.Input(0);
  if (input->dtype() != dtype) {
    return OpError(op, StrCat("input is ", DataTypeName(input->dtype()), " but must be ",
                              DataTypeName(dtype)));
  }
  if (input->dim_size() != 4) {
    return OpError(
        op, StrCat("input has shape ", ShapeToString(input->shape()), " but needs rank 4 (NCHW)"));
  }
  return CheckElementCount(op, "input", input->shape());
}

MaceStatus CheckKernelType(const Operation& op, const std::string& what, DataType dtype) {
  if (dtype == op.kernel_dtype()) return MaceStatus();
  return OpError(op, StrCat(what, " is ", DataTypeName(dtype), " but must be ",
                            DataTypeName(op.kernel_dtype())));
}

MaceStatus CheckInputsTypeAndShape(const Operation& op, DataType dtype) {
  for (int i = 0; i < op.InputSize(); ++i) {
    if (op.Input(i) != nullptr) MACE_RETURN_IF_ERROR(CheckTensor(op, op.Input(i), dtype));
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
