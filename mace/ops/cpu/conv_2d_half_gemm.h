// The half-precision GEMM of convolutions on half tensors whose B (the
// columns) is packed by an im2col packer: Fp16GemmHalfPanels (gemm_fp16.h)
// with C written as halves by the table's half-storing tile.
#ifndef MACE_OPS_CPU_CONV_2D_HALF_GEMM_H_
#define MACE_OPS_CPU_CONV_2D_HALF_GEMM_H_

#include <cstdint>

#include "mace/ops/cpu/gemm_fp16.h"

namespace mace {
namespace ops {

// C[m, n] (halves, row stride ldc) = A x B + row bias, activation, with B's
// half panels from `packer`. As in Fp16GemmHalf, sums go to C in half
// precision after each kc block, and later blocks add to it in single
// precision and round again. `scratch` holds NumThreads(pool) *
// Fp16GemmHalfScratchFloatsPerThread(table, k) floats. The table must have
// fp16_gemm_half, and k must be > 0.
void Fp16GemmHalfPanelsToHalves(const KernelTable& table, int64_t m, int64_t n, int64_t k,
                                const Fp16Panels& a, Fp16HalfPacker packer, const void* context,
                                uint16_t* c, int64_t ldc, const TileEpilogue& epilogue,
                                ThreadPool* pool, float* scratch);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_HALF_GEMM_H_
