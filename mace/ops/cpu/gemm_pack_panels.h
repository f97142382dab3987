// A port's packing of GEMM panels from an operand whose depth is
// contiguous: PackPanels (gemm.h) with depth_stride 1, rows `stride` apart.
// That operand is FullyConnected's input (A), packed on every call, and a
// weight packed as B^T at Prepare. A port's choice, made at build time.
#ifndef MACE_OPS_CPU_GEMM_PACK_PANELS_H_
#define MACE_OPS_CPU_GEMM_PACK_PANELS_H_

#include <cstdint>

namespace mace {
namespace ops {

// PackPanels' layout for rows [0, rows) and depths [0, depth), the last
// panel zero-padded; false (nothing written) where the port has no packing
// of its own for `width`: always in gemm_pack_panels.cc, for odd widths in
// the x86-64 and ARM ports (x86/gemm_pack_panels_x86_64.cc,
// arm/gemm_pack_panels_neon.inc).
bool PackContiguousDepthPanels(const float* src, int64_t rows, int64_t depth, int64_t stride,
                               int width, float* dst);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_GEMM_PACK_PANELS_H_
