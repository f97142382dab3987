// The GEMM driver's port for builds without one of their own (x86-64 and
// others): the plain walk, blocks of the table's kc and no packing or
// panel kernels beyond the table's.
#include "mace/ops/cpu/gemm_block.h"

namespace mace {
namespace ops {

int64_t GemmReductionDepth(const KernelTable& t, int64_t k) { return k <= t.kc ? k : t.kc; }

GemmRunMicroKernel GemmRunKernel(const KernelTable& table) { return table.gemm_run; }

int64_t GemmColumnSlack(const KernelTable&) { return 0; }

int64_t GemmPortScratchFloats(const KernelTable&, int64_t, int64_t, int64_t) { return 0; }

bool PackAdjacentPanels(const float*, int64_t, int64_t, int64_t, int, float*) { return false; }

PanelDotKernel GemmPanelDot(const KernelTable& table, int) { return table.panel_dot; }

void GemmBlock(const GemmCall& call, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
               float* scratch) {
  gemm_block::GemmBlockWalk<gemm_block::PlainGemmPort>(call, m0, m1, n0, n1, scratch);
}

}  // namespace ops
}  // namespace mace
