// Identity's CPU kernel: a copy the memory plan usually elides.
#include "mace/ops/cpu/identity_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/identity.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewIdentityCpu() {
  return std::make_unique<AliasedCopyCpu<IdentityBase>>();
}

}  // namespace ops
}  // namespace mace
