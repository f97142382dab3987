// The ARM port's pooling and Eltwise rows (NEON).
#include "mace/ops/arm/neon_kernels.h"
#include "mace/ops/cpu/kernel_tables.h"

namespace mace {
namespace ops {

bool PortFillRowKernels(KernelIsa isa, const CpuFeatures& /*features*/, RowKernels* k) {
  if (isa != KernelIsa::kNeon) return false;
  k->pooling = arm::NeonPoolingBand;
  k->plane_sum = arm::NeonPlaneSum;
  k->plane_max = arm::NeonPlaneMax;
  k->eltwise = arm::NeonEltwiseRow;
  return true;
}

}  // namespace ops
}  // namespace mace
