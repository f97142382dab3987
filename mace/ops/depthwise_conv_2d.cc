#include "mace/ops/depthwise_conv_2d.h"

#include "mace/ops/cpu/depthwise_conv_2d_cpu.h"
#include "mace/ops/cpu/depthwise_conv_2d_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus DepthwiseConv2dBase::Init() {
  return ParseConvArgs(*this, &window_, &params_.activation);
}

MaceStatus DepthwiseConv2dBase::InferShapes() {
  const Tensor* input = Input(0);
  const Tensor* filter = Input(1);
  const DataType dtype = kernel_dtype() == DT_UINT8 ? DT_UINT8 : DT_FLOAT;
  MACE_RETURN_IF_ERROR(CheckConvInputs(*this, dtype, "[multiplier, channels, kh, kw]"));
  const int64_t channels = input->dim(1);
  OP_CHECK(filter->dim(1) == channels, "filter has shape ", ShapeToString(filter->shape()),
           " but the input has ", channels, " channels (filter dim 1)");
  const int64_t out_channels = channels * filter->dim(0);
  MACE_RETURN_IF_ERROR(CheckBias(*this, out_channels));
  WindowGeometry geometry;
  MACE_RETURN_IF_ERROR(ComputeWindow(*this, window_, input->dim(2), input->dim(3), filter->dim(2),
                                     filter->dim(3), &geometry));
  SetWindowParams(*input, *filter, window_, &params_);
  params_.channels = channels;
  params_.multiplier = filter->dim(0);
  params_.out_h = geometry.out_h;
  params_.out_w = geometry.out_w;
  params_.pad_top = geometry.pad_top;
  params_.pad_left = geometry.pad_left;
  Output(0)->Reshape({params_.batch, out_channels, geometry.out_h, geometry.out_w});
  return MaceStatus();
}

int64_t DepthwiseConv2dBase::Macs() const {
  return params_.batch * params_.channels * params_.multiplier * params_.out_h * params_.out_w *
         params_.kernel_h * params_.kernel_w;
}

MaceStatus RegisterDepthwiseConv2d(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(
      registry->Register("DepthwiseConv2d", DeviceType::CPU, DT_FLOAT, NewDepthwiseConv2dCpu));
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(registry->Register("DepthwiseConv2d", DeviceType::CPU, DT_UINT8,
                                            NewDepthwiseConv2dUint8Cpu));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
