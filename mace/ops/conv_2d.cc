#include "mace/ops/conv_2d.h"

#include "mace/ops/common/conv_inputs.h"
#include "mace/ops/cpu/conv_2d_cpu.h"
#include "mace/ops/cpu/conv_2d_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus Conv2DBase::Init() {
  MACE_RETURN_IF_ERROR(ParseConvArgs(*this, &window_, &params_.activation));
  params_.group = GetInt("group", 1);
  OP_CHECK(params_.group >= 1, "group must be positive, got ", params_.group);
  winograd_ = GetInt("winograd", 0);
  OP_CHECK(winograd_ == 0 || winograd_ == 2 || winograd_ == 4 || winograd_ == 6,
           "winograd must be 0, 2, 4 or 6, got ", winograd_);
  return MaceStatus();
}

MaceStatus Conv2DBase::InferShapes() {
  const Tensor* input = Input(0);
  const Tensor* filter = Input(1);
  const DataType dtype = kernel_dtype() == DT_UINT8 ? DT_UINT8 : DT_FLOAT;
  MACE_RETURN_IF_ERROR(CheckConvInputs(*this, dtype, "(OIHW)"));
  const int64_t group = params_.group;
  const int64_t in_channels = input->dim(1);
  const int64_t out_channels = filter->dim(0);
  OP_CHECK(in_channels % group == 0 && out_channels % group == 0, "group ", group,
           " must divide both the ", in_channels, " input channels and the ", out_channels,
           " output channels");
  OP_CHECK(filter->dim(1) * group == in_channels, "filter has shape ",
           ShapeToString(filter->shape()), " (", filter->dim(1),
           " input channels per group) but the input has ", in_channels, " channels in ", group,
           " group(s)");
  MACE_RETURN_IF_ERROR(CheckBias(*this, out_channels));
  WindowGeometry geometry;
  MACE_RETURN_IF_ERROR(ComputeWindow(*this, window_, input->dim(2), input->dim(3), filter->dim(2),
                                     filter->dim(3), &geometry));
  SetWindowParams(*input, *filter, window_, &params_);
  params_.in_channels = in_channels;
  params_.out_channels = out_channels;
  params_.out_h = geometry.out_h;
  params_.out_w = geometry.out_w;
  params_.pad_top = geometry.pad_top;
  params_.pad_left = geometry.pad_left;
  Output(0)->Reshape({params_.batch, out_channels, geometry.out_h, geometry.out_w});
  return MaceStatus();
}

int64_t Conv2DBase::Macs() const {
  return params_.batch * params_.out_channels * params_.out_h * params_.out_w *
         (params_.in_channels / params_.group) * params_.kernel_h * params_.kernel_w;
}

MaceStatus RegisterConv2D(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(registry->Register("Conv2D", DeviceType::CPU, DT_FLOAT, NewConv2DCpu));
  MACE_RETURN_IF_ERROR(RegisterConv2DCpuFusions(registry));
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Conv2D", DeviceType::CPU, DT_UINT8, NewConv2DUint8Cpu));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
