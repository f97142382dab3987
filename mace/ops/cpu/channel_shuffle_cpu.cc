// ChannelShuffle's CPU kernel: the reference one (mace/ops/ref/channel_shuffle.h).
#include "mace/ops/cpu/channel_shuffle_cpu.h"

#include <memory>

#include "mace/ops/channel_shuffle.h"
#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/channel_shuffle.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewChannelShuffleCpu() {
  return std::make_unique<RefKernelCpu<ChannelShuffleBase, ref::ChannelShuffle>>();
}

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewChannelShuffleUint8Cpu() {
  return std::make_unique<
      KeepQuantizationCpu<RefKernelCpu<ChannelShuffleBase, ref::ChannelShuffleUint8>>>();
}

}  // namespace ops
}  // namespace mace
