// The armv7 assembly GEMM and direct-convolution kernels of
// sgemm_neon_armv7.cc, for their callers in sgemm_neon.cc (NeonGemm,
// NeonGemmRun, Armv7ConvRows), cpu/gemm.cc (the armv7 table's tails and
// panels), cpu/conv_2d_direct.cc (the tap chain) and cpu/conv_2d_winograd.cc
// (the Winograd runs). Sizes and strides are 32-bit: each is at most one
// block of a GEMM.
#ifndef MACE_OPS_ARM_SGEMM_NEON_ARMV7_H_
#define MACE_OPS_ARM_SGEMM_NEON_ARMV7_H_

#if defined(__ARM_NEON) && !defined(__aarch64__)

#include <cstdint>

namespace mace {
namespace ops {
namespace arm {

// The 6 x 8 tile: C rows (ldc_bytes apart) = (from_c ? C : bias ? bias[i] :
// 0) + A x B, then clamped below at bounds[0] (and above at bounds[1] if
// clamp_hi) if clamp.
void Armv7GemmTile6x8(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                      const float* bias, bool clamp, bool clamp_hi, const float* bounds);
// `tiles` 6 x 8 tiles starting from a column bias (8 floats at col_bias,
// not null; each tile's col_bias_step floats after the previous one's) or
// from C, each tile's A, B and C a step (in floats) after the previous
// one's, clamped as Armv7GemmTile6x8's.
void Armv7GemmColBiasRun6x8(int tiles, int kc, const float* a, int a_step, const float* b,
                            int b_step, float* c, int c_step, int ldc_bytes, bool from_c,
                            const float* col_bias, int col_bias_step, bool clamp, bool clamp_hi,
                            const float* bounds);
// `tiles` of them, each with its A, B, C and bias a step (in floats) after
// the previous one's; the first prefetch_tiles prefetch A two tiles ahead.
void Armv7GemmRun6x8(int tiles, int kc, const float* a, int a_step, const float* b, int b_step,
                     float* c, int c_step, int ldc_bytes, bool from_c, const float* bias,
                     int bias_step, bool clamp, bool clamp_hi, const float* bounds,
                     int prefetch_tiles);
// `runs` such runs (no prefetching), each with the A panels and biases of
// the first and B and C b_run_step and c_run_step floats on. b_split:
// null, or the runs' B panels as Armv7SplitPanels wrote them (8 * kc
// floats apart), which the runs that would split their panel read instead.
void Armv7GemmRun6x8Panels(int runs, int b_run_step, int c_run_step, int tiles, int kc,
                           const float* a, int a_step, const float* b, int b_step, float* c,
                           int c_step, int ldc_bytes, bool from_c, const float* bias, int bias_step,
                           bool clamp, bool clamp_hi, const float* bounds, const float* b_split);
// Whether runs of `tiles` tiles kc deep down one B panel read it split
// into its two 4-wide halves; and `panels` 8-wide B panels kc deep
// (panel_stride floats apart) split so, 8 * kc floats a panel, into out.
bool Armv7RunsSplitPanel(int tiles, int kc);
void Armv7SplitPanels(int panels, int kc, const float* b, int panel_stride, float* out);
// The first `cols` (4 or 1) columns of an 8-wide B panel kc deep as a
// dense panel, into out (8 * kc floats of room): Armv7GemmColumnTail's
// b_dense.
void Armv7DensePanel(int cols, int kc, const float* b, float* out);

// The first 4 columns (6x4) or rows (4x8) of a 6 x 8 tile into c, rows
// ldc_bytes apart (from c, the 6 or 4 row biases or zero), clamped as
// Armv7GemmTile6x8's.
void Armv7GemmTile6x4(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                      const float* bias, bool clamp, bool clamp_hi, const float* bounds);
void Armv7GemmTile4x8(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                      const float* bias, bool clamp, bool clamp_hi, const float* bounds);
// Its first 2 rows (2x8), and its first column (6x1) straight into C, rows
// ldc_bytes apart (the 6x1 tile's B panel b_width floats a depth: 8, or 4
// for Winograd's V in 4-wide panels).
void Armv7GemmTile2x8(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                      const float* bias, bool clamp, bool clamp_hi, const float* bounds);
void Armv7GemmTile6x1(int kc, const float* a, const float* b, float* c, int ldc_bytes, bool from_c,
                      const float* bias, bool clamp, bool clamp_hi, const float* bounds,
                      int b_width = 8);
// A row of `tiles` 4 x 8 (rows 4) or 2 x 8 tiles, B panels b_step floats
// apart, C 8 floats apart.
void Armv7GemmRowTail(int rows, int tiles, int kc, const float* a, const float* b, int b_step,
                      float* c, int ldc_bytes, bool from_c, const float* bias, bool clamp,
                      bool clamp_hi, const float* bounds);
// A column of `tiles` 6 x 4 (cols 4) or 6 x 1 tiles, A panels a_step
// floats apart, C c_step floats apart; B the 8-wide panel or (b_dense) its
// first 4 or 1 columns as a dense panel (Armv7DensePanel).
void Armv7GemmColumnTail(int cols, int tiles, int kc, const float* a, int a_step, const float* b,
                         bool b_dense, float* c, int c_step, int ldc_bytes, bool from_c,
                         const float* bias, bool clamp, bool clamp_hi, const float* bounds);

// A 6- or 8-wide panel times a vector (PanelDotKernel); false for other
// widths.
bool Armv7PanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out);

// Winograd's runs: 6 x 4 tiles (the first 4 columns of B panels b_width,
// 8 or 4, floats a depth), from C or zero, no bias or clamp; and the same
// over two micro-tiles (A panels a_pair floats apart) at once.
void Armv7GemmRun6x4(int tiles, int kc, const float* a, int a_step, const float* b, int b_step,
                     float* c, int c_step, int ldc_bytes, bool from_c, int b_width);
void Armv7GemmRun12x4(int tiles, int kc, const float* a, int a_pair, int a_step, const float* b,
                      int b_step, float* c, int c_step, int ldc_bytes, bool from_c, int b_width);
// And 6 x 8 tiles on B as two 4-wide panels, the right one b_right floats
// after the left (Winograd's V as 4-tile panels): the halves' loop, 26
// instructions per 4 depths where 8-wide panels take 27.
void Armv7GemmRun6x8OnPanels(int tiles, int kc, const float* a, int a_step, const float* b,
                             int b_right, int b_step, float* c, int c_step, int ldc_bytes,
                             bool from_c);

// The direct convolution's tile: C rows (ldc_bytes apart) = (bias ? bias[i]
// : 0) + A x B, B's k-th row at base + offsets[k], then clamped as
// Armv7GemmTile6x8's.
void Armv7ConvTile6x8(int kc, const float* a, const float* base, const int64_t* offsets, float* c,
                      int ldc_bytes, const float* bias, bool clamp, bool clamp_hi,
                      const float* bounds);
// As Armv7ConvTile6x8 for offsets that come kernel_w taps of a kernel row
// at a time in the padded image's pattern (PaddedImage); false, with
// nothing written, for a kernel width other than 3 and 7.
bool Armv7ConvKernelRowsTile6x8(int kc, int kernel_w, const float* a, const float* base,
                                const int64_t* offsets, float* c, int ldc_bytes, const float* bias,
                                bool clamp, bool clamp_hi, const float* bounds);
// `tiles` tiles of Armv7ConvKernelRowsTile6x8 or of its first tile_rows (2
// or 4) rows, each 8 floats on from the one before it in B and C, in one
// call; false, with nothing written, where that tile would return false.
// chain: the tap steps Armv7ConvKernelRowsChain gave for these offsets, or
// null.
bool Armv7ConvKernelRowsRun(int tile_rows, int tiles, int kc, int kernel_w, const float* a,
                            const float* base, const int64_t* offsets, float* c, int ldc_bytes,
                            const float* bias, bool clamp, bool clamp_hi, const float* bounds,
                            const int32_t* chain);
// `out_rows` output rows of Armv7ConvKernelRowsRun's tiles over a chain
// (not null), row r's B base and C row_b and row_c floats after row r -
// 1's: `tiles` tiles from the row's start and, if tail_back (0 to 7) is
// not 0, one more tail_back columns before the next, ending where a row
// of tiles * 8 + 8 - tail_back columns does. False, with nothing written,
// where Armv7ConvKernelRowsRun would return false or take the offsets.
bool Armv7ConvKernelRowsRows(int tile_rows, int out_rows, int tiles, int tail_back, int row_b,
                             int row_c, int kc, int kernel_w, const float* a, const float* base,
                             const int64_t* offsets, float* c, int ldc_bytes, const float* bias,
                             bool clamp, bool clamp_hi, const float* bounds,
                             const int32_t* chain);
// Whether a 3x3 or 7x7 kernel's offsets form one chain of tap steps (each
// kernel row alike, rows of a channel one step apart and channels
// another); if so the four steps, in bytes.
bool Armv7ConvKernelRowsChain(int kc, int kernel_w, const int64_t* offsets, int32_t chain[4]);

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // __ARM_NEON && !__aarch64__

#endif  // MACE_OPS_ARM_SGEMM_NEON_ARMV7_H_
