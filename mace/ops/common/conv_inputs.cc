#include "mace/ops/common/conv_inputs.h"

#include <algorithm>
#include <string>

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

MaceStatus CheckConvInputs(const Operation& op, DataType dtype, const char* filter_layout) {
  const Tensor* input = op.Input(0);
  const Tensor* filter = op.Input(1);
  MACE_RETURN_IF_ERROR(CheckInputsTypeAndShape(op, dtype));
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
