// SpaceToDepth's CPU kernel: the reference one (mace/ops/ref/space_to_depth.h).
#include "mace/ops/cpu/space_to_depth_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/space_to_depth.h"
#include "mace/ops/space_to_depth.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSpaceToDepthCpu() {
  return std::make_unique<RefKernelCpu<SpaceToDepthBase, ref::SpaceToDepth>>();
}

}  // namespace ops
}  // namespace mace
