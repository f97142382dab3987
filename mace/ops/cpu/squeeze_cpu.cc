// Squeeze's CPU kernel: a copy the memory plan usually elides.
#include "mace/ops/cpu/squeeze_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/squeeze.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewSqueezeCpu() {
  return std::make_unique<AliasedCopyCpu<SqueezeBase>>();
}

}  // namespace ops
}  // namespace mace
