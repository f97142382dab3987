// Cast's CPU kernel: the reference one (mace/ops/ref/cast.h).
#include "mace/ops/cpu/cast_cpu.h"

#include <memory>

#include "mace/ops/cast.h"
#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/cast.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewCastCpu() {
  return std::make_unique<RefKernelCpu<CastBase, ref::Cast>>();
}

}  // namespace ops
}  // namespace mace
