// Transpose's CPU kernel: the reference one (mace/ops/ref/transpose.h).
#include "mace/ops/cpu/transpose_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/transpose.h"
#include "mace/ops/transpose.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewTransposeCpu() {
  return std::make_unique<RefKernelCpu<TransposeBase, ref::Transpose>>();
}

}  // namespace ops
}  // namespace mace
