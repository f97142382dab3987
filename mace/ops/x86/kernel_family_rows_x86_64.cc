// The x86-64 port's pooling and Eltwise rows: AVX2, in the AVX-512 table
// too (not rewritten for AVX-512).
#include "mace/ops/cpu/kernel_tables.h"
#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {

bool PortFillRowKernels(KernelIsa isa, const CpuFeatures& /*features*/, RowKernels* k) {
  if (isa != KernelIsa::kAvx2Fma && isa != KernelIsa::kAvx512) return false;
  k->pooling = x86::Avx2PoolingBand;
  k->plane_sum = x86::Avx2PlaneSum;
  k->plane_max = x86::Avx2PlaneMax;
  k->eltwise = x86::Avx2EltwiseRow;
  return true;
}

}  // namespace ops
}  // namespace mace
