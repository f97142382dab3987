// A kernel family that is not there: for CPUs without a port, and for the
// families a build leaves out. The build compiles this file once per such
// family, with MACE_KERNEL_FAMILY_NONE set to the family's struct
// (CPU_KERNEL_FAMILIES in mace/ops/BUILD.bazel).
#include "mace/ops/cpu/kernel_tables.h"

#ifndef MACE_KERNEL_FAMILY_NONE
#error "MACE_KERNEL_FAMILY_NONE names the family's struct"
#endif

#define MACE_FILL_NONE_NAME(Struct) PortFill##Struct
#define MACE_FILL_NONE(Struct) MACE_FILL_NONE_NAME(Struct)

namespace mace {
namespace ops {

bool MACE_FILL_NONE(MACE_KERNEL_FAMILY_NONE)(KernelIsa /*isa*/, const CpuFeatures& /*features*/,
                                             MACE_KERNEL_FAMILY_NONE* /*kernels*/) {
  return false;
}

}  // namespace ops
}  // namespace mace
