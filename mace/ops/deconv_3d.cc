#include "mace/ops/deconv_3d.h"

#include <algorithm>
#include <string>
#include <vector>

#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/deconv_3d_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus Deconv3DBase::Init() {
  OP_CHECK((InputSize() == 2 || InputSize() == 3) && OutputSize() == 1,
           "needs inputs [input, filter, optional bias] and one output, got ", InputSize(),
           " inputs and ", OutputSize(), " outputs");
  for (int i = 0; i < InputSize(); ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "strides", 3, 1, 1, params_.stride));
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "dilations", 3, 1, 1, params_.dilation));
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "pads", 6, 0, 0, pads_));
  MACE_RETURN_IF_ERROR(ReadWindowInts(*this, "output_padding", 3, 0, 0, output_padding_));
  for (int axis = 0; axis < 3; ++axis) {
    // As in ONNX and PyTorch: more would add planes no input voxel reaches.
    OP_CHECK(output_padding_[axis] < std::max(params_.stride[axis], params_.dilation[axis]),
             "output_padding ", output_padding_[axis], " on axis ", axis,
             " must be smaller than the stride or the dilation");
  }
  params_.group = GetInt("group", 1);
  OP_CHECK(params_.group >= 1, "group must be positive, got ", params_.group);
  return MaceStatus();
}

MaceStatus Deconv3DBase::InferShapes() {
  const Tensor* input = Input(0);
  const Tensor* filter = Input(1);
  MACE_RETURN_IF_ERROR(CheckTensor(*this, input, DT_FLOAT));
  MACE_RETURN_IF_ERROR(CheckTensor(*this, filter, DT_FLOAT));
  OP_CHECK(input->dim_size() == 5, "input has shape ", ShapeToString(input->shape()),
           " but needs rank 5 (NCDHW)");
  OP_CHECK(filter->dim_size() == 5, "filter has shape ", ShapeToString(filter->shape()),
           " but needs rank 5 [in_channels, out_channels / group, kd, kh, kw]");
  const int64_t in_channels = input->dim(1);
  OP_CHECK(filter->dim(0) == in_channels, "filter has shape ", ShapeToString(filter->shape()),
           " but the input has ", in_channels, " channels (filter dim 0)");
  OP_CHECK(in_channels % params_.group == 0, "group ", params_.group, " must divide the ",
           in_channels, " input channels");
  params_.batch = input->dim(0);
  params_.in_channels = in_channels;
  params_.out_channels = filter->dim(1) * params_.group;
  MACE_RETURN_IF_ERROR(CheckBias(*this, params_.out_channels));
  std::vector<int64_t> output_shape = {params_.batch, params_.out_channels};
  for (int axis = 0; axis < 3; ++axis) {
    params_.in[axis] = input->dim(2 + axis);
    params_.kernel[axis] = filter->dim(2 + axis);
    OP_CHECK(params_.kernel[axis] <= kMaxWindowArg, "filter has shape ",
             ShapeToString(filter->shape()), "; kernel sizes must not exceed ", kMaxWindowArg);
    const int64_t full = (params_.in[axis] - 1) * params_.stride[axis] +
                         params_.dilation[axis] * (params_.kernel[axis] - 1) + 1 +
                         output_padding_[axis];
    params_.crop[axis] = pads_[axis];
    params_.out[axis] = full - pads_[axis] - pads_[axis + 3];
    OP_CHECK(params_.out[axis] > 0, "pads ", pads_[axis], " and ", pads_[axis + 3], " on axis ",
             axis, " crop away the whole ", full, "-long output");
    output_shape.push_back(params_.out[axis]);
  }
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", output_shape));
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

int64_t Deconv3DBase::Macs() const {
  return params_.batch * params_.in_channels * params_.in[0] * params_.in[1] * params_.in[2] *
         (params_.out_channels / params_.group) * params_.kernel[0] * params_.kernel[1] *
         params_.kernel[2];
}

MaceStatus RegisterDeconv3D(OpRegistry* registry) {
  return registry->Register("Deconv3D", DeviceType::CPU, DT_FLOAT, NewDeconv3DCpu);
}

}  // namespace ops
}  // namespace mace
