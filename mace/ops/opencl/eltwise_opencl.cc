// Eltwise on the OpenCL runtime: every type, coeff, the scalar forms and a
// fused activation, with broadcasting between operands of the output's
// rank (constant operands of lower rank are right-aligned when uploaded).
#include <memory>

#include "mace/ops/eltwise.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"

namespace mace {
namespace opencl {
namespace {

class EltwiseOpenCL : public ImageKernel<ops::EltwiseBase> {
 public:
  // Both operands are activation images (constants are uploaded instead).
  Storage InputStorage(int /*index*/) const override {
    return ImageStorage(ImageKind::kActivation);
  }

  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const std::vector<int64_t>& shape = params().shape;
    OP_CHECK(shape.size() <= 4, "the GPU kernel takes tensors of rank 4 or less");
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    for (int i = 0; i < InputSize(); ++i) {
      const Tensor* input = Input(i);
      std::vector<int64_t> aligned = input->shape();
      if (input->is_weight()) {
        aligned.insert(aligned.begin(), shape.size() - aligned.size(), 1);
        if (constants_[i] == nullptr) {
          MACE_RETURN_IF_ERROR(runtime->UploadWeightAs(ImageKind::kActivation, *input, aligned,
                                                       &constants_[i]));
        }
      }
      OP_CHECK(aligned.size() == shape.size(), "the GPU kernel broadcasts '", input->name(),
               "' of shape ", ShapeToString(input->shape()), " only against a tensor of its rank");
      dims_[i] = ActivationDims(aligned);
    }
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "eltwise"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::EltwiseParams& p = params();
    cl_mem operands[2] = {nullptr, nullptr};
    for (int i = 0; i < InputSize(); ++i) {
      if (constants_[i] != nullptr) {
        operands[i] = static_cast<cl_mem>(constants_[i]->device_handle());
      } else {
        MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(i), &operands[i]));
      }
    }
    // One operand: the kernel never reads the second.
    if (operands[1] == nullptr) operands[1] = operands[0];
    cl_mem output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    const std::vector<int64_t> out = ActivationDims(p.shape);
    ImageShape image;
    MACE_RETURN_IF_ERROR(ImageShapeFor(ImageKind::kActivation, p.shape, &image));
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    auto dims4 = [&](const std::vector<int64_t>& d) {
      if (d.empty()) return cl_int4{{1, 1, 1, 1}};
      return cl_int4{{i32(d[0]), i32(d[1]), i32(d[2]), i32(d[3])}};
    };
    const bool scalar_first = has_scalar() && scalar_index() == 0;
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        operands[0], operands[1], output, i32(image.width), i32(image.height), i32(out[1]),
        i32(out[2]), i32(out[3]), dims4(dims_[0]), dims4(dims_[1]),
        static_cast<cl_int>(InputSize() == 2), static_cast<cl_float>(scalar()),
        static_cast<cl_int>(scalar_first), static_cast<cl_int>(p.type),
        static_cast<cl_float>(p.coeff_a), static_cast<cl_float>(p.coeff_b),
        static_cast<cl_int>(p.activation.type), static_cast<cl_float>(p.activation.max_limit),
        static_cast<cl_float>(p.activation.alpha), static_cast<cl_float>(p.activation.beta)));
    return kernel_.Run2D(image.width, image.height);
  }

 private:
  std::unique_ptr<Memory> constants_[2];
  std::vector<int64_t> dims_[2];
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterEltwiseOpenCL(OpRegistry* registry) {
  return RegisterOp<EltwiseOpenCL>(registry, "Eltwise", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
