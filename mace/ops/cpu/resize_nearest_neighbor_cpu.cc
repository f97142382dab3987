// ResizeNearestNeighbor's CPU kernel: the reference one (mace/ops/ref/resize_nearest_neighbor.h).
#include "mace/ops/cpu/resize_nearest_neighbor_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/resize_nearest_neighbor.h"
#include "mace/ops/resize_nearest_neighbor.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewResizeNearestNeighborCpu() {
  return std::make_unique<
      RuntimeInputsRefKernelCpu<ResizeNearestNeighborBase, ref::ResizeNearestNeighbor>>();
}

}  // namespace ops
}  // namespace mace
