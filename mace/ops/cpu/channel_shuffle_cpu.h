// The CPU kernel of ChannelShuffle (mace/ops/channel_shuffle.h).
#ifndef MACE_OPS_CPU_CHANNEL_SHUFFLE_CPU_H_
#define MACE_OPS_CPU_CHANNEL_SHUFFLE_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewChannelShuffleCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CHANNEL_SHUFFLE_CPU_H_
