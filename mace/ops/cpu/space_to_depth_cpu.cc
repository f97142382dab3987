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

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewSpaceToDepthUint8Cpu() {
  return std::make_unique<
      KeepQuantizationCpu<RefKernelCpu<SpaceToDepthBase, ref::SpaceToDepthUint8>>>();
}

}  // namespace ops
}  // namespace mace
