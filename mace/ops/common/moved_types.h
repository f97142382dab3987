// The element types of data-movement ops (Concat, Split, Slice, Reshape,
// Squeeze, Transpose). They copy elements without reading them, so besides
// their kernel's own type they take float32 and int32 whatever that type is:
// a shape subgraph (Shape -> Slice -> Concat -> Reshape) computes in int32
// inside a float net without naming its type.
#ifndef MACE_OPS_COMMON_MOVED_TYPES_H_
#define MACE_OPS_COMMON_MOVED_TYPES_H_

#include <string>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

inline bool IsMovedType(DataType kernel_dtype, DataType dtype) {
  return dtype == kernel_dtype || dtype == DT_FLOAT || dtype == DT_INT32;
}

// INVALID_ARGS naming `op` unless `dtype` (of the tensor called `what`) is one
// that `op`'s kernel moves.
inline MaceStatus CheckMovedType(const Operation& op, const std::string& what, DataType dtype) {
  const DataType kernel_dtype = op.kernel_dtype();
  if (IsMovedType(kernel_dtype, dtype)) return MaceStatus();
  const bool extra = kernel_dtype != DT_FLOAT && kernel_dtype != DT_INT32;
  return MaceStatus(
      MaceStatus::MACE_INVALID_ARGS,
      StrCat(op.Describe(), ": ", what, " is ", DataTypeName(dtype), " but must be ",
             extra ? StrCat(DataTypeName(kernel_dtype), ", ") : std::string(), "float32 or int32"));
}

// The base of data-movement ops: data moves unchanged, so each output has
// the input's type.
class DataMovementOp : public Operation {
 public:
  // Construct binds the inputs before it asks.
  DataType OutputType(int /*index*/) const override {
    return InputSize() > 0 && Input(0) != nullptr ? Input(0)->dtype() : kernel_dtype();
  }
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_MOVED_TYPES_H_
