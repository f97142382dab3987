// Deconv2D: transposed convolution with ONNX ConvTranspose semantics. The
// filter is [in_channels, out_channels / group, kh, kw]; `pads` crop the full
// output rather than pad the input, and `padding` 1/2 (SAME) size the output
// to input * stride as TensorFlow's conv2d_transpose does.
#include "mace/ops/ref/deconv_2d.h"

#include <algorithm>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/conv_geometry.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

// Keeps index arithmetic far from int64 overflow on hostile models.
constexpr int64_t kMaxWindowArg = int64_t{1} << 20;

bool AllPositive(const std::vector<int64_t>& shape) {
  return std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0; });
}

class Deconv2DOp : public Operation {
 public:
  MaceStatus Init() override {
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

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    const Tensor* filter = Input(1);
    const Tensor* bias = Bias();
    for (const Tensor* tensor : {input, filter, bias}) {
      if (tensor == nullptr) continue;
      OP_CHECK(tensor->dtype() == DT_FLOAT, "'", tensor->name(), "' is ",
               DataTypeName(tensor->dtype()), " but must be float32");
      OP_CHECK(AllPositive(tensor->shape()), "'", tensor->name(), "' has shape ",
               ShapeToString(tensor->shape()), " with a non-positive dimension");
    }
    OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 4 (NCHW)");
    OP_CHECK(filter->dim_size() == 4, "filter has shape ", ShapeToString(filter->shape()),
             " but needs rank 4 [in_channels, out_channels / group, kh, kw]");
    const int64_t group = params_.group;
    const int64_t in_channels = input->dim(1);
    OP_CHECK(filter->dim(0) == in_channels, "filter has shape ", ShapeToString(filter->shape()),
             " but the input has ", in_channels, " channels (filter dim 0)");
    OP_CHECK(in_channels % group == 0, "group ", group, " must divide the ", in_channels,
             " input channels");
    const int64_t out_channels = filter->dim(1) * group;
    if (bias != nullptr) {
      OP_CHECK(bias->dim_size() == 1 && bias->dim(0) == out_channels, "bias has shape ",
               ShapeToString(bias->shape()), " but needs [", out_channels, "]");
    }
    params_.batch = input->dim(0);
    params_.in_channels = in_channels;
    params_.in_h = input->dim(2);
    params_.in_w = input->dim(3);
    params_.out_channels = out_channels;
    params_.kernel_h = filter->dim(2);
    params_.kernel_w = filter->dim(3);
    params_.stride_h = window_.stride_h;
    params_.stride_w = window_.stride_w;
    params_.dilation_h = window_.dilation_h;
    params_.dilation_w = window_.dilation_w;
    const int64_t full_h = FullSize(params_.in_h, params_.kernel_h, window_.stride_h,
                                    window_.dilation_h, output_padding_h_);
    const int64_t full_w = FullSize(params_.in_w, params_.kernel_w, window_.stride_w,
                                    window_.dilation_w, output_padding_w_);
    ComputeDim(params_.in_h, window_.stride_h, full_h, window_.pad_top, window_.pad_bottom,
               &params_.pad_top, &params_.out_h);
    ComputeDim(params_.in_w, window_.stride_w, full_w, window_.pad_left, window_.pad_right,
               &params_.pad_left, &params_.out_w);
    OP_CHECK(params_.out_h > 0 && params_.out_w > 0, "pads [", window_.pad_top, ",",
             window_.pad_left, ",", window_.pad_bottom, ",", window_.pad_right,
             "] crop away the whole ", full_h, "x", full_w, " output");
    Output(0)->Reshape({params_.batch, out_channels, params_.out_h, params_.out_w});
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const Tensor* bias = Bias();
    ref::Deconv2D(params_, Input(0)->data<float>(), Input(1)->data<float>(),
                  bias != nullptr ? bias->data<float>() : nullptr,
                  Output(0)->mutable_data<float>());
    return MaceStatus();
  }

  int64_t Macs() const override {
    return params_.batch * params_.in_channels * params_.in_h * params_.in_w *
           (params_.out_channels / params_.group) * params_.kernel_h * params_.kernel_w;
  }

 private:
  const Tensor* Bias() const { return InputSize() > 2 ? Input(2) : nullptr; }

  // The uncropped output length of one dimension.
  static int64_t FullSize(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                          int64_t output_padding) {
    return (in - 1) * stride + dilation * (kernel - 1) + 1 + output_padding;
  }

  // Leading crop and output length of one dimension whose uncropped output
  // is `full` long.
  void ComputeDim(int64_t in, int64_t stride, int64_t full, int64_t explicit_begin,
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

  WindowArgs window_;
  int64_t output_padding_h_ = 0, output_padding_w_ = 0;
  ref::Deconv2DParams params_;
};

}  // namespace

MaceStatus RegisterDeconv2D(OpRegistry* registry) {
  return RegisterOp<Deconv2DOp>(registry, "Deconv2D", DeviceType::CPU, DT_FLOAT);
}

}  // namespace ops
}  // namespace mace
