// Conv2D on the OpenCL runtime: activation images in and out, the filter
// and bias converted to images once, at Prepare. A general direct kernel
// (any window, stride, dilation and padding) and one for unpadded 1x1
// filters; both fuse the bias and the activation. 3x3 stride-1 filters
// with enough channels run as Winograd F(2x2, 3x3) (winograd_conv_2d.h).
#include <memory>
#include <string>

#include "mace/ops/conv_2d.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/winograd_conv_2d.h"
#include "mace/utils/logging.h"

namespace mace {
namespace opencl {
namespace {

class Conv2DOpenCL : public ImageKernel<ops::Conv2DBase> {
 public:
  // Grouped convolutions run on the CPU.
  MaceStatus Accepts() const override {
    if (params().group != 1) return Refuse("no grouped convolution");
    return ImageKernel::Accepts();
  }

  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    const ops::ref::Conv2DParams& p = params();
    OP_CHECK(p.batch * p.out_h < (int64_t{1} << 31) && p.in_w * p.in_channels < (int64_t{1} << 31),
             "is too large for the GPU kernel");
    if (Bias() != nullptr && bias_ == nullptr) {
      MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kArgument, *Bias(), &bias_));
    }
    // The converter's `winograd` mark (a tile size, 2 or 4; this kernel
    // has 2) asks for Winograd whatever the channels; the runtime's
    // setting, when not "auto", overrides both.
    std::string policy = runtime->winograd();
    if (policy == "auto" && GetInt("winograd", 0) > 0) policy = "on";
    winograd_ = UseWinograd(p, policy);
    if (winograd_) {
      const MaceStatus status = winograd_conv_.Prepare(runtime, p, *Input(1));
      // A device whose images cannot hold the tiles keeps the direct kernel.
      if (status.code() != MaceStatus::MACE_UNSUPPORTED) return status;
      VLOG(1) << "Conv2D " << name() << ": " << status.information() << "; no Winograd";
      winograd_ = false;
    }
    if (filter_ == nullptr) {
      MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kConv2DFilter, *Input(1), &filter_));
    }
    one_by_one_ = p.kernel_h == 1 && p.kernel_w == 1 && p.pad_top == 0 && p.pad_left == 0;
    if (!kernel_.created()) {
      MACE_RETURN_IF_ERROR(kernel_.Create(runtime, one_by_one_ ? "conv2d_1x1" : "conv2d"));
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::Conv2DParams& p = params();
    cl_mem input = nullptr, output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &input));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    if (winograd_) {
      const cl_mem bias = bias_ != nullptr ? static_cast<cl_mem>(bias_->device_handle()) : input;
      return winograd_conv_.Run(p, input, bias, bias_ != nullptr, output);
    }
    const cl_mem filter = static_cast<cl_mem>(filter_->device_handle());
    // Without a bias the kernel never reads its bias argument.
    const cl_mem bias = bias_ != nullptr ? static_cast<cl_mem>(bias_->device_handle()) : filter;
    const cl_int has_bias = bias_ != nullptr;
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    const int64_t column_blocks = (p.out_w + 3) / 4;
    const int64_t out_blocks = (p.out_channels + 3) / 4;
    const int64_t rows = p.batch * p.out_h;
    const cl_int act = static_cast<cl_int>(p.activation.type);
    const cl_float limit = p.activation.max_limit, alpha = p.activation.alpha,
                   beta = p.activation.beta;
    if (one_by_one_) {
      MACE_RETURN_IF_ERROR(kernel_.SetArgs(
          input, filter, bias, has_bias, output, i32(p.in_h), i32(p.in_w),
          i32((p.in_channels + 3) / 4), i32(p.out_h), i32(p.out_w), i32(p.out_channels),
          i32(column_blocks), i32(out_blocks), i32(rows), i32(p.stride_h), i32(p.stride_w), act,
          limit, alpha, beta));
    } else {
      MACE_RETURN_IF_ERROR(kernel_.SetArgs(
          input, filter, bias, has_bias, output, i32(p.in_h), i32(p.in_w),
          i32((p.in_channels + 3) / 4), i32(p.out_h), i32(p.out_w), i32(p.out_channels),
          i32(column_blocks), i32(out_blocks), i32(rows), i32(p.kernel_h), i32(p.kernel_w),
          i32(p.stride_h), i32(p.stride_w), i32(p.dilation_h), i32(p.dilation_w), i32(p.pad_top),
          i32(p.pad_left), act, limit, alpha, beta));
    }
    // Multiply-adds per work-item: 4 columns x 4 output channels x every
    // input channel of the window.
    const double work = 16.0 * 4 * ((p.in_channels + 3) / 4) * p.kernel_h * p.kernel_w;
    return kernel_.Run2D(column_blocks * out_blocks, rows, work);
  }

 private:
  std::unique_ptr<Memory> filter_;
  std::unique_ptr<Memory> bias_;
  bool one_by_one_ = false;
  bool winograd_ = false;
  Kernel kernel_;
  WinogradConv2D winograd_conv_;
};

}  // namespace

MaceStatus RegisterConv2DOpenCL(OpRegistry* registry) {
  return RegisterOp<Conv2DOpenCL>(registry, "Conv2D", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
