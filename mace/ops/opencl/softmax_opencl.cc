// Softmax on the OpenCL runtime, along any axis of a tensor of rank 1 to 4
// (the image's N, C, H or W), log-softmax included.
#include "mace/ops/softmax.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"

namespace mace {
namespace opencl {
namespace {

// The axis of `shape` that splits it into params' [outer, axis, inner].
// Where dimensions of 1 make several fit, all give the same softmax.
int64_t SplitAxis(const std::vector<int64_t>& shape, const ops::ref::SoftmaxParams& params) {
  int64_t outer = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t inner = 1;
    for (size_t e = d + 1; e < shape.size(); ++e) inner *= shape[e];
    if (outer == params.outer && shape[d] == params.axis_size && inner == params.inner) {
      return static_cast<int64_t>(d);
    }
    outer *= shape[d];
  }
  return -1;
}

class SoftmaxOpenCL : public ImageKernel<ops::SoftmaxBase> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const std::vector<int64_t>& shape = Input(0)->shape();
    OP_CHECK(shape.size() <= 4, "the GPU kernel takes tensors of rank 4 or less");
    const int64_t axis = SplitAxis(shape, params());
    OP_CHECK(axis >= 0, "cannot place the softmax axis in ", ShapeToString(shape));
    // The image's axis: rank 1 [C] is stored as [1, C, 1, 1]; ranks 2 and 3
    // keep their leading axes.
    image_axis_ = shape.size() == 1 ? 1 : axis;
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
                                         i32(image_axis_), i32(params().use_log)));
    return kernel_.Run2D(image.width, image.height);
  }

 private:
  int64_t image_axis_ = 1;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterSoftmaxOpenCL(OpRegistry* registry) {
  return RegisterOp<SoftmaxOpenCL>(registry, "Softmax", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
