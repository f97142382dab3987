// BatchNorm on the OpenCL runtime: the statistics folded on the host into
// one scale and offset per channel (the folded form as given), then the
// channel-affine kernel with the fused activation.
#include <cmath>
#include <vector>

#include "mace/ops/batch_norm.h"
#include "mace/runtimes/opencl/ops/channel_affine.h"
#include "mace/runtimes/opencl/ops/image_kernel.h"
#include "mace/runtimes/opencl/ops/kernels.h"
#include "mace/runtimes/opencl/ops/remap.h"

namespace mace {
namespace opencl {
namespace {

class BatchNormOpenCL : public ImageKernel<ops::BatchNormBase> {
 public:
  // OpenCL 1.2 leaves reading and writing one image in a kernel undefined.
  int InPlaceInput() const override { return -1; }

  MaceStatus Init() override {
    MACE_RETURN_IF_ERROR(BatchNormBase::Init());
    for (int i = 1; i < InputSize(); ++i) {
      OP_CHECK(Input(i)->is_weight(), "the GPU kernel needs constant scale, offset, mean and var");
    }
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    MACE_RETURN_IF_ERROR(CheckImageTensors(*this));
    const int64_t channels = params().channels;
    const float* scale = Input(1)->data<float>();
    const float* offset = Input(2)->data<float>();
    std::vector<float> folded_scale(scale, scale + channels);
    std::vector<float> folded_offset(offset, offset + channels);
    if (!folded()) {
      const float* mean = Input(3)->data<float>();
      const float* var = Input(4)->data<float>();
      for (int64_t c = 0; c < channels; ++c) {
        folded_scale[c] = static_cast<float>(scale[c] / std::sqrt(static_cast<double>(var[c]) +
                                                                  params().epsilon));
        folded_offset[c] = offset[c] - mean[c] * folded_scale[c];
      }
    }
    return affine_.Prepare(runtime(), name(), folded_scale, folded_offset);
  }

  MaceStatus Run(OpContext* /*context*/) override {
    return affine_.Run(*Input(0), *Output(0), params().activation);
  }

 private:
  ChannelAffine affine_;
};

}  // namespace

MaceStatus RegisterBatchNormOpenCL(OpRegistry* registry) {
  return RegisterOp<BatchNormOpenCL>(registry, "BatchNorm", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
