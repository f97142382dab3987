// Reshape's CPU kernel: a copy the memory plan usually elides.
#include "mace/ops/cpu/reshape_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/reshape.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewReshapeCpu() {
  return std::make_unique<AliasedCopyCpu<ReshapeBase>>();
}

}  // namespace ops
}  // namespace mace
