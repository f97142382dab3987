#include "mace/ops/conv_3d.h"

#include <string>
#include <vector>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/conv_3d_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus Conv3DBase::Init() {
  OP_CHECK((InputSize() == 2 || InputSize() == 3) && OutputSize() == 1,
           "needs inputs [input, filter, optional bias] and one output, got ", InputSize(),
           " inputs and ", OutputSize(), " outputs");
  for (int i = 0; i < InputSize(); ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "strides", 3, 1, 1, params_.stride));
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "dilations", 3, 1, 1, params_.dilation));
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "pads", 6, 0, 0, pads_));
  for (int axis = 0; axis < 3; ++axis) params_.pad[axis] = pads_[axis];
  params_.group = GetInt("group", 1);
  OP_CHECK(params_.group >= 1 && params_.group <= kMaxWindowArg, "group must be in [1, ",
           kMaxWindowArg, "], got ", params_.group);
  return ParseActivation(*this, /*allow_prelu=*/false, &params_.activation);
}

MaceStatus Conv3DBase::InferShapes() {
  const Tensor* input = Input(0);
  const Tensor* filter = Input(1);
  MACE_RETURN_IF_ERROR(CheckTensor(*this, input, DT_FLOAT));
  MACE_RETURN_IF_ERROR(CheckTensor(*this, filter, DT_FLOAT));
  OP_CHECK(input->dim_size() == 5, "input has shape ", ShapeToString(input->shape()),
           " but needs rank 5 (NCDHW)");
  OP_CHECK(filter->dim_size() == 5, "filter has shape ", ShapeToString(filter->shape()),
           " but needs rank 5 [out_channels, in_channels / group, kd, kh, kw]");
  const int64_t in_channels = input->dim(1);
  const int64_t out_channels = filter->dim(0);
  OP_CHECK(filter->dim(1) * params_.group == in_channels, "filter has shape ",
           ShapeToString(filter->shape()), " which with group ", params_.group,
           " does not fit the input's ", in_channels, " channels");
  OP_CHECK(out_channels % params_.group == 0, "group ", params_.group, " must divide the ",
           out_channels, " output channels");
  params_.batch = input->dim(0);
  params_.in_channels = in_channels;
  params_.out_channels = out_channels;
  MACE_RETURN_IF_ERROR(CheckBias(*this, out_channels));
  std::vector<int64_t> output_shape = {params_.batch, out_channels};
  for (int axis = 0; axis < 3; ++axis) {
    params_.in[axis] = input->dim(2 + axis);
    params_.kernel[axis] = filter->dim(2 + axis);
    OP_CHECK(params_.kernel[axis] <= kMaxWindowArg, "filter has shape ",
             ShapeToString(filter->shape()), "; kernel sizes must not exceed ", kMaxWindowArg);
    const int64_t span = params_.dilation[axis] * (params_.kernel[axis] - 1) + 1;
    const int64_t padded = params_.in[axis] + pads_[axis] + pads_[axis + 3];
    OP_CHECK(padded >= span, "the dilated kernel (", span, ") on axis ", axis,
             " is longer than the padded input (", padded, ")");
    params_.out[axis] = (padded - span) / params_.stride[axis] + 1;
    output_shape.push_back(params_.out[axis]);
  }
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", output_shape));
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

int64_t Conv3DBase::Macs() const {
  return params_.batch * params_.out_channels * params_.out[0] * params_.out[1] * params_.out[2] *
         (params_.in_channels / params_.group) * params_.kernel[0] * params_.kernel[1] *
         params_.kernel[2];
}

MaceStatus RegisterConv3D(OpRegistry* registry) {
  return registry->Register("Conv3D", DeviceType::CPU, DT_FLOAT, NewConv3DCpu);
}

}  // namespace ops
}  // namespace mace
