// The interface of the uint8 GEMM micro-kernels (mace/ops/x86), as plain
// types only, like micro_kernels.h.
//
// The kernels multiply packed int32 words: each word holds a group of
// consecutive reduction (k) values, in one of two formats:
//   kQuantPairsInt16  two int16 values, already minus their zero points
//                     (exact products of up to 255 x 255, summed by pairs);
//   kQuantQuadsUint8  four bytes: uint8 on the input side, int8 on the
//                     weight side (the driver corrects for the offsets);
//   kQuantQuadsUint8Unsigned  four bytes, uint8 on both sides (int8 weights
//                     shifted up by 128; the driver corrects again).
// C[row][col] = sum over groups g of dot(A[row][g], B[g][col]), in int32.
// rows is a multiple of kQuantGemmRows and cols of kQuantGemmCols (the driver
// pads with zero words); A is [rows][groups], B is [groups][cols], C is
// [rows][cols].
#ifndef MACE_OPS_CPU_QUANTIZED_MICRO_KERNELS_H_
#define MACE_OPS_CPU_QUANTIZED_MICRO_KERNELS_H_

#include <cstdint>

namespace mace {
namespace ops {

enum QuantGemmFormat : int32_t {
  kQuantPairsInt16 = 0,
  kQuantQuadsUint8 = 1,
  kQuantQuadsUint8Unsigned = 2,
};

constexpr int kQuantGemmRows = 4;
constexpr int kQuantGemmCols = 32;

using QuantizedGemmKernel = void (*)(const int32_t* a, const int32_t* b, int64_t rows,
                                     int64_t groups, int64_t cols, int32_t* c);

// The output step of one row of a uint8 GEMM: for i < count,
//   x = sums[i] + row_term + (column_terms ? column_terms[i] : 0)
// in wrapping int32 arithmetic (the caller guarantees the exact value fits
// in int32), then out[i] = clamp(zero_point + Requantize(x), lo, hi) with the
// rule of mace/ops/common/quantize.h, for a multiplier below 1
// (multiplier < 2^right_shift).
struct RequantizeRow {
  const int32_t* sums = nullptr;
  const int32_t* column_terms = nullptr;
  int32_t row_term = 0;
  int32_t multiplier = 0;
  int32_t right_shift = 1;
  int32_t zero_point = 0, lo = 0, hi = 255;
  int64_t count = 0;
  uint8_t* out = nullptr;
};
using RequantizeRowKernel = void (*)(const RequantizeRow& row);

// The GEMM with its output step fused (QuantizedGemmRequantKernel): the
// product C of the arguments of QuantizedGemmKernel is not stored; row r,
// column j of it becomes, by the rule of RequantizeRow,
//   x = C[r][j] + row_terms[r] + (column_terms ? column_terms[j] : 0)
//   out[r * out_stride + j] = clamp(zero_point + Requantize(x), lo, hi)
// with row r's multiplier and right shift, for r < valid_rows and
// j < count only (nothing else is written). Every row must meet
// RequantizeRow's conditions (exact int32 total, multiplier below 1).
struct RequantizeTile {
  const int32_t* row_terms = nullptr;
  const int32_t* multipliers = nullptr;
  const int32_t* right_shifts = nullptr;
  const int32_t* column_terms = nullptr;
  int32_t zero_point = 0, lo = 0, hi = 255;
  int64_t valid_rows = 0;
  int64_t count = 0;
  uint8_t* out = nullptr;
  int64_t out_stride = 0;
};
using QuantizedGemmRequantKernel = void (*)(const int32_t* a, const int32_t* b, int64_t rows,
                                            int64_t groups, int64_t cols,
                                            const RequantizeTile& tile);

// The matrix-vector product of a uint8 vector and int8 rows: for r < rows,
//   sums[r] = sum over k < depth of x[k] * w[r * depth + k]
// exactly in int32 (depth at most kQuantGemvMaxDepth). depth is a multiple
// of kQuantGemvDepth; the caller pads rows and vector with zeros.
constexpr int kQuantGemvDepth = 64;
constexpr int64_t kQuantGemvMaxDepth = 65536;  // 65536 x 255 x 128 < 2^31
using QuantizedGemvKernel = void (*)(const int8_t* w, const uint8_t* x, int64_t rows,
                                     int64_t depth, int32_t* sums);

// The Quantize op's conversion, by the rule of QuantizeValue in
// common/quantize.h: for i < count, out[i] = clamp(zero_point +
// round_half_away(double(in[i]) / scale), 0, 255), and zero_point for NaN.
// The uint8 Eltwise by its 256 x 256 table (eltwise_uint8_table.h): for
// i < count, out[i] = table[in0[i] * 256 + in1[i]]. Reads only the table's
// 65,536 bytes.
using EltwiseUint8TableKernel = void (*)(const uint8_t* table, const uint8_t* in0,
                                         const uint8_t* in1, int64_t count, uint8_t* out);

using QuantizeUint8Kernel = void (*)(const float* in, int64_t count, float scale,
                                     int32_t zero_point, uint8_t* out);

// One output row of a 3x3 uint8 depthwise convolution, before its
// requantization: for x < RoundUp(count, kDepthwiseUint8Lanes),
//   sums[x] = sum over i, j < 3 of taps[3 i + j] * rows[i][stride * x + j]
// exactly in int32 (|rows| and |taps| are at most 255). rows hold the inputs
// minus their zero point as int16, 0 in the padding, and are readable up to
// index stride * RoundUp(count, kDepthwiseUint8Lanes) + 2; taps are the
// filter minus its zero point. stride is the kernel's (1 or 2).
constexpr int kDepthwiseUint8Lanes = 8;
struct DepthwiseUint8Row {
  const int16_t* rows[3] = {nullptr, nullptr, nullptr};
  int16_t taps[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  int64_t count = 0;
  int32_t* sums = nullptr;
};
using DepthwiseUint8RowKernel = void (*)(const DepthwiseUint8Row& row);

// One output row of a uint8 max pooling with dilation 1: first
//   cells[c] = max over r < row_count of rows[r][c], for c < width
// (row_count >= 1), then, with `line` the padded line that holds the cells,
//   out[j] = max over k < kernel of line[stride * j + k], for j < count.
// stride is 1 or 2. The caller fills the line's padding with 0 (it never
// wins a max over a window with one valid tap) and keeps it readable and
// unchanged up to index stride * (count - 1) + kernel + kMaxPoolUint8Slack.
constexpr int64_t kMaxPoolUint8Slack = 128;
//
// One call does `out_rows` such rows: row r reads rows[i] + r * input_step
// and writes from out + r * output_step. `out_room` is how many bytes from
// `out` the kernel may write: a row may store past its count where the
// room allows, so the caller must write those bytes afterwards (later rows
// of the plane, in order).
struct MaxPoolUint8Row {
  const uint8_t* const* rows = nullptr;
  int64_t row_count = 0;
  int64_t width = 0;
  uint8_t* cells = nullptr;
  const uint8_t* line = nullptr;
  int64_t kernel = 0;
  int64_t stride = 0;
  int64_t count = 0;
  uint8_t* out = nullptr;
  int64_t out_rows = 1;
  int64_t input_step = 0;
  int64_t output_step = 0;
  int64_t out_room = 0;
};
using MaxPoolUint8RowKernel = void (*)(const MaxPoolUint8Row& row);

// The same row with its output step fused: the sums of `row` (whose `sums`
// is not used) stay in registers and become, by the rule of RequantizeRow
// with `output.row_term` as the bias,
//   out[x] = clamp(zero_point + Requantize(sums[x] + row_term), lo, hi)
// for x < row.count only (nothing else is written; output.sums,
// column_terms and count are not used). The caller guarantees
// RequantizeRow's conditions (exact int32 total, multiplier below 1).
// One call does `out_rows` such rows (the output constants are set up
// once): row r reads rows[i] + r * input_step and writes from
// out + r * output_step.
struct DepthwiseUint8RequantRow {
  DepthwiseUint8Row row;
  RequantizeRow output;
  int64_t out_rows = 1;
  int64_t input_step = 0, output_step = 0;
};
using DepthwiseUint8RequantRowKernel = void (*)(const DepthwiseUint8RequantRow& row);

// A 3x3 uint8 depthwise convolution of kDepthwiseUint8Block channels at
// once, with channel multiplier 1 and int8 taps, on planar (NCHW) input
// and output. The kernel first copies input planes [0, valid) into the
// position-major `tile`: byte c of flat input position f = y * in_w + x,
// for f in [first, last) and x < cols, goes to
//   tile[tile_offset + (y * row_stride + x) * 16 + c]
// (the caller has filled the tile's padding with the input zero point; a
// tile position (ty, tx) is padded input (ty, tx) of this band). Then, for
// output rows [0, out_h) and columns [0, out_w) of the band, channel c's
//   terms[c] + sum over i, j < 3 of taps(i, j) * tile(stride_h * oy + i,
//                                                    stride_w * ox + j)
// (wrapping int32, exact where the caller guarantees RequantizeRow's
// conditions) is requantized with multipliers[c] and right_shifts[c] (each
// below 1) and the clamp into staging[(oy * out_w + ox) * 16 + c], and
// finally out[c * out_plane + q] = staging[q * 16 + c] for c < valid and q <
// out_h * out_w. Each channel's taps are three quads, one per filter row i:
// taps[(i * 16 + c) * 4 + j] is tap (i, j) for j < 3 and 0 for j = 3. The
// tile is read up to 64 bytes from its last position used.
constexpr int kDepthwiseUint8Block = 16;
struct DepthwiseUint8Block {
  const uint8_t* planes = nullptr;
  int64_t plane = 0, valid = 0, in_w = 0, first = 0, last = 0, cols = 0, tile_offset = 0;
  uint8_t* tile = nullptr;
  int64_t row_stride = 0;
  int64_t stride_h = 1, stride_w = 1;
  int64_t out_h = 0, out_w = 0;
  const int8_t* taps = nullptr;
  const int32_t* terms = nullptr;
  const int32_t* multipliers = nullptr;
  const int32_t* right_shifts = nullptr;
  int32_t zero_point = 0, lo = 0, hi = 255;
  uint8_t* staging = nullptr;
  uint8_t* out = nullptr;
  int64_t out_plane = 0;
};
using DepthwiseUint8BlockKernel = void (*)(const DepthwiseUint8Block& block);

// The same convolution on small planes without a layout change: each
// channel's outputs are computed in its own plane, 16 consecutive flat
// outputs q (output (q / out_w, q % out_w)) a vector, one int32 lane each.
// For vector v and filter row i, step s = steps[3 v + i] names a window of
// `window` (64 or 128) input bytes from base (the channel's whole plane
// from 0 where `in_plane` is at most `window` bytes; otherwise inside the
// plane) and, in its
// pattern (steps of the same shape share one), the bytes (tap 0, tap 1,
// tap 2, any) of each lane: byte b is window byte index[b] where bit b of
// `inside` is set, and else index[b] itself, which the caller sets to the
// input zero point (padding). Channel c (of
// `channels` from the first) reads in + c * in_plane and writes out + c *
// out_plane: its terms[c] + the nine products of `quads[c]` (three quads,
// tap (i, j) in byte j of quad i, 0 in byte 3) are requantized with
// `scales[c]` and the clamp into outputs [0, out_plane); nothing past them
// is written.
struct DepthwiseUint8PlanarPattern {
  uint8_t index[64];
  uint64_t inside = 0;
};
struct DepthwiseUint8PlanarStep {
  int64_t base = 0;
  const DepthwiseUint8PlanarPattern* pattern = nullptr;
};
// A channel's requantization as the kernel uses it: 2 x multiplier,
// 2^right_shift, right_shift + 1 and right_shift - 31 (the multiplier is
// below 1, so right_shift >= 31).
struct DepthwiseUint8PlanarScale {
  int64_t multiplier2 = 0, half = 0, even_shift = 0, odd_shift = 0;
};
struct DepthwiseUint8Planar {
  const uint8_t* in = nullptr;
  int64_t in_plane = 0;
  uint8_t* out = nullptr;
  int64_t out_plane = 0;
  int64_t channels = 0;
  int64_t window = 128;
  const DepthwiseUint8PlanarStep* steps = nullptr;
  const int32_t* quads = nullptr;  // 3 per channel
  const int32_t* terms = nullptr;
  const DepthwiseUint8PlanarScale* scales = nullptr;
  int32_t zero_point = 0, lo = 0, hi = 255;
};
using DepthwiseUint8PlanarKernel = void (*)(const DepthwiseUint8Planar& planar);

// A uint8 convolution as an implicit GEMM (no im2col) on kQuantQuadsUint8
// words. The driver lays the input out as quads of channels: word
// input[q * quad_stride + P] holds channels 4q..4q+3 of one padded input
// position (uint8, zero-point padded), and every tap of the window is a
// fixed word offset, tap_offsets[t], from an output's "flat position" p (the
// driver picks the layout; see cpu/conv_2d_uint8_implicit.h). The product of
// row r (an output channel) and flat position p is
//   C[r][p] = sum over q < quads, t < taps of
//             dot(W(r, q * taps + t), input[q * quad_stride + tap_offsets[t] + p])
// exactly in int32 (uint8 input x int8 filter bytes). The filter words W
// come in blocks of kQuantConvRows rows (the last block has the rows left,
// 4 or 8), each block word-major: W(r, g) = filter[b * words +
// g * block_rows + r - b] for the block starting at row b, words = quads x
// taps, so a tile's rows of one word are adjacent. It is requantized by
// the rule of RequantizeRow with row r's term, multiplier and shift and
// column term column_terms[p] (none where null), and the byte goes to
// out[r * out_h * out_w + oh * out_w + ow] for p = oh * flat_width + ow with
// oh < out_h and ow < out_w; positions with ow >= out_w, rows r >=
// output.valid_rows and nothing else are written. Rows [row_begin, row_end) are
// computed (multiples of kQuantGemmRows) for flat positions [col_begin,
// col_end) (multiples of kQuantGemmCols; row_begin a multiple of
// kQuantConvRows); the input must be readable there
// at every tap. Every row must meet RequantizeRow's conditions.
constexpr int kQuantConvRows = 12;
struct QuantizedConvTaps {
  const int32_t* filter = nullptr;
  const int32_t* input = nullptr;
  int64_t quads = 0, quad_stride = 0;
  const int64_t* tap_offsets = nullptr;
  int64_t taps = 0;
  int64_t row_begin = 0, row_end = 0;
  int64_t col_begin = 0, col_end = 0;
  // The output step as RequantizeTile's (count and out_stride unused):
  // column_terms are indexed by flat position, and row r's plane starts at
  // out + r * out_h * out_w.
  RequantizeTile output;
  int64_t flat_width = 0, out_h = 0, out_w = 0;
};
using QuantizedConvTapsKernel = void (*)(const QuantizedConvTaps& conv);

// Packs `count` positions of four channel rows into quad words: byte l of
// dst[i] is rows[l][step * i] (step 1 or 2; rows are readable up to index
// step * (count - 1)).
using QuantizedQuadPackKernel = void (*)(const uint8_t* const* rows, int64_t step, int64_t count,
                                         int32_t* dst);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_QUANTIZED_MICRO_KERNELS_H_
