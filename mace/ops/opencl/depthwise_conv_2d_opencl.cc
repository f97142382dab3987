// DepthwiseConv2d on the OpenCL runtime: activation images in and out, the
// filter ([multiplier, channels, kh, kw]) and bias converted to images once,
// at Prepare; any window, stride, dilation, padding and multiplier, with
// fused bias and activation.
#include <memory>

#include "mace/ops/depthwise_conv_2d.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"

namespace mace {
namespace opencl {
namespace {

class DepthwiseConv2dOpenCL : public ImageKernel<ops::DepthwiseConv2dBase> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (filter_ == nullptr) {
      MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kDepthwiseFilter, *Input(1), &filter_));
      if (Bias() != nullptr) {
        MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kArgument, *Bias(), &bias_));
      }
    }
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "depthwise_conv2d"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::DepthwiseConv2dParams& p = params();
    cl_mem in = nullptr, out = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &in));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &out));
    const cl_mem weights = static_cast<cl_mem>(filter_->device_handle());
    // Without a bias the kernel never reads its bias argument.
    const cl_mem bias = bias_ != nullptr ? static_cast<cl_mem>(bias_->device_handle()) : weights;
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    const int64_t out_channels = p.channels * p.multiplier;
    const int64_t image_width = (out_channels + 3) / 4 * p.out_w;
    const int64_t rows = p.batch * p.out_h;
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        in, weights, bias, static_cast<cl_int>(bias_ != nullptr), out, i32(p.in_h), i32(p.in_w),
        i32(p.out_h), i32(p.out_w), i32(out_channels), i32(p.multiplier), i32(image_width),
        i32(rows), i32(p.kernel_h), i32(p.kernel_w), i32(p.stride_h), i32(p.stride_w),
        i32(p.dilation_h), i32(p.dilation_w), i32(p.pad_top), i32(p.pad_left),
        static_cast<cl_int>(p.activation.type), static_cast<cl_float>(p.activation.max_limit),
        static_cast<cl_float>(p.activation.alpha), static_cast<cl_float>(p.activation.beta)));
    // Multiply-adds per work-item: 4 channels x the window.
    return kernel_.Run2D(image_width, rows, 4.0 * p.kernel_h * p.kernel_w);
  }

 private:
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
