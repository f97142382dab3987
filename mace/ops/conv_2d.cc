#include "mace/ops/conv_2d.h"

#include <algorithm>

#include "mace/ops/common/activation.h"
#include "mace/ops/cpu/conv_2d_cpu.h"
#include "mace/ops/cpu/conv_2d_uint8.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

// Keeps index arithmetic far from int64 overflow on hostile models.
constexpr int64_t kMaxWindowArg = int64_t{1} << 20;

bool AllPositive(const std::vector<int64_t>& shape) {
  return std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0; });
}

}  // namespace

MaceStatus Conv2DBase::Init() {
  OP_CHECK(InputSize() >= 2 && InputSize() <= 3 && OutputSize() == 1,
           "needs inputs [input, filter, optional bias] and one output, got ", InputSize(),
           " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  OP_CHECK(Input(1) != nullptr, "filter is missing");
  MACE_RETURN_IF_ERROR(ParseWindowArgs(*this, &window_));
  OP_CHECK(std::max({window_.stride_h, window_.stride_w, window_.dilation_h, window_.dilation_w,
                     window_.pad_top, window_.pad_left, window_.pad_bottom, window_.pad_right}) <=
               kMaxWindowArg,
           "strides, dilations and pads must not exceed ", kMaxWindowArg);
  MACE_RETURN_IF_ERROR(ParseActivation(*this, /*allow_prelu=*/false, &params_.activation));
  params_.group = GetInt("group", 1);
  OP_CHECK(params_.group >= 1, "group must be positive, got ", params_.group);
  winograd_ = GetInt("winograd", 0);
  OP_CHECK(winograd_ == 0 || winograd_ == 2 || winograd_ == 4, "winograd must be 0, 2 or 4, got ",
           winograd_);
  return MaceStatus();
}

MaceStatus Conv2DBase::InferShapes() {
  const Tensor* input = Input(0);
  const Tensor* filter = Input(1);
  const Tensor* bias = Bias();
  // float32 throughout, or uint8 input, uint8 or int8 filter, int32 bias.
  const bool quantized = kernel_dtype() == DT_UINT8;
  for (const Tensor* tensor : {input, filter, bias}) {
    if (tensor == nullptr) continue;
    const DataType dtype = tensor->dtype();
    const char* expected = !quantized ? "float32"
                           : tensor == input ? "uint8"
                           : tensor == filter ? "uint8 or int8"
                                              : "int32";
    const bool type_ok = !quantized ? dtype == DT_FLOAT
                         : tensor == input ? dtype == DT_UINT8
                         : tensor == filter ? dtype == DT_UINT8 || dtype == DT_INT8
                                            : dtype == DT_INT32;
    OP_CHECK(type_ok, "'", tensor->name(), "' is ", DataTypeName(dtype), " but must be ",
             expected);
    OP_CHECK(AllPositive(tensor->shape()), "'", tensor->name(), "' has shape ",
             ShapeToString(tensor->shape()), " with a non-positive dimension");
  }
  OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
           " but needs rank 4 (NCHW)");
  OP_CHECK(filter->dim_size() == 4, "filter has shape ", ShapeToString(filter->shape()),
           " but needs rank 4 (OIHW)");
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
  if (bias != nullptr) {
    OP_CHECK(bias->dim_size() == 1 && bias->dim(0) == out_channels, "bias has shape ",
             ShapeToString(bias->shape()), " but needs [", out_channels, "]");
  }
  WindowGeometry geometry;
  MACE_RETURN_IF_ERROR(ComputeWindow(*this, window_, input->dim(2), input->dim(3), filter->dim(2),
                                     filter->dim(3), &geometry));
  params_.batch = input->dim(0);
  params_.in_channels = in_channels;
  params_.in_h = input->dim(2);
  params_.in_w = input->dim(3);
  params_.out_channels = out_channels;
  params_.out_h = geometry.out_h;
  params_.out_w = geometry.out_w;
  params_.kernel_h = filter->dim(2);
  params_.kernel_w = filter->dim(3);
  params_.stride_h = window_.stride_h;
  params_.stride_w = window_.stride_w;
  params_.dilation_h = window_.dilation_h;
  params_.dilation_w = window_.dilation_w;
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
  return registry->Register("Conv2D", DeviceType::CPU, DT_UINT8, NewConv2DUint8Cpu);
}

}  // namespace ops
}  // namespace mace
