// Activation on the OpenCL runtime: every kind, PRELU with a constant
// slope tensor (uploaded once, as a 1-D argument image).
#include <memory>

#include "mace/ops/activation.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"

namespace mace {
namespace opencl {
namespace {

class ActivationOpenCL : public ImageKernel<ops::ActivationBase> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (Alpha() != nullptr && alpha_ == nullptr) {
      MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kArgument, *Alpha(), &alpha_));
    }
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "activation"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const std::vector<int64_t> dims = ActivationDims(Input(0)->shape());
    ImageShape image;
    MACE_RETURN_IF_ERROR(ImageShapeFor(ImageKind::kActivation, Input(0)->shape(), &image));
    cl_mem input = nullptr, output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &input));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    // Without PRELU the kernel never reads its alpha argument.
    const cl_mem alpha = alpha_ != nullptr ? static_cast<cl_mem>(alpha_->device_handle()) : input;
    const ops::Activation& activation = params().activation;
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        input, alpha, output, static_cast<cl_int>(image.width), static_cast<cl_int>(image.height),
        static_cast<cl_int>(dims[3]), static_cast<cl_int>(dims[1]),
        static_cast<cl_int>(activation.type), static_cast<cl_float>(activation.max_limit),
        static_cast<cl_float>(activation.alpha), static_cast<cl_float>(activation.beta)));
    return kernel_.Run2D(image.width, image.height);
  }

 private:
  std::unique_ptr<Memory> alpha_;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterActivationOpenCL(OpRegistry* registry) {
  return RegisterOp<ActivationOpenCL>(registry, "Activation", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
