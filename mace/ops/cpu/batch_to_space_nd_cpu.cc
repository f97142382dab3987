// BatchToSpaceND's CPU kernel: the reference one (mace/ops/ref/batch_to_space_nd.h).
#include "mace/ops/cpu/batch_to_space_nd_cpu.h"

#include <memory>

#include "mace/ops/batch_to_space_nd.h"
#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/batch_to_space_nd.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewBatchToSpaceNDCpu() {
  return std::make_unique<RefKernelCpu<BatchToSpaceNDBase, ref::BatchToSpaceND>>();
}

}  // namespace ops
}  // namespace mace
