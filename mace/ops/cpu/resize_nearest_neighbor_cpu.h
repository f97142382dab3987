// The CPU kernel of ResizeNearestNeighbor (mace/ops/resize_nearest_neighbor.h).
#ifndef MACE_OPS_CPU_RESIZE_NEAREST_NEIGHBOR_CPU_H_
#define MACE_OPS_CPU_RESIZE_NEAREST_NEIGHBOR_CPU_H_

#include <memory>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewResizeNearestNeighborCpu();

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_RESIZE_NEAREST_NEIGHBOR_CPU_H_
