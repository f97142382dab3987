#include "mace/ops/deconv_2d.h"

#include <algorithm>

#include "mace/ops/cpu/deconv_2d_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

// The uncropped output length of one dimension.
int64_t FullSize(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                 int64_t output_padding) {
  return (in - 1) * stride + dilation * (kernel - 1) + 1 + output_padding;
}

}  // namespace

MaceStatus Deconv2DBase::Init() {
  MACE_RETURN_IF_ERROR(ParseConvArgs(*this, &window_, &params_.activation));
  params_.group = GetInt("group", 1);
  OP_CHECK(params_.group >= 1, "group must be positive, got ", params_.group);
  const std::vector<int64_t> output_padding = GetInts("output_padding");
  if (!output_padding.empty()) {
    OP_CHECK(output_padding.size() == 2, "output_padding must be two integers [h, w]");
    output_padding_h_ = output_padding[0];
    output_padding_w_ = output_padding[1];
  }
  // As in ONNX and PyTorch: more would add rows no input pixel can reach.
  OP_CHECK(output_padding_h_ >= 0 && output_padding_w_ >= 0 &&
               output_padding_h_ < std::max(window_.stride_h, window_.dilation_h) &&
               output_padding_w_ < std::max(window_.stride_w, window_.dilation_w),
           "output_padding [", output_padding_h_, ", ", output_padding_w_,
           "] must be non-negative and smaller than the stride or the dilation");
  return MaceStatus();
}

MaceStatus Deconv2DBase::InferShapes() {
  const Tensor* input = Input(0);
  const Tensor* filter = Input(1);
  MACE_RETURN_IF_ERROR(
      CheckConvInputs(*this, DT_FLOAT, "[in_channels, out_channels / group, kh, kw]"));
  const int64_t group = params_.group;
  const int64_t in_channels = input->dim(1);
  OP_CHECK(filter->dim(0) == in_channels, "filter has shape ", ShapeToString(filter->shape()),
           " but the input has ", in_channels, " channels (filter dim 0)");
  OP_CHECK(in_channels % group == 0, "group ", group, " must divide the ", in_channels,
           " input channels");
  const int64_t out_channels = filter->dim(1) * group;
  MACE_RETURN_IF_ERROR(CheckBias(*this, out_channels));
  SetWindowParams(*input, *filter, window_, &params_);
  params_.in_channels = in_channels;
  params_.out_channels = out_channels;
  const int64_t full_h = FullSize(params_.in_h, params_.kernel_h, window_.stride_h,
                                  window_.dilation_h, output_padding_h_);
  const int64_t full_w = FullSize(params_.in_w, params_.kernel_w, window_.stride_w,
                                  window_.dilation_w, output_padding_w_);
  ComputeDim(params_.in_h, window_.stride_h, full_h, window_.pad_top, window_.pad_bottom,
             &params_.pad_top, &params_.out_h);
  ComputeDim(params_.in_w, window_.stride_w, full_w, window_.pad_left, window_.pad_right,
             &params_.pad_left, &params_.out_w);
  OP_CHECK(params_.out_h > 0 && params_.out_w > 0, "pads [", window_.pad_top, ",", window_.pad_left,
           ",", window_.pad_bottom, ",", window_.pad_right, "] crop away the whole ", full_h, "x",
           full_w, " output");
  Output(0)->Reshape({params_.batch, out_channels, params_.out_h, params_.out_w});
  return MaceStatus();
}

void Deconv2DBase::ComputeDim(int64_t in, int64_t stride, int64_t full, int64_t explicit_begin,
                              int64_t explicit_end, int64_t* crop_begin, int64_t* out) const {
  if (window_.explicit_pads || window_.padding == 0) {
    *crop_begin = window_.explicit_pads ? explicit_begin : 0;
    *out = full - (window_.explicit_pads ? explicit_begin + explicit_end : 0);
    return;
  }
  // SAME: the output is exactly in * stride. When the full output is
  // shorter (kernel < stride), nothing is cropped and the tail pixels that
  // no input reaches hold only the bias, as in TensorFlow.
  *out = in * stride;
  const int64_t total = std::max<int64_t>(full - *out, 0);
  *crop_begin = window_.padding == 1 ? total / 2 : total - total / 2;
}

int64_t Deconv2DBase::Macs() const {
  return params_.batch * params_.in_channels * params_.in_h * params_.in_w *
         (params_.out_channels / params_.group) * params_.kernel_h * params_.kernel_w;
}

MaceStatus RegisterDeconv2D(OpRegistry* registry) {
  return registry->Register("Deconv2D", DeviceType::CPU, DT_FLOAT, NewDeconv2DCpu);
}

}  // namespace ops
}  // namespace mace
