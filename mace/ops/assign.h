// Assign: writes a new value into a state tensor of the model
// (NetDef.state_tensors, docs/how-to/streaming_state.md), which keeps it
// until the next Run's Assign or MaceEngine::ResetState. Inputs: the state
// tensor and the value, of the same type and shape; no outputs. Ops that
// read the state after it in graph order see the new value.
#ifndef MACE_OPS_ASSIGN_H_
#define MACE_OPS_ASSIGN_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewAssignCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ASSIGN_H_
