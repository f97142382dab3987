// arm64's runs of 8 x 12 tiles (sgemm_neon.cc) that only the GEMM driver's
// arm64 port (gemm_port_aarch64.cc) and its tests call: the table leaves
// NeonGemmRun out, since Winograd lays out its panels otherwise for a table
// with a run kernel.
#ifndef MACE_OPS_ARM_SGEMM_NEON_RUNS_H_
#define MACE_OPS_ARM_SGEMM_NEON_RUNS_H_

#include <cstdint>

#include "mace/ops/cpu/micro_kernels.h"

namespace mace {
namespace ops {
namespace arm {

// A run of 8 x 12 tiles (GemmRunMicroKernel).
void NeonGemmRun(int64_t tiles, int64_t kc, const float* a, int64_t a_step, const float* b,
                 int64_t b_step, float* c, int64_t c_step, int64_t ldc, int64_t row_bias_step,
                 int64_t col_bias_step, const TileEpilogue& epilogue);
// A row of `tiles` whole-width tiles of 2 or 4 rows (a last row panel), B
// panels b_step floats apart, C 12 floats apart; the epilogue has no
// column bias or hard-swish.
void NeonGemmRowTail(int rows, int64_t tiles, int64_t kc, const float* a, const float* b,
                     int64_t b_step, float* c, int64_t ldc, const TileEpilogue& epilogue);
// wide[12 i + j] = bias[i] for i < rows and j < 12: a row bias widened to
// the tile's columns, for NeonGemmRunWideBias.
void NeonWidenRowBias(const float* bias, int64_t rows, float* wide);
// A last column panel of `cols` (4 or 1) columns: `tiles` whole row
// panels, A panels a_step and C c_step floats apart, the row bias (if any)
// from the epilogue's; the epilogue has no column bias or hard-swish.
void NeonGemmColumnTail(int cols, int64_t tiles, int64_t kc, const float* a, int64_t a_step,
                        const float* b, float* c, int64_t c_step, int64_t ldc,
                        const TileEpilogue& epilogue);
// NeonGemmRun's tiles from the first reduction block (not from C), the
// row bias of tile t widened (NeonWidenRowBias) at wide_bias + t *
// wide_bias_step; the epilogue has no column bias or hard-swish.
void NeonGemmRunWideBias(int64_t tiles, int64_t kc, const float* a, int64_t a_step, const float* b,
                         int64_t b_step, float* c, int64_t c_step, int64_t ldc,
                         const float* wide_bias, int64_t wide_bias_step,
                         const TileEpilogue& epilogue);
// `panels` column panels (B panels b_panel_step and C c_panel_step floats
// apart), each NeonGemmRunWideBias's `tiles` tiles down it (A panels a_step
// and C c_step floats apart), the row bias of tile t widened at wide_bias
// + 96 t.
void NeonGemmRunWideBiasPanels(int64_t panels, int64_t b_panel_step, int64_t c_panel_step,
                               int64_t tiles, int64_t kc, const float* a, int64_t a_step,
                               const float* b, float* c, int64_t c_step, int64_t ldc,
                               const float* wide_bias, const TileEpilogue& epilogue);
// `tiles` tiles down a column panel (A panels a_step and C c_step floats
// apart), of which the first prefetch_tiles each first prefetch the A
// panel two tiles on (8 kc floats), from the widened bias (96 floats a
// tile) if wide_bias is set, else from C or the epilogue's row bias; the
// epilogue has no column bias or hard-swish.
void NeonGemmRunPrefetchingA(int64_t tiles, int64_t prefetch_tiles, int64_t kc, const float* a,
                             int64_t a_step, const float* b, float* c, int64_t c_step, int64_t ldc,
                             const float* wide_bias, const TileEpilogue& epilogue);

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ARM_SGEMM_NEON_RUNS_H_
