// MatMul on the OpenCL runtime: operands of rank 2 to 4 in activation
// images (constant operands uploaded once), transposes, broadcast batch
// dimensions and an optional constant bias.
#include <memory>
#include <vector>

#include "mace/ops/mat_mul.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

class MatMulOpenCL : public ImageKernel<ops::MatMulBase> {
 public:
  Storage InputStorage(int index) const override {
    return index <= 1 ? ImageStorage(ImageKind::kActivation) : Operation::InputStorage(index);
  }

  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    OP_CHECK(Input(0)->dim_size() <= 4 && Input(1)->dim_size() <= 4,
             "the GPU kernel needs operands of rank 4 or less");
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    for (int i = 0; i < 2; ++i) {
      if (Input(i)->is_weight() && constant_[i] == nullptr) {
        MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kActivation, *Input(i), &constant_[i]));
      }
    }
    if (Bias() != nullptr && bias_ == nullptr) {
      MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kArgument, *Bias(), &bias_));
    }
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "mat_mul"));
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    const ops::ref::MatMulParams& p = params();
    cl_mem operands[2] = {nullptr, nullptr};
    for (int i = 0; i < 2; ++i) {
      if (constant_[i] != nullptr) {
        operands[i] = static_cast<cl_mem>(constant_[i]->device_handle());
      } else {
        MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Input(i), &operands[i]));
      }
    }
    cl_mem output = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*Output(0), &output));
    // Without a bias the kernel never reads its bias argument.
    const cl_mem bias = bias_ != nullptr ? static_cast<cl_mem>(bias_->device_handle()) : output;
    // The batch shape and strides, padded in front to two dimensions.
    std::vector<int64_t> batch = p.batch_shape, a_strides = p.a_batch_strides,
                         b_strides = p.b_batch_strides;
    while (batch.size() < 2) {
      batch.insert(batch.begin(), 1);
      a_strides.insert(a_strides.begin(), 0);
      b_strides.insert(b_strides.begin(), 0);
    }
    cl_int2 batch2;
    batch2.s[0] = static_cast<cl_int>(batch[0]);
    batch2.s[1] = static_cast<cl_int>(batch[1]);
    auto i32 = [](int64_t value) { return static_cast<cl_int>(value); };
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        operands[0], operands[1], bias, static_cast<cl_int>(bias_ != nullptr), output,
        Dims4(Input(0)->shape()), Dims4(Input(1)->shape()), Dims4(Output(0)->shape()), i32(p.m),
        i32(p.k), i32(p.n), static_cast<cl_int>(p.transpose_a), static_cast<cl_int>(p.transpose_b),
        batch2, Int4(a_strides[0], a_strides[1], b_strides[0], b_strides[1])));
    // Each work-item computes 4 outputs of k multiply-adds.
    return RunOverOutput(*this, &kernel_, 4.0 * p.k);
  }

 private:
  std::unique_ptr<Memory> constant_[2];
  std::unique_ptr<Memory> bias_;
  Kernel kernel_;
};

}  // namespace

MaceStatus RegisterMatMulOpenCL(OpRegistry* registry) {
  return RegisterOp<MatMulOpenCL>(registry, "MatMul", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
