// The per-port half of cpu/kernel_table.h: each CPU port fills its own
// tables, in one file chosen by the build (x86/kernel_tables_x86_64.cc,
// arm/kernel_tables_neon.cc, or cpu/kernel_tables_none.cc elsewhere).
// cpu/kernel_table.cc calls these only for families the CPU supports.
#ifndef MACE_OPS_CPU_KERNEL_TABLES_H_
#define MACE_OPS_CPU_KERNEL_TABLES_H_

#include "mace/ops/cpu/kernel_table.h"

namespace mace {
namespace ops {

// The port's table for `isa` (built once, on the first call), or null.
const KernelTable* PortKernelTable(KernelIsa isa, const CpuFeatures& features);

// The port's table for `isa` with the half-precision kernels, or null.
const KernelTable* PortFp16KernelTable(KernelIsa isa, const CpuFeatures& features);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_KERNEL_TABLES_H_
