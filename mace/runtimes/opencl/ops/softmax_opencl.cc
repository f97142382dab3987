// Softmax on the OpenCL runtime, along any axis of a tensor of rank 1 to 4
// (the image's N, C, H or W), log-softmax included.
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/runtimes/opencl/ops/image_kernel.h"
#include "mace/runtimes/opencl/ops/kernels.h"

namespace mace {
namespace opencl {
namespace {

class SoftmaxOpenCL : public ImageKernel<Operation> {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    OP_CHECK(Input(0) != nullptr, "input is missing");
    axis_ = GetInt("axis", -1);
    use_log_ = GetInt("use_log", 0);
    OP_CHECK(use_log_ == 0 || use_log_ == 1, "use_log must be 0 or 1, got ", use_log_);
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    OP_CHECK(input->dtype() == DT_FLOAT, "input must be float32");
    const int64_t rank = input->dim_size();
    OP_CHECK(rank >= 1 && rank <= 4, "input has shape ", ShapeToString(input->shape()),
             " but the GPU kernel needs rank 1 to 4");
    OP_CHECK(axis_ >= -rank && axis_ < rank, "axis ", axis_, " is out of range for input shape ",
             ShapeToString(input->shape()), " (rank ", rank, ")");
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    // The image's axis: rank 1 [C] is stored as [1, C, 1, 1]; ranks 2 and 3
    // keep their leading axes.
    image_axis_ = rank == 1 ? 1 : axis;
    Output(0)->Reshape(input->shape());
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "softmax"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const std::vector<int64_t> dims = ActivationDims(Input(0)->shape());
    ImageShape image;
    MACE_RETURN_IF_ERROR(ImageShapeFor(ImageKind::kActivation, Input(0)->shape(), &image));
    cl_mem input = nullptr, output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(0), &input));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(input, output, i32(image.width), i32(image.height),
                                         i32(dims[0]), i32(dims[1]), i32(dims[2]), i32(dims[3]),
                                         i32(image_axis_), i32(use_log_)));
    return kernel_.Run2D(image.width, image.height);
  }

 private:
  int64_t axis_ = -1;
  int64_t use_log_ = 0;
  int64_t image_axis_ = 1;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterSoftmaxOpenCL(OpRegistry* registry) {
  return RegisterOp<SoftmaxOpenCL>(registry, "Softmax", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
