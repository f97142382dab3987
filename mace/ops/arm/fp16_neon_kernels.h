// Half-precision (ARMv8.2 FP16 arithmetic) NEON kernels, arm64 only. They
// are built with -march=armv8.2-a+fp16 in a library of their own and reached
// only through KernelTable's fp16 entries, which kernel_table.cc fills when
// AT_HWCAP reports FPHP and ASIMDHP. Half values cross this interface as
// their raw 16-bit patterns, so baseline code can hold them.
#ifndef MACE_OPS_ARM_FP16_NEON_KERNELS_H_
#define MACE_OPS_ARM_FP16_NEON_KERNELS_H_

#include <cstdint>

#include "mace/ops/cpu/micro_kernels.h"

namespace mace {
namespace ops {
namespace arm {

// The fp16 GEMM tile: 8 rows x 24 columns (three vectors of 8 halves), 24
// accumulators of 32 registers.
constexpr int kFp16GemmMr = 8;
constexpr int kFp16GemmNr = 24;

// dst[i] = src[i] rounded to half precision (nearest even), i < count.
void Fp16FromFloat(const float* src, int64_t count, uint16_t* dst);

// One B panel of the tile from rows of floats: dst[d * 24 + j] =
// src[d * depth_stride + j] rounded to half for j < cols (at most 24), half
// zeros for the rest, d < depth. Packing and conversion in one pass.
void Fp16PackColumns(const float* src, int64_t cols, int64_t depth, int64_t depth_stride,
                     uint16_t* dst);

// One B panel from rows of halves: dst[d * 24 + j] = src[d * depth_stride
// + j] for j < cols (at most 24), half zeros for the rest, d < depth.
void Fp16PackHalfColumns(const uint16_t* src, int64_t cols, int64_t depth, int64_t depth_stride,
                         uint16_t* dst);

// dst[i] = src[i] (a half) as a float, i < count.
void Fp16ToFloat(const uint16_t* src, int64_t count, float* dst);

// dst[i] = a[i] + b[i] in half precision, i < count.
void Fp16Add(const uint16_t* a, const uint16_t* b, int64_t count, uint16_t* dst);

// C[rows x cols] (row stride ldc, float) = (accumulate ? C : 0) +
// A_panel x B_panel, the panels in half precision (kc groups of 8 and of 24
// values). Products are summed in half precision over the kc steps and
// added to C in single precision. The first block (!accumulate) starts its
// sums at row_bias (rows values, may be null) rounded to half; the last
// block (epilogue.last) applies the clamp or hard-swish activation (a clamp
// whose bounds are half values in half precision, when it is also the
// first block). rows <= 8, cols <= 24; only those are read or written, and
// a tile of at most 8 or 16 columns computes only those.
void Fp16GemmTile(int64_t kc, const uint16_t* a, const uint16_t* b, float* c, int64_t ldc,
                  int rows, int cols, const TileEpilogue& epilogue);

// The same with C of halves: the first block's sums are stored as they
// are, later blocks add theirs to C's values in half precision (one
// rounding of the exact sum); a clamp whose bounds are half values is
// applied in half precision, other activations through single precision.
void Fp16GemmTileHalf(int64_t kc, const uint16_t* a, const uint16_t* b, uint16_t* c, int64_t ldc,
                      int rows, int cols, const TileEpilogue& epilogue);

// Fp16GemmTileHalf over `panels` whole 8 x 24 tiles down one B panel:
// A's panels a_stride halves apart, C's 8 * panels rows, row_bias (when
// read) 8 * panels values. One call instead of one per tile.
void Fp16GemmTileHalfRows(int64_t kc, const uint16_t* a, int64_t a_stride, const uint16_t* b,
                          uint16_t* c, int64_t ldc, int64_t panels, const TileEpilogue& epilogue);

// Winograd's products, first block, no bias or activation, C of halves:
// for each position x < positions, Fp16GemmTileHalf over `panels` 8-row
// tiles (A's panels at a[x] + a_offset, 8 * kc halves apart) of the first
// `cols` columns of the B panel at b + x * b_stride, into C's 8 * panels
// rows at c + x * c_stride (ldc apart). One call instead of one per tile;
// with 1 to 4 columns three tiles share each load of B. The same halves
// as the tiles one by one.
void Fp16GemmHalfPositions(int64_t kc, const uint16_t* const* a, int64_t a_offset,
                           const uint16_t* b, int64_t b_stride, uint16_t* c, int64_t c_stride,
                           int64_t ldc, int64_t positions, int64_t panels, int cols);

// out[j] = sum over d < depth of panel[d * 8 + j] * x[d], j < 8: one packed
// 8-row A panel times a half vector. Partial sums of up to 64 steps are
// kept in half precision and summed in single precision.
void Fp16PanelDot(const uint16_t* panel, int64_t depth, const uint16_t* x, float* out);

// 3x3 depthwise bands by horizontal stride, as DepthwiseBandKernel except
// that `in` holds half values (in_pitch halves per row, each row readable
// for 8 * ceil(out_w / 8) * stride + 2 of them). The 9 products are summed
// in half precision from the bias (rounded to half); a clamp whose bounds
// are half values is applied in half precision, other activations in
// single precision. Output rows are computed in pairs. With band.out_half
// the outputs are stored as halves.
void Fp16Depthwise3x3S1(const DepthwiseBand& band);
void Fp16Depthwise3x3S2(const DepthwiseBand& band);

// DepthwisePackedGroup's kernel: the 9 products of each output summed in
// half precision from the bias (rounded to half), the activation as for
// the bands.
void Fp16Depthwise3x3Packed(const DepthwisePackedGroup& group);

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ARM_FP16_NEON_KERNELS_H_
