// Unary's CPU kernel: the reference one (mace/ops/ref/unary.h).
#include "mace/ops/cpu/unary_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/unary.h"
#include "mace/ops/unary.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewUnaryCpu() {
  return std::make_unique<RefKernelCpu<UnaryBase, ref::Unary>>();
}

}  // namespace ops
}  // namespace mace
