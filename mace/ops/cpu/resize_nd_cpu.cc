// Resize's CPU kernel: the reference one (mace/ops/ref/resize_nd.h).
#include "mace/ops/cpu/resize_nd_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/resize_nd.h"
#include "mace/ops/resize_nd.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewResizeCpu() {
  return std::make_unique<RuntimeInputsRefKernelCpu<ResizeBase, ref::Resize>>();
}

}  // namespace ops
}  // namespace mace
