// SpaceToBatchND's CPU kernel: the reference one (mace/ops/ref/space_to_batch_nd.h).
#include "mace/ops/cpu/space_to_batch_nd_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/space_to_batch_nd.h"
#include "mace/ops/space_to_batch_nd.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSpaceToBatchNDCpu() {
  return std::make_unique<RefKernelCpu<SpaceToBatchNDBase, ref::SpaceToBatchND>>();
}

}  // namespace ops
}  // namespace mace
