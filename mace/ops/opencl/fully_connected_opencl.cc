// FullyConnected on the OpenCL runtime: rank-2 or rank-4 inputs, the
// weight uploaded once as an activation image [ceil(C/4) * H * W, O]
// (cl/fully_connected.cl), fused bias and activation.
#include <memory>
#include <vector>

#include "mace/ops/fully_connected.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class FullyConnectedOpenCL : public ImageKernel<ops::FullyConnectedBase> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    MACE_RETURN_IF_ERROR(CheckImageTensors(*this));
    const std::vector<int64_t> dims = ActivationDims(Input(0)->shape());
    in_h_ = dims[2];
    in_w_ = dims[3];
    in_blocks_ = (dims[1] + 3) / 4;
    if (weight_ == nullptr) {
      // [O, C * H * W] seen as [O, C, 1, H * W]: the same elements in order.
      MACE_RETURN_IF_ERROR(UploadWeightAs(runtime(), ImageKind::kActivation, Input(1)->name(),
                                          {params().out_features, dims[1], 1, in_h_ * in_w_},
                                          Input(1)->data<float>(), &weight_));
      if (Bias() != nullptr) {
        MACE_RETURN_IF_ERROR(
            AsOpenCL(runtime())->UploadWeight(ImageKind::kArgument, *Bias(), &bias_));
      }
    }
    if (!kernel_.created()) {
      MACE_RETURN_IF_ERROR(kernel_.Create(AsOpenCL(runtime()), "fully_connected"));
    }
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
    const cl_int has_bias = bias_ != nullptr;
    const int64_t out_blocks = (p.out_features + 3) / 4;
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        input, weight, bias, has_bias, output, i32(in_blocks_), i32(in_h_), i32(in_w_),
        i32(out_blocks), i32(p.out_features), i32(p.batch),
        static_cast<cl_int>(p.activation.type), static_cast<cl_float>(p.activation.max_limit),
        static_cast<cl_float>(p.activation.alpha), static_cast<cl_float>(p.activation.beta)));
    // Multiply-adds per work-item: 4 outputs x every input element.
    return kernel_.Run2D(out_blocks, p.batch, 16.0 * in_blocks_ * in_h_ * in_w_);
  }

 private:
  int64_t in_h_ = 1, in_w_ = 1, in_blocks_ = 1;
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
