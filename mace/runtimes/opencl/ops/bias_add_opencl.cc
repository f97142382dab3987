// BiasAdd on the OpenCL runtime: the channel-affine kernel with the bias
// as offset and the fused activation.
#include <vector>

#include "mace/ops/bias_add.h"
#include "mace/runtimes/opencl/ops/channel_affine.h"
#include "mace/runtimes/opencl/ops/image_kernel.h"
#include "mace/runtimes/opencl/ops/kernels.h"
#include "mace/runtimes/opencl/ops/remap.h"

namespace mace {
namespace opencl {
namespace {

class BiasAddOpenCL : public ImageKernel<ops::BiasAddBase> {
 public:
  // OpenCL 1.2 leaves reading and writing one image in a kernel undefined.
  int InPlaceInput() const override { return -1; }

  MaceStatus Init() override {
    MACE_RETURN_IF_ERROR(BiasAddBase::Init());
    OP_CHECK(Input(1)->is_weight(), "the GPU kernel needs a constant bias");
    return MaceStatus();
  }

  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    MACE_RETURN_IF_ERROR(CheckImageTensors(*this));
    const float* bias = Input(1)->data<float>();
    return affine_.Prepare(runtime(), name(), {},
                           std::vector<float>(bias, bias + params().channels));
  }

  MaceStatus Run(OpContext* /*context*/) override {
    return affine_.Run(*Input(0), *Output(0), params().activation);
  }

 private:
  ChannelAffine affine_;
};

}  // namespace

MaceStatus RegisterBiasAddOpenCL(OpRegistry* registry) {
  return RegisterOp<BiasAddOpenCL>(registry, "BiasAdd", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
