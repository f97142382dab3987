// FullyConnectedWeightInPlace (cpu/fully_connected_weight_layout.h) on
// x86-64: batch-1 FullyConnected reads its weight rows in place.
#include "mace/ops/cpu/fully_connected_weight_layout.h"

namespace mace {
namespace ops {

bool FullyConnectedWeightInPlace() { return true; }

}  // namespace ops
}  // namespace mace
