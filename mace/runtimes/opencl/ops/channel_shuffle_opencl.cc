// ChannelShuffle on the OpenCL runtime.
#include "mace/ops/channel_shuffle.h"
#include "mace/runtimes/opencl/ops/kernels.h"
#include "mace/runtimes/opencl/ops/remap.h"

namespace mace {
namespace opencl {
namespace {

class ChannelShuffleOpenCL : public RemapOp<ops::ChannelShuffleBase> {
 protected:
  RemapArgs ArgsFor(int /*output*/) const override {
    RemapArgs args;
    args.mode = RemapMode::kChannelShuffle;
    args.a = Int4(params().group, 0, 0, 0);
    return args;
  }
};

}  // namespace

MaceStatus RegisterChannelShuffleOpenCL(OpRegistry* registry) {
  return RegisterOp<ChannelShuffleOpenCL>(registry, "ChannelShuffle", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
