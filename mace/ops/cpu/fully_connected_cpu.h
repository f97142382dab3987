// The CPU kernel of FullyConnected (mace/ops/fully_connected.h).
#ifndef MACE_OPS_CPU_FULLY_CONNECTED_CPU_H_
#define MACE_OPS_CPU_FULLY_CONNECTED_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewFullyConnectedCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_FULLY_CONNECTED_CPU_H_
