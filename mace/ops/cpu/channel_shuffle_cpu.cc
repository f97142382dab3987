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

}  // namespace ops
}  // namespace mace
