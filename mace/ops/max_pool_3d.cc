#include "mace/ops/max_pool_3d.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus MaxPool3D::Init() {
  OP_CHECK(InputSize() == 1 && (OutputSize() == 1 || OutputSize() == 2),
           "needs one input and one or two outputs, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  OP_CHECK(HasArg("kernels"), "needs kernels [kd, kh, kw]");
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "kernels", 3, 1, 1, params_.kernel));
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "strides", 3, 1, 1, params_.stride));
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "dilations", 3, 1, 1, params_.dilation));
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "pads", 6, 0, 0, pads_));
  for (int axis = 0; axis < 3; ++axis) params_.pad[axis] = pads_[axis];
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "ceil_mode", &ceil_mode_));
  return ParseFlag(*this, "storage_order", &params_.column_major);
}

MaceStatus MaxPool3D::Prepare(OpContext* /*context*/) {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckTensor(*this, input, DT_FLOAT));
  OP_CHECK(input->dim_size() == 5, "input has shape ", ShapeToString(input->shape()),
           " but needs rank 5 (NCDHW)");
  OP_CHECK(input->size() <= std::numeric_limits<int32_t>::max(), "input has shape ",
           ShapeToString(input->shape()), "; int32 indices need fewer than 2^31 elements");
  params_.batch = input->dim(0);
  params_.channels = input->dim(1);
  std::vector<int64_t> output_shape = {params_.batch, params_.channels};
  for (int axis = 0; axis < 3; ++axis) {
    params_.in[axis] = input->dim(2 + axis);
    const int64_t span = params_.dilation[axis] * (params_.kernel[axis] - 1) + 1;
    const int64_t begin = pads_[axis], padded = params_.in[axis] + begin + pads_[axis + 3];
    OP_CHECK(padded >= span, "the dilated kernel (", span, ") on axis ", axis,
             " is longer than the padded input (", padded, ")");
    const int64_t stride = params_.stride[axis];
    const int64_t out = ceil_mode_
                            ? CeilModeSize(params_.in[axis], begin, pads_[axis + 3], span, stride)
                            : (padded - span) / stride + 1;
    params_.out[axis] = out;
    output_shape.push_back(out);
  }
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", output_shape));
  for (int i = 0; i < OutputSize(); ++i) Output(i)->Reshape(output_shape);
  return MaceStatus();
}

MaceStatus MaxPool3D::Run(OpContext* /*context*/) {
  int32_t* indices = OutputSize() == 2 ? Output(1)->mutable_data<int32_t>() : nullptr;
  ref::MaxPool3D(params_, Input(0)->data<float>(), Output(0)->mutable_data<float>(), indices);
  return MaceStatus();
}

MaceStatus RegisterMaxPool3D(OpRegistry* registry) {
  return RegisterOp<MaxPool3D>(registry, "MaxPool3D", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
