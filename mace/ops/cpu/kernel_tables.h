// The per-port half of cpu/kernel_table.h: each CPU port fills each kernel
// family in a file of its own, chosen by the build (the CPU_KERNEL_FAMILIES
// of mace/ops/BUILD.bazel: x86/kernel_family_<family>_x86_64.cc,
// arm/kernel_family_<family>_neon.cc, or cpu/kernel_family_none.cc for a CPU
// without a port and for a family the build leaves out). cpu/kernel_table.cc
// calls them only for instruction sets the CPU supports, once per table.
#ifndef MACE_OPS_CPU_KERNEL_TABLES_H_
#define MACE_OPS_CPU_KERNEL_TABLES_H_

#include "mace/ops/cpu/kernel_table.h"

namespace mace {
namespace ops {

// PortFill<Struct>: fills `kernels` with the port's family for `isa` and
// returns true, or returns false (and leaves it as it is) where the port
// has no such family for `isa` or the build leaves the family out.
#define MACE_DECLARE_PORT_FILL(family, Struct, LIST, plain) \
  bool PortFill##Struct(KernelIsa isa, const CpuFeatures& features, Struct* kernels);
MACE_CPU_KERNEL_FAMILIES(MACE_DECLARE_PORT_FILL)
#undef MACE_DECLARE_PORT_FILL

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_KERNEL_TABLES_H_
