// DepthToSpace's CPU kernel: the reference one (mace/ops/ref/depth_to_space.h).
#include "mace/ops/cpu/depth_to_space_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/depth_to_space.h"
#include "mace/ops/ref/depth_to_space.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewDepthToSpaceCpu() {
  return std::make_unique<RefKernelCpu<DepthToSpaceBase, ref::DepthToSpace>>();
}

}  // namespace ops
}  // namespace mace
