#include "mace/ops/common/conv_inputs.h"

#include <algorithm>
#include <string>

namespace mace {
namespace ops {
namespace {

constexpr int64_t kMaxWindowArg = int64_t{1} << 20;

MaceStatus Fail(const Operation& op, const std::string& message) {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, StrCat(op.Describe(), ": ", message));
}

bool AllPositive(const std::vector<int64_t>& shape) {
  return std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0; });
}

}  // namespace

MaceStatus ParseConvArgs(const Operation& op, WindowArgs* window, Activation* activation) {
  if (op.InputSize() < 2 || op.InputSize() > 3 || op.OutputSize() != 1) {
    return Fail(op, StrCat("needs inputs [input, filter, optional bias] and one output, got ",
                           op.InputSize(), " inputs and ", op.OutputSize(), " outputs"));
  }
  if (op.Input(0) == nullptr) return Fail(op, "input is missing");
  if (op.Input(1) == nullptr) return Fail(op, "filter is missing");
  MACE_RETURN_IF_ERROR(ParseWindowArgs(op, window));
  if (std::max({window->stride_h, window->stride_w, window->dilation_h, window->dilation_w,
                window->pad_top, window->pad_left, window->pad_bottom, window->pad_right}) >
      kMaxWindowArg) {
    return Fail(op, StrCat("strides, dilations and pads must not exceed ", kMaxWindowArg));
  }
  return ParseActivation(op, /*allow_prelu=*/false, activation);
}

MaceStatus CheckConvInputs(const Operation& op, DataType dtype, const char* filter_layout) {
  const Tensor* input = op.Input(0);
  const Tensor* filter = op.Input(1);
  for (const Tensor* tensor : {input, filter, ConvBias(op)}) {
    if (tensor == nullptr) continue;
    if (tensor->dtype() != dtype) {
      return Fail(op, StrCat("'", tensor->name(), "' is ", DataTypeName(tensor->dtype()),
                             " but must be ", DataTypeName(dtype)));
    }
    if (!AllPositive(tensor->shape())) {
      return Fail(op, StrCat("'", tensor->name(), "' has shape ", ShapeToString(tensor->shape()),
                             " with a non-positive dimension"));
    }
  }
  if (input->dim_size() != 4) {
    return Fail(
        op, StrCat("input has shape ", ShapeToString(input->shape()), " but needs rank 4 (NCHW)"));
  }
  if (filter->dim_size() != 4) {
    return Fail(op, StrCat("filter has shape ", ShapeToString(filter->shape()),
                           " but needs rank 4 ", filter_layout));
  }
  return MaceStatus();
}

MaceStatus CheckConvBias(const Operation& op, int64_t out_channels) {
  const Tensor* bias = ConvBias(op);
  if (bias == nullptr || (bias->dim_size() == 1 && bias->dim(0) == out_channels)) {
    return MaceStatus();
  }
  return Fail(op, StrCat("bias has shape ", ShapeToString(bias->shape()), " but needs [",
                         out_channels, "]"));
}

}  // namespace ops
}  // namespace mace
