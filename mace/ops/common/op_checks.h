// Argument and input checks that many ops share, with the same messages
// wherever they are used.
#ifndef MACE_OPS_COMMON_OP_CHECKS_H_
#define MACE_OPS_COMMON_OP_CHECKS_H_

#include <string>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

// INVALID_ARGS with `message` after the op's name, for checks outside the
// op's own methods (where OP_CHECK is not at hand).
MaceStatus OpError(const Operation& op, const std::string& message);

// Reads the int argument `name` as a flag: 0 or 1, else INVALID_ARGS naming
// the op. An absent argument leaves `*flag` as it is, its default.
MaceStatus ParseFlag(const Operation& op, const std::string& name, bool* flag);

// Checks that `tensor` is of type `dtype` with only positive dimensions and
// at most kMaxElements elements (element_count.h), so that index arithmetic
// cannot overflow on hostile shapes; the message names the tensor.
MaceStatus CheckTensor(const Operation& op, const Tensor* tensor, DataType dtype);

// CheckTensor for the ops whose shape inference and kernels handle empty
// tensors: a dimension may also be 0. (Net::Run does not run an op whose
// outputs are all empty.)
MaceStatus CheckTensorMayBeEmpty(const Operation& op, const Tensor* tensor, DataType dtype);

// Checks that input 0 is of type `dtype`, of rank 4 (NCHW) and within
// CheckElementCount's bounds; the messages call it "input".
MaceStatus CheckNchwInput(const Operation& op, DataType dtype);

// CheckNchwInput for the type the op's kernel computes in
// (Operation::kernel_dtype), so one base serves kernels of every type.
inline MaceStatus CheckNchwInput(const Operation& op) {
  return CheckNchwInput(op, op.kernel_dtype());
}

// INVALID_ARGS naming `op` unless `dtype` (of the tensor called `what`) is
// the type the op's kernel computes in.
MaceStatus CheckKernelType(const Operation& op, const std::string& what, DataType dtype);

// CheckTensor for every input present.
MaceStatus CheckInputsTypeAndShape(const Operation& op, DataType dtype);

// The optional bias of ops with inputs [x, weight, optional bias]: input 2,
// or null.
inline const Tensor* OptionalBias(const Operation& op) {
  return op.InputSize() > 2 ? op.Input(2) : nullptr;
}

// Checks that the bias, if any, is [channels].
MaceStatus CheckBias(const Operation& op, int64_t channels);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_OP_CHECKS_H_
