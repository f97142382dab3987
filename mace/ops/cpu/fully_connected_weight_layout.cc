#include "mace/ops/cpu/fully_connected_weight_layout.h"

namespace mace {
namespace ops {

bool FullyConnectedWeightInPlace() { return false; }

}  // namespace ops
}  // namespace mace
