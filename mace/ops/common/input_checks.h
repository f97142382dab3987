// Input checks that many ops' InferShapes share. They compare against the
// kernel's data type (Operation::kernel_dtype), so one base serves the
// float32 kernel and later ones of other types alike.
#ifndef MACE_OPS_COMMON_INPUT_CHECKS_H_
#define MACE_OPS_COMMON_INPUT_CHECKS_H_

#include <string>

#include "mace/core/operation.h"
#include "mace/ops/common/element_count.h"

namespace mace {
namespace ops {

// INVALID_ARGS naming `op` unless `dtype` (of the tensor called `what`) is the
// type `op`'s kernel computes in.
inline MaceStatus CheckKernelType(const Operation& op, const std::string& what, DataType dtype) {
  if (dtype == op.kernel_dtype()) return MaceStatus();
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                    StrCat(op.Describe(), ": ", what, " is ", DataTypeName(dtype), " but must be ",
                           DataTypeName(op.kernel_dtype())));
}

// Input 0 of an NCHW op: the kernel's type, rank 4, positive dimensions and
// at most kMaxElements elements.
inline MaceStatus CheckNchwInput(const Operation& op) {
  const Tensor* input = op.Input(0);
  MACE_RETURN_IF_ERROR(CheckKernelType(op, "input", input->dtype()));
  if (input->dim_size() != 4) {
    return MaceStatus(MaceStatus::MACE_INVALID_ARGS,
                      StrCat(op.Describe(), ": input has shape ", ShapeToString(input->shape()),
                             " but needs rank 4 (NCHW)"));
  }
  return CheckElementCount(op, "input", input->shape());
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_INPUT_CHECKS_H_
