// DepthwiseConv2d on the OpenCL runtime: activation images in and out, the
// filter ([multiplier, channels, kh, kw]) and bias converted to images once,
// at Prepare; any window, stride, dilation, padding and multiplier, with
// fused bias and activation. The arguments and shapes are checked as the
// CPU op checks them.
#include <algorithm>
#include <memory>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/conv_geometry.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/runtimes/opencl/ops/image_kernel.h"
#include "mace/runtimes/opencl/ops/kernels.h"

namespace mace {
namespace opencl {
namespace {

// Keeps index arithmetic far from int overflow, as the CPU op does.
constexpr int64_t kMaxWindowArg = int64_t{1} << 20;

class DepthwiseConv2dOpenCL : public ImageKernel<Operation> {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() >= 2 && InputSize() <= 3 && OutputSize() == 1,
             "needs inputs [input, filter, optional bias] and one output, got ", InputSize(),
             " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr && Input(1) != nullptr, "input or filter is missing");
    MACE_RETURN_IF_ERROR(ops::ParseWindowArgs(*this, &window_));
    OP_CHECK(std::max({window_.stride_h, window_.stride_w, window_.dilation_h, window_.dilation_w,
                       window_.pad_top, window_.pad_left, window_.pad_bottom, window_.pad_right}) <=
                 kMaxWindowArg,
             "strides, dilations and pads must not exceed ", kMaxWindowArg);
    MACE_RETURN_IF_ERROR(ops::ParseActivation(*this, /*allow_prelu=*/false, &activation_));
    OP_CHECK(Input(1)->is_weight() && (Bias() == nullptr || Bias()->is_weight()),
             "the GPU kernel needs a constant filter and bias");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    const Tensor* filter = Input(1);
    for (const Tensor* tensor : {input, filter, Bias()}) {
      if (tensor == nullptr) continue;
      OP_CHECK(tensor->dtype() == DT_FLOAT, "'", tensor->name(), "' must be float32");
      for (int64_t d : tensor->shape()) {
        OP_CHECK(d > 0 && d < (int64_t{1} << 31), "'", tensor->name(), "' has shape ",
                 ShapeToString(tensor->shape()), " with a dimension out of range");
      }
    }
    OP_CHECK(input->dim_size() == 4, "input has shape ", ShapeToString(input->shape()),
             " but needs rank 4 (NCHW)");
    OP_CHECK(filter->dim_size() == 4 && filter->dim(1) == input->dim(1), "filter has shape ",
             ShapeToString(filter->shape()), " but needs [multiplier, ", input->dim(1),
             ", kh, kw]");
    const int64_t out_channels = input->dim(1) * filter->dim(0);
    if (Bias() != nullptr) {
      OP_CHECK(Bias()->dim_size() == 1 && Bias()->dim(0) == out_channels, "bias has shape ",
               ShapeToString(Bias()->shape()), " but needs [", out_channels, "]");
    }
    MACE_RETURN_IF_ERROR(ops::ComputeWindow(*this, window_, input->dim(2), input->dim(3),
                                            filter->dim(2), filter->dim(3), &geometry_));
    Output(0)->Reshape({input->dim(0), out_channels, geometry_.out_h, geometry_.out_w});
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (filter_ == nullptr) {
      MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kDepthwiseFilter, *filter, &filter_));
      if (Bias() != nullptr) {
        MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kArgument, *Bias(), &bias_));
      }
    }
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "depthwise_conv2d"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    const Tensor* filter = Input(1);
    const Tensor* output = Output(0);
    cl_mem in = nullptr, out = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*input, &in));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*output, &out));
    const cl_mem weights = static_cast<cl_mem>(filter_->device_handle());
    // Without a bias the kernel never reads its bias argument.
    const cl_mem bias = bias_ != nullptr ? static_cast<cl_mem>(bias_->device_handle()) : weights;
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    const int64_t image_width = (output->dim(1) + 3) / 4 * geometry_.out_w;
    const int64_t rows = output->dim(0) * geometry_.out_h;
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        in, weights, bias, static_cast<cl_int>(bias_ != nullptr), out, i32(input->dim(2)),
        i32(input->dim(3)), i32(geometry_.out_h), i32(geometry_.out_w), i32(output->dim(1)),
        i32(filter->dim(0)), i32(image_width), i32(rows), i32(filter->dim(2)),
        i32(filter->dim(3)), i32(window_.stride_h), i32(window_.stride_w),
        i32(window_.dilation_h), i32(window_.dilation_w), i32(geometry_.pad_top),
        i32(geometry_.pad_left), static_cast<cl_int>(activation_.type),
        static_cast<cl_float>(activation_.max_limit), static_cast<cl_float>(activation_.alpha),
        static_cast<cl_float>(activation_.beta)));
    return kernel_.Run2D(image_width, rows);
  }

  int64_t Macs() const override {
    const Tensor* output = Output(0);
    return output->size() * Input(1)->dim(2) * Input(1)->dim(3);
  }

 private:
  const Tensor* Bias() const { return InputSize() > 2 ? Input(2) : nullptr; }

  ops::WindowArgs window_;
  ops::WindowGeometry geometry_;
  ops::Activation activation_;
  std::unique_ptr<Memory> filter_;
  std::unique_ptr<Memory> bias_;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterDepthwiseConv2dOpenCL(OpRegistry* registry) {
  return RegisterOp<DepthwiseConv2dOpenCL>(registry, "DepthwiseConv2d", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
