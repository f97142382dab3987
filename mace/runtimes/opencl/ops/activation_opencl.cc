// Activation on the OpenCL runtime: every kind, PRELU with a constant
// slope tensor (uploaded once, as a 1-D argument image).
#include <memory>

#include "mace/ops/common/activation.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/runtimes/opencl/ops/image_kernel.h"
#include "mace/runtimes/opencl/ops/kernels.h"

namespace mace {
namespace opencl {
namespace {

class ActivationOpenCL : public ImageKernel<Operation> {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() >= 1 && InputSize() <= 2 && OutputSize() == 1,
             "needs inputs [input, alpha for PRELU] and one output, got ", InputSize(),
             " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    MACE_RETURN_IF_ERROR(ops::ParseActivation(*this, /*allow_prelu=*/true, &activation_));
    const bool prelu = activation_.type == ops::ActivationType::PRELU;
    OP_CHECK(prelu == (InputSize() == 2), prelu ? "PRELU needs the slope tensor alpha as input 1"
                                                : "only PRELU takes a second input");
    OP_CHECK(!prelu || Input(1)->is_weight(), "the GPU kernel needs a constant PRELU slope");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input is ", DataTypeName(input->dtype()),
             " but must be float32");
    const std::vector<int64_t> dims = ActivationDims(input->shape());
    OP_CHECK(!dims.empty(), "input has shape ", ShapeToString(input->shape()),
             ", more than 4 dimensions");
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (InputSize() == 2 && alpha_ == nullptr) {
      OP_CHECK(input->dim_size() >= 2 && Input(1)->shape() == std::vector<int64_t>{dims[1]},
               "alpha has shape ", ShapeToString(Input(1)->shape()), " but needs [", dims[1],
               "]");
      MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kArgument, *Input(1), &alpha_));
    }
    Output(0)->Reshape(input->shape());
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
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        input, alpha, output, static_cast<cl_int>(image.width), static_cast<cl_int>(image.height),
        static_cast<cl_int>(dims[3]), static_cast<cl_int>(dims[1]),
        static_cast<cl_int>(activation_.type), static_cast<cl_float>(activation_.max_limit),
        static_cast<cl_float>(activation_.alpha), static_cast<cl_float>(activation_.beta)));
    return kernel_.Run2D(image.width, image.height);
  }

 private:
  ops::Activation activation_;
  std::unique_ptr<Memory> alpha_;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterActivationOpenCL(OpRegistry* registry) {
  return RegisterOp<ActivationOpenCL>(registry, "Activation", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
