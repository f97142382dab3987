#include "mace/ops/common/runtime_ints.h"

#include <cmath>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/utils/status.h"

namespace mace {
namespace ops {

MaceStatus CheckComputedInts(const Operation& op, const Tensor& tensor, const char* what,
                             int64_t max_count) {
  if (tensor.dtype() != DT_INT32 && tensor.dtype() != DT_FLOAT) {
    return OpError(op, StrCat(what, " input '", tensor.name(), "' is ",
                              DataTypeName(tensor.dtype()), " but must be int32 or float32"));
  }
  if (tensor.dim_size() != 1 || tensor.dim(0) < 1 || tensor.dim(0) > max_count) {
    return OpError(
        op, StrCat(what, " input '", tensor.name(), "' has shape ", ShapeToString(tensor.shape()),
                   " but must be 1-D with 1 to ", max_count, " values"));
  }
  return MaceStatus();
}

MaceStatus ReadComputedInts(const Operation& op, const Tensor& tensor, const char* what,
                            std::vector<int64_t>* values) {
  values->clear();
  if (tensor.raw_data() == nullptr) {
    return OpError(op, StrCat(what, " input '", tensor.name(), "' has no data"));
  }
  const int64_t count = tensor.size();
  if (tensor.dtype() == DT_INT32) {
    const int32_t* data = tensor.data<int32_t>();
    values->assign(data, data + count);
    return MaceStatus();
  }
  constexpr double kLimit = 4611686018427387904.0;  // 2^62
  const float* data = tensor.data<float>();
  for (int64_t i = 0; i < count; ++i) {
    const double value = data[i];
    if (!std::isfinite(value) || value != std::floor(value)) {
      return OpError(op, StrCat(what, " input '", tensor.name(), "' holds ", data[i], " at index ",
                                i, ", which is not a whole number"));
    }
    values->push_back(static_cast<int64_t>(value > kLimit    ? kLimit
                                           : value < -kLimit ? -kLimit
                                                             : value));
  }
  return MaceStatus();
}

MaceStatus ReadAxesInput(const Operation& op, bool* computed, std::vector<int64_t>* axes) {
  if (op.HasArg("axis")) {
    return OpError(op, "takes the axes either as the axis argument or as input 1, not both");
  }
  const Tensor& input = *op.Input(1);
  if (input.dim_size() == 1 && input.dim(0) == 0) {
    // An empty axes input has no values to read on any run: no axes.
    *computed = false;
    axes->clear();
    return MaceStatus();
  }
  MACE_RETURN_IF_ERROR(CheckComputedInts(op, input, "axes", kMaxComputedRank));
  *computed = IsComputed(op.Input(1));
  if (*computed) return MaceStatus();
  return ReadComputedInts(op, *op.Input(1), "axes", axes);
}

MaceStatus PlannedOutputShape(const Operation& op, int index, std::vector<int64_t>* shape) {
  const OperatorDef& def = op.def();
  // An output_shape without dimensions plans a rank-0 scalar.
  if (index >= def.output_shape_size()) {
    return OpError(op, StrCat("output ", index,
                              " depends on values read at run time, so the model must give "
                              "its planned shape (output_shape)"));
  }
  shape->assign(def.output_shape(index).dims().begin(), def.output_shape(index).dims().end());
  for (int64_t d : *shape) {
    if (d < 0 || d > kMaxElements) {
      return OpError(op, StrCat("planned output shape ", ShapeToString(*shape),
                                " has a dimension out of range"));
    }
  }
  if (BoundedElementCountMayBeEmpty(*shape) < 0) {
    return OpError(op, StrCat("planned output shape ", ShapeToString(*shape), " is too large"));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
