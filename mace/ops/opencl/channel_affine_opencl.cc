// BatchNorm and BiasAdd on the OpenCL runtime: one kernel computing
// activation(x * scale[c] + offset[c]) over activation images. BatchNorm's
// statistics are folded into scale and offset on the host, in double, at
// Prepare; every per-channel tensor must be a constant.
#include <cmath>
#include <memory>
#include <vector>

#include "mace/ops/batch_norm.h"
#include "mace/ops/bias_add.h"
#include "mace/runtimes/opencl/image_layout.h"
#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/ops/opencl/image_kernel.h"
#include "mace/ops/opencl/kernels.h"

namespace mace {
namespace opencl {
namespace {

// Uploads `values` as a 1-D argument image.
MaceStatus UploadValues(OpenCLRuntime* runtime, const std::string& name,
                        const std::vector<float>& values, std::unique_ptr<Memory>* image) {
  Tensor tensor(name, DT_FLOAT);
  tensor.Reshape({static_cast<int64_t>(values.size())});
  tensor.AllocateOwned();
  std::copy(values.begin(), values.end(), tensor.mutable_data<float>());
  return runtime->UploadWeight(ImageKind::kArgument, tensor, image);
}

// The shared kernel and its scale (optional) and offset images.
class ChannelAffine {
 public:
  MaceStatus Prepare(OpenCLRuntime* runtime) {
    if (!kernel_.created()) MACE_RETURN_IF_ERROR(kernel_.Create(runtime, "channel_affine"));
    return MaceStatus();
  }
  bool uploaded() const { return offset_ != nullptr; }
  std::unique_ptr<Memory>* scale() { return &scale_; }
  std::unique_ptr<Memory>* offset() { return &offset_; }

  MaceStatus Run(const Tensor& input, Tensor* output, const ops::Activation& activation) {
    const std::vector<int64_t> dims = ActivationDims(input.shape());
    ImageShape image;
    MACE_RETURN_IF_ERROR(ImageShapeFor(ImageKind::kActivation, input.shape(), &image));
    cl_mem in = nullptr, out = nullptr;
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(input, &in));
    MACE_RETURN_IF_ERROR(DeviceMemoryOf(*output, &out));
    const cl_mem offset = static_cast<cl_mem>(offset_->device_handle());
    // Without a scale the kernel never reads its scale argument.
    const cl_mem scale = scale_ != nullptr ? static_cast<cl_mem>(scale_->device_handle()) : offset;
    MACE_RETURN_IF_ERROR(kernel_.SetArgs(
        in, scale, offset, static_cast<cl_int>(scale_ != nullptr), out,
        static_cast<cl_int>(image.width), static_cast<cl_int>(image.height),
        static_cast<cl_int>(dims[3]), static_cast<cl_int>(dims[1]),
        static_cast<cl_int>(activation.type), static_cast<cl_float>(activation.max_limit),
        static_cast<cl_float>(activation.alpha), static_cast<cl_float>(activation.beta)));
    return kernel_.Run2D(image.width, image.height);
  }

 private:
  std::unique_ptr<Memory> scale_;
  std::unique_ptr<Memory> offset_;
  Kernel kernel_;
};


class BatchNormOpenCL : public ImageKernel<ops::BatchNormBase> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (!affine_.uploaded()) {
      const int64_t channels = params().channels;
      std::vector<float> scale(channels), offset(channels);
      const float* s = Input(1)->data<float>();
      const float* o = Input(2)->data<float>();
      for (int64_t c = 0; c < channels; ++c) {
        double inv_std = 1.0, center = 0.0;
        if (!folded()) {
          inv_std = 1.0 / std::sqrt(static_cast<double>(Input(4)->data<float>()[c]) +
                                    params().epsilon);
          center = Input(3)->data<float>()[c];
        }
        scale[c] = static_cast<float>(s[c] * inv_std);
        offset[c] = static_cast<float>(o[c] - s[c] * center * inv_std);
      }
      MACE_RETURN_IF_ERROR(UploadValues(runtime, name() + "#scale", scale, affine_.scale()));
      MACE_RETURN_IF_ERROR(UploadValues(runtime, name() + "#offset", offset, affine_.offset()));
    }
    return affine_.Prepare(runtime);
  }

  MaceStatus Run(OpContext* /*context*/) override {
    return affine_.Run(*Input(0), Output(0), params().activation);
  }

 private:
  ChannelAffine affine_;
};

class BiasAddOpenCL : public ImageKernel<ops::BiasAddBase> {
 public:
  MaceStatus PrepareKernel(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    OpenCLRuntime* runtime = AsOpenCL(this->runtime());
    OP_CHECK(runtime != nullptr, "runs on the OpenCL runtime only");
    if (!affine_.uploaded()) {
      MACE_RETURN_IF_ERROR(runtime->UploadWeight(ImageKind::kArgument, *Input(1), affine_.offset()));
    }
    return affine_.Prepare(runtime);
  }

  MaceStatus Run(OpContext* /*context*/) override {
    return affine_.Run(*Input(0), Output(0), params().activation);
  }

 private:
  ChannelAffine affine_;
};

}  // namespace

MaceStatus RegisterBatchNormOpenCL(OpRegistry* registry) {
  return RegisterOp<BatchNormOpenCL>(registry, "BatchNorm", DeviceType::GPU, DT_FLOAT);
}

MaceStatus RegisterBiasAddOpenCL(OpRegistry* registry) {
  return RegisterOp<BiasAddOpenCL>(registry, "BiasAdd", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
