// Transformer element-wise kernels of builds for CPUs without a port
// (neither x86-64 nor ARM): the portable variant only.
#include "mace/ops/cpu/transformer_kernels.h"

namespace mace {
namespace ops {

const TransformerKernels* PortTransformerKernels(KernelIsa /*isa*/,
                                                 const TransformerKernels& /*portable*/) {
  return nullptr;
}

}  // namespace ops
}  // namespace mace
