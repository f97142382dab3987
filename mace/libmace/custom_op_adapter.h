// Runs an app's CustomOp inside the engine as an ordinary Operation.
#ifndef MACE_LIBMACE_CUSTOM_OP_ADAPTER_H_
#define MACE_LIBMACE_CUSTOM_OP_ADAPTER_H_

#include <string>

#include "mace/core/op_registry.h"

namespace mace {

// Registers every custom op of `config` for the CPU. Fails if a custom type
// collides with a built-in op.
MaceStatus RegisterCustomOps(const MaceEngineConfig& config, OpRegistry* registry);

}  // namespace mace

#endif  // MACE_LIBMACE_CUSTOM_OP_ADAPTER_H_
