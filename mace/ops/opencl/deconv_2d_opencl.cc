// Deconv2D on the OpenCL runtime: any window, stride, dilation, padding
// and output padding, fused bias and activation. The filter is transposed
// to [O, I, KH, KW] and uploaded once as a Conv2D filter. Grouped
// deconvolutions are declined and run on the CPU.
#include <memory>
#include <vector>

#include "mace/ops/deconv_2d.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class Deconv2DOpenCL : public ImageKernel<ops::Deconv2DBase> {
 public:
  MaceStatus Accepts() const override {
    if (params().group != 1) return Refuse("no grouped deconvolution");
    return ImageKernel::Accepts();
  }

  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    MACE_RETURN_IF_ERROR(CheckImageTensors(*this));
    const ops::ref::Deconv2DParams& p = params();
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (filter_ == nullptr) {
      // [I, O, KH, KW] to [O, I, KH, KW].
      const float* filter = Input(1)->data<float>();
      const int64_t window = p.kernel_h * p.kernel_w;
      std::vector<float> transposed(static_cast<size_t>(p.out_channels * p.in_channels * window));
      for (int64_t i = 0; i < p.in_channels; ++i) {
        for (int64_t o = 0; o < p.out_channels; ++o) {
          for (int64_t k = 0; k < window; ++k) {
            transposed[(o * p.in_channels + i) * window + k] =
                filter[(i * p.out_channels + o) * window + k];
          }
        }
      }
      MACE_RETURN_IF_ERROR(UploadWeightAs(runtime, ImageKind::kConv2DFilter, Input(1)->name(),
                                          {p.out_channels, p.in_channels, p.kernel_h, p.kernel_w},
                                          transposed.data(), &filter_));
      if (Bias() != nullptr) {
        MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kArgument, *Bias(), &bias_));
      }
    }
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "deconv2d"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::Deconv2DParams& p = params();
    cl_mem input = nullptr, output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &input));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    const cl_mem filter = static_cast<cl_mem>(filter_->device_handle());
    // Without a bias the kernel never reads its bias argument.
    const cl_mem bias = bias_ != nullptr ? static_cast<cl_mem>(bias_->device_handle()) : filter;
    const int64_t out_blocks = (p.out_channels + 3) / 4;
    const int64_t rows = p.batch * p.out_h;
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        input, filter, bias, static_cast<cl_int>(bias_ != nullptr), output, i32(p.in_h),
        i32(p.in_w), i32((p.in_channels + 3) / 4), i32(p.out_h), i32(p.out_w),
        i32(p.out_channels), i32(out_blocks), i32(rows), i32(p.kernel_h), i32(p.kernel_w),
        i32(p.stride_h), i32(p.stride_w), i32(p.dilation_h), i32(p.dilation_w), i32(p.pad_top),
        i32(p.pad_left), static_cast<cl_int>(p.activation.type),
        static_cast<cl_float>(p.activation.max_limit), static_cast<cl_float>(p.activation.alpha),
        static_cast<cl_float>(p.activation.beta)));
    return kernel_.Run2D(out_blocks * p.out_w, rows);
  }

 private:
  std::unique_ptr<Memory> filter_;
  std::unique_ptr<Memory> bias_;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterDeconv2DOpenCL(OpRegistry* registry) {
  return RegisterOp<Deconv2DOpenCL>(registry, "Deconv2D", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
