#include "mace/ops/common/conv_inputs.h"

#include <algorithm>
#include <string>

#include "mace/ops/common/element_count.h"

namespace mace {
namespace ops {
MaceStatus ParseConvArgs(const Operation& op, WindowArgs* window, Activation* activation) {
  if (op.InputSize() < 2 || op.InputSize() > 3 || op.OutputSize() != 1) {
    return OpError(op, StrCat("needs inputs [input, filter, optional bias] and one output, got ",
                              op.InputSize(), " inputs and ", op.OutputSize(), " outputs"));
  }
  if (op.Input(0) == nullptr) return OpError(op, "input is missing");
  if (op.Input(1) == nullptr) return OpError(op, "filter is missing");
  MACE_RETURN_IF_ERROR(ParseWindowArgs(op, window));
  if (std::max({window->stride_h, window->stride_w, window->dilation_h, window->dilation_w,
                window->pad_top, window->pad_left, window->pad_bottom, window->pad_right}) >
      kMaxWindowArg) {
    return OpError(op, StrCat("strides, dilations and pads must not exceed ", kMaxWindowArg));
  }
  return ParseActivation(op, /*allow_prelu=*/false, activation);
}

MaceStatus CheckQuantizedInputTypes(const Operation& op) {
  for (int i = 0; i < op.InputSize(); ++i) {
    const Tensor* tensor = op.Input(i);
    if (tensor == nullptr) continue;
    const DataType dtype = tensor->dtype();
    const bool ok = i == 0   ? dtype == DT_UINT8
                    : i == 1 ? dtype == DT_UINT8 || dtype == DT_INT8
                             : dtype == DT_INT32;
    if (!ok) {
      const char* expected = i == 0 ? "uint8" : i == 1 ? "uint8 or int8" : "int32";
      return OpError(op, StrCat("'", tensor->name(), "' is ", DataTypeName(dtype),
                                " but must be ", expected));
    }
    MACE_RETURN_IF_ERROR(CheckElementCount(op, StrCat("'", tensor->name(), "'"), tensor->shape()));
  }
  return MaceStatus();
}

MaceStatus CheckConvInputs(const Operation& op, DataType dtype, const char* filter_layout) {
  const Tensor* input = op.Input(0);
  const Tensor* filter = op.Input(1);
  MACE_RETURN_IF_ERROR(dtype == DT_UINT8 ? CheckQuantizedInputTypes(op)
                                         : CheckInputsTypeAndShape(op, dtype));
  if (input->dim_size() != 4) {
    return OpError(
        op, StrCat("input has shape ", ShapeToString(input->shape()), " but needs rank 4 (NCHW)"));
  }
  if (filter->dim_size() != 4) {
    return OpError(op, StrCat("filter has shape ", ShapeToString(filter->shape()),
                              " but needs rank 4 ", filter_layout));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
