// Kernel tables of builds for CPUs without a port (neither x86-64 nor
// ARM): none, so every op runs its reference kernel.
#include "mace/ops/cpu/kernel_tables.h"

namespace mace {
namespace ops {

const KernelTable* PortKernelTable(KernelIsa /*isa*/, const CpuFeatures& /*features*/) {
  return nullptr;
}

const KernelTable* PortFp16KernelTable(KernelIsa /*isa*/, const CpuFeatures& /*features*/) {
  return nullptr;
}

}  // namespace ops
}  // namespace mace
