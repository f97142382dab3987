// FullyConnected on the OpenCL runtime, as the convolution it is: the
// input [N, C, H, W] (or [N, F] as [N, F, 1, 1]) convolved with the weight
// viewed as an OIHW filter [O, C, H, W], no padding, giving [N, O, 1, 1],
// which is also the image of an [N, O] output. Runs conv_2d.cl's kernel.
#include <memory>

#include "mace/ops/fully_connected.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/runtimes/opencl/ops/image_kernel.h"
#include "mace/runtimes/opencl/ops/kernels.h"

namespace mace {
namespace opencl {
namespace {

class FullyConnectedOpenCL : public ImageKernel<ops::FullyConnectedBase> {
 public:
  MaceStatus Init() override {
    MACE_RETURN_IF_ERROR(FullyConnectedBase::Init());
    OP_CHECK(Input(1)->is_weight() && (Bias() == nullptr || Bias()->is_weight()),
             "the GPU kernel needs a constant weight and bias");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    dims_ = ActivationDims(Input(0)->shape());
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (weight_ == nullptr) {
      const std::vector<int64_t> filter = {params().out_features, dims_[1], dims_[2], dims_[3]};
      MACE_RETURN_IF_ERROR(
          runtime->UploadWeightAs(ImageKind::kConv2DFilter, *Input(1), filter, &weight_));
      if (Bias() != nullptr) {
        MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kArgument, *Bias(), &bias_));
      }
    }
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "conv2d"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::FullyConnectedParams& p = params();
    cl_mem input = nullptr, output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &input));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    const cl_mem weight = static_cast<cl_mem>(weight_->device_handle());
    // Without a bias the kernel never reads its bias argument.
    const cl_mem bias = bias_ != nullptr ? static_cast<cl_mem>(bias_->device_handle()) : weight;
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    const int64_t out_blocks = (p.out_features + 3) / 4;
    const cl_int one = 1, zero = 0;
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        input, weight, bias, static_cast<cl_int>(bias_ != nullptr), output, i32(dims_[2]),
        i32(dims_[3]), i32((dims_[1] + 3) / 4), one, one, i32(p.out_features), one,
        i32(out_blocks), i32(p.batch), i32(dims_[2]), i32(dims_[3]), one, one, one, one, zero,
        zero, static_cast<cl_int>(p.activation.type), static_cast<cl_float>(p.activation.max_limit),
        static_cast<cl_float>(p.activation.alpha), static_cast<cl_float>(p.activation.beta)));
    return kernel_.Run2D(out_blocks, p.batch);
  }

 private:
  std::vector<int64_t> dims_;
  std::unique_ptr<Memory> weight_;
  std::unique_ptr<Memory> bias_;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterFullyConnectedOpenCL(OpRegistry* registry) {
  return RegisterOp<FullyConnectedOpenCL>(registry, "FullyConnected", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
