// ChannelShuffle on the OpenCL runtime.
#include "mace/ops/channel_shuffle.h"
#include "mace/ops/opencl/kernels.h"
#include "mace/ops/opencl/remap.h"

namespace mace {
namespace opencl {
namespace {

// With N > 1 outputs (a fused Split), output i holds shuffled channels
// [i * C / N, (i + 1) * C / N).
class ChannelShuffleOpenCL : public RemapOp<ops::ChannelShuffleBase> {
 protected:
  bool SplitsOutput() const override { return true; }
  RemapArgs ArgsFor(int output) const override {
    RemapArgs args;
    args.mode = RemapMode::kChannelShuffle;
    args.a = Int4(params().group, output * (params().channels / OutputSize()), 0, 0);
    return args;
  }
};

}  // namespace

MaceStatus RegisterChannelShuffleOpenCL(OpRegistry* registry) {
  return RegisterOp<ChannelShuffleOpenCL>(registry, "ChannelShuffle", DeviceType::GPU, DT_FLOAT);
}

}  // namespace opencl
}  // namespace mace
