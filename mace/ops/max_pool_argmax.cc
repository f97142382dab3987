#include "mace/ops/max_pool_argmax.h"

#include <vector>

#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

// kernels (required, >= 1) and strides (default 1), two values each.
MaceStatus ReadWindow(const Operation& op, ref::ArgmaxWindow* window) {
  if (!op.HasArg("kernels")) return OpError(op, "needs kernels [kh, kw]");
  int64_t kernel[2], stride[2];
  MACE_RETURN_IF_ERROR(ReadWindowInts(op, "kernels", 2, 1, 1, kernel));
  MACE_RETURN_IF_ERROR(ReadWindowInts(op, "strides", 2, 1, 1, stride));
  window->kernel_h = kernel[0];
  window->kernel_w = kernel[1];
  window->stride_h = stride[0];
  window->stride_w = stride[1];
  return MaceStatus();
}

MaceStatus CheckPlanes(const Operation& op, const Tensor* tensor) {
  MACE_RETURN_IF_ERROR(CheckTensor(op, tensor, DT_FLOAT));
  if (tensor->dim_size() == 4) return MaceStatus();
  return OpError(op, StrCat("'", tensor->name(), "' has shape ", ShapeToString(tensor->shape()),
                            " but needs rank 4 (NCHW)"));
}

}  // namespace

MaceStatus MaxPoolArgmax::Init() {
  OP_CHECK(InputSize() == 1 && (OutputSize() == 1 || OutputSize() == 2),
           "needs one input and one or two outputs, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  MACE_RETURN_IF_ERROR(ReadWindow(*this, &window_));
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "pads", 4, 0, 0, pads_));
  window_.pad_top = pads_[0];
  window_.pad_left = pads_[1];
  return MaceStatus();
}

MaceStatus MaxPoolArgmax::Prepare(OpContext* /*context*/) {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckPlanes(*this, input));
  window_.planes = input->dim(0) * input->dim(1);
  window_.in_h = input->dim(2);
  window_.in_w = input->dim(3);
  const int64_t padded_h = window_.in_h + pads_[0] + pads_[2];
  const int64_t padded_w = window_.in_w + pads_[1] + pads_[3];
  OP_CHECK(padded_h >= window_.kernel_h && padded_w >= window_.kernel_w, "the window ",
           window_.kernel_h, "x", window_.kernel_w, " is larger than the padded input ", padded_h,
           "x", padded_w);
  window_.out_h = (padded_h - window_.kernel_h) / window_.stride_h + 1;
  window_.out_w = (padded_w - window_.kernel_w) / window_.stride_w + 1;
  const std::vector<int64_t> shape = {input->dim(0), input->dim(1), window_.out_h, window_.out_w};
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", shape));
  for (int i = 0; i < OutputSize(); ++i) Output(i)->Reshape(shape);
  return MaceStatus();
}

MaceStatus MaxPoolArgmax::Run(OpContext* /*context*/) {
  float* indices = OutputSize() == 2 ? Output(1)->mutable_data<float>() : nullptr;
  ref::MaxPoolArgmax(window_, Input(0)->data<float>(), Output(0)->mutable_data<float>(), indices);
  return MaceStatus();
}

MaceStatus MaxUnpool::Init() {
  OP_CHECK(InputSize() == 2 && OutputSize() == 1, "needs two inputs and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr && Input(1) != nullptr, "needs the values and the indices");
  MACE_RETURN_IF_ERROR(ReadWindow(*this, &window_));
  int64_t pads[2], size[2];
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "pads", 2, 0, 0, pads));
  OP_CHECK(HasArg("output_size"), "needs output_size [height, width]");
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "output_size", 2, 1, 1, size));
  window_.pad_top = pads[0];
  window_.pad_left = pads[1];
  window_.out_h = size[0];
  window_.out_w = size[1];
  return MaceStatus();
}

MaceStatus MaxUnpool::Prepare(OpContext* /*context*/) {
  const Tensor* input = Input(0);
  const Tensor* indices = Input(1);
  MACE_RETURN_IF_ERROR(CheckPlanes(*this, input));
  MACE_RETURN_IF_ERROR(CheckPlanes(*this, indices));
  OP_CHECK(input->shape() == indices->shape(), "values ", ShapeToString(input->shape()),
           " and indices ", ShapeToString(indices->shape()), " differ in shape");
  window_.planes = input->dim(0) * input->dim(1);
  window_.in_h = input->dim(2);
  window_.in_w = input->dim(3);
  const std::vector<int64_t> shape = {input->dim(0), input->dim(1), window_.out_h, window_.out_w};
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", shape));
  Output(0)->Reshape(shape);
  return MaceStatus();
}

MaceStatus MaxUnpool::Run(OpContext* /*context*/) {
  ref::MaxUnpool(window_, Input(0)->data<float>(), Input(1)->data<float>(),
                 Output(0)->mutable_data<float>());
  return MaceStatus();
}

MaceStatus RegisterMaxPoolArgmax(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(
      RegisterOp<MaxPoolArgmax>(registry, "MaxPoolArgmax", DeviceType::CPU, DT_FLOAT));
  return RegisterOp<MaxUnpool>(registry, "MaxUnpool", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
