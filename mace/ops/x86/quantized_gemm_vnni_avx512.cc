// The uint8 GEMM with AVX-512 VNNI (kQuantQuadsUint8): vpdpbusd multiplies
// four uint8 input values by four int8 weights and adds the four products
// into an int32 lane, sixteen lanes at a time. The file is built with the
// AVX-512 F/VL/DQ flags; the functions add VNNI and BW by their target
// attribute and are called only where cpu_features.h found VNNI
// (kernel_table.cc): every CPU with AVX-512 VNNI has BW as well.
//
// Register blocking: a tile is 12 rows x 32 columns, 24 int32 accumulators
// in zmm registers plus the two column vectors of a word group; each filter
// word is broadcast straight from memory into the vpdpbusd. Rows come in
// multiples of kQuantGemmRows (4), so the last tile of a call may have 4 or
// 8 rows; columns come in multiples of 32.
//
// Loop order: columns outside, rows inside, so a 32-column strip of the
// panel (128 bytes per word group) stays in L1 while every row tile passes
// over it.
//
// VnniQuantizedGemm stores the int32 sums. VnniQuantizedGemmRequant
// instead starts each row's accumulators from its term, adds the column
// terms (where there are any) after the reduction, requantizes the tile in
// registers (the step of requantize_avx512.h, per row its own multiplier;
// without the sign steps where the clamp starts at or above the zero
// point; the clamp on saturating packs to bytes) and stores bytes, under
// masks for the rows and columns past the valid ones; tiles wholly past
// the valid columns are skipped.
#include <algorithm>
#include <vector>

#include "mace/ops/x86/avx512_kernels.h"
#include "mace/ops/x86/requantize_avx512.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

constexpr int kTileCols = 32;
constexpr int kTileRows = 12;

// Bytes of the lanes below `valid` (clamped to [0, 16]).
inline __mmask16 LaneMask(int64_t valid) {
  if (valid >= 16) return 0xFFFF;
  if (valid <= 0) return 0;
  return static_cast<__mmask16>((1u << valid) - 1);
}

// A row's output scale as requantize_avx512.h builds it, kept in memory
// once per call: the tiles broadcast it from there (loads, no shuffles)
// and shift by per-lane counts (vpsrlvq, one uop, where a shift by an xmm
// count takes two), which for the same counts give the same results (0
// for a count of 64 or more, which a negative count is as unsigned).
struct RowScale {
  int64_t multiplier, half, even_shift, odd_shift;
};

// The requantized value before the clamp and the zero point: the rounded
// product of requantize_avx512.h with the sign of x (0 for x < 0 where
// AboveZero).
template <bool AboveZero>
__attribute__((target("avx512bw"), always_inline)) inline __m512i RequantizeValue(
    __m512i x, const RowScale& s) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i magnitude = AboveZero ? _mm512_max_epi32(x, zero) : _mm512_abs_epi32(x);
  const __m512i multiplier = _mm512_set1_epi64(s.multiplier);
  const __m512i half = _mm512_set1_epi64(s.half);
  const __m512i even = _mm512_srlv_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(magnitude, multiplier), half),
      _mm512_set1_epi64(s.even_shift));
  const __m512i odd = _mm512_srlv_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(magnitude, 32), multiplier), half),
      _mm512_set1_epi64(s.odd_shift));
  const __m512i rounded = _mm512_mask_blend_epi32(0xAAAA, even, odd);
  if (AboveZero) return rounded;
  return _mm512_mask_sub_epi32(rounded, _mm512_cmplt_epi32_mask(x, zero), zero, rounded);
}

// The tile at row0, col0: its sums go to c (rows of `cols` sums), or with
// Fused its bytes to `tile`.
// The loops over the rows are unrolled so that the accumulators stay in
// registers.
// With Fused the accumulators start from each row's term (the sums are
// exact modulo 2^32, so the order of the additions does not matter), and
// AboveZero picks the output step for a clamp whose low end is at or above
// the zero point. Without Wide (only with Fused) the tile is the strip's
// first 16 columns, where the valid ones end within them.
template <int Rows, bool Fused, bool AboveZero, bool Wide = true>
__attribute__((target("avx512vnni,avx512bw"), always_inline)) inline void VnniTile(
    const int32_t* a, int64_t groups, const int32_t* b, int64_t cols, int32_t* c,
    const RequantizeTile* tile, const RowScale* scales, int64_t row0, int64_t col0) {
  __m512i acc0[Rows], acc1[Rows];
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r) {
    // Rows past the valid ones may have no term.
    acc0[r] = Fused && row0 + r < tile->valid_rows ? _mm512_set1_epi32(tile->row_terms[row0 + r])
                                                   : _mm512_setzero_si512();
    acc1[r] = acc0[r];
  }
  for (int64_t g = 0; g < groups; ++g) {
    const __m512i x0 = _mm512_loadu_si512(b);
    const __m512i x1 = Wide ? _mm512_loadu_si512(b + 16) : x0;
    b += cols;
#pragma GCC unroll 12
    for (int r = 0; r < Rows; ++r) {
      const __m512i w = _mm512_set1_epi32(a[r * groups + g]);
      acc0[r] = _mm512_dpbusd_epi32(acc0[r], x0, w);
      if (Wide) acc1[r] = _mm512_dpbusd_epi32(acc1[r], x1, w);
    }
  }
  if (!Fused) {
#pragma GCC unroll 12
    for (int r = 0; r < Rows; ++r) {
      int32_t* sums = c + (row0 + r) * cols + col0;
      _mm512_storeu_si512(sums, acc0[r]);
      _mm512_storeu_si512(sums + 16, acc1[r]);
    }
    return;
  }
  const int64_t left = tile->count - col0;
  const __mmask16 mask0 = LaneMask(left), mask1 = LaneMask(left - 16);
  if (tile->column_terms != nullptr) {
    const __m512i terms0 = _mm512_maskz_loadu_epi32(mask0, tile->column_terms + col0);
    const __m512i terms1 = _mm512_maskz_loadu_epi32(mask1, tile->column_terms + col0 + 16);
#pragma GCC unroll 12
    for (int r = 0; r < Rows; ++r) {
      acc0[r] = _mm512_add_epi32(acc0[r], terms0);
      if (Wide) acc1[r] = _mm512_add_epi32(acc1[r], terms1);
    }
  }
  // The clamp and the narrowing on bytes: the two rows of sums packed
  // with signed saturation to int16, the zero point added with saturation,
  // packed to uint8 with unsigned saturation, then clamped to [lo, hi].
  // Each saturation only moves values already beyond 0 .. 255 (the zero
  // point is 0 .. 255), so this is the clamp of requantize_avx512.h.
  const __m512i zero_point = _mm512_set1_epi16(static_cast<int16_t>(tile->zero_point));
  const __m256i lo = _mm256_set1_epi8(static_cast<char>(tile->lo));
  const __m256i hi = _mm256_set1_epi8(static_cast<char>(tile->hi));
  // After the packs, 128-bit lane i holds columns 4i .. 4i + 3 in dword 0
  // and 16 + 4i .. 16 + 4i + 3 in dword 1.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
  const __mmask32 mask = mask0 | (Wide ? static_cast<__mmask32>(mask1) << 16 : 0);
  const int64_t valid_rows = tile->valid_rows - row0;
  uint8_t* out = tile->out + row0 * tile->out_stride + col0;
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r) {
    if (r >= valid_rows) break;
    const int64_t row = row0 + r;
    const RowScale& scale = scales[row];
    const __m512i value0 = RequantizeValue<AboveZero>(acc0[r], scale);
    const __m512i value1 = Wide ? RequantizeValue<AboveZero>(acc1[r], scale) : value0;
    const __m512i words =
        _mm512_adds_epi16(_mm512_packs_epi32(value0, value1), zero_point);
    const __m256i bytes = _mm512_castsi512_si256(
        _mm512_permutexvar_epi32(order, _mm512_packus_epi16(words, words)));
    _mm256_mask_storeu_epi8(out, mask, _mm256_min_epu8(_mm256_max_epu8(bytes, lo), hi));
    out += tile->out_stride;
  }
}

// The row tiles of one strip: 32 columns, or with Wide false (Fused only)
// its first 16.
template <bool Fused, bool AboveZero, bool Wide>
__attribute__((target("avx512vnni,avx512bw"), always_inline)) inline void VnniRows(
    const int32_t* a, const int32_t* strip, int64_t rows, int64_t groups, int64_t cols,
    int32_t* c, const RequantizeTile* tile, const RowScale* scales, int64_t col) {
  int64_t row = 0;
  for (; row + kTileRows <= rows; row += kTileRows) {
    if (Fused && row >= tile->valid_rows) return;
    VnniTile<kTileRows, Fused, AboveZero, Wide>(a + row * groups, groups, strip, cols, c, tile,
                                                scales, row, col);
  }
  if (Fused && row >= tile->valid_rows) return;
  // rows is a multiple of 4: what is left is 0, 4 or 8 rows.
  if (rows - row == 8) {
    VnniTile<8, Fused, AboveZero, Wide>(a + row * groups, groups, strip, cols, c, tile, scales, row,
                                        col);
  } else if (rows - row == 4) {
    VnniTile<4, Fused, AboveZero, Wide>(a + row * groups, groups, strip, cols, c, tile, scales, row,
                                        col);
  }
}

template <bool Fused, bool AboveZero>
__attribute__((target("avx512vnni,avx512bw"))) void VnniGemm(const int32_t* a, const int32_t* b,
                                                     int64_t rows, int64_t groups, int64_t cols,
                                                     int32_t* c, const RequantizeTile* tile,
                                                     const RowScale* scales) {
  for (int64_t col = 0; col < cols; col += kTileCols) {
    if (Fused && col >= tile->count) break;
    const int32_t* strip = b + col;
    if constexpr (Fused) {
      if (tile->count - col <= 16) {
        // The valid columns end in the strip's first half.
        VnniRows<Fused, AboveZero, false>(a, strip, rows, groups, cols, c, tile, scales, col);
        continue;
      }
    }
    VnniRows<Fused, AboveZero, true>(a, strip, rows, groups, cols, c, tile, scales, col);
  }
}

}  // namespace

__attribute__((target("avx512vnni,avx512bw"))) void VnniQuantizedGemm(const int32_t* a, const int32_t* b,
                                                            int64_t rows, int64_t groups,
                                                            int64_t cols, int32_t* c) {
  VnniGemm<false, false>(a, b, rows, groups, cols, c, nullptr, nullptr);
}

__attribute__((target("avx512vnni,avx512bw"))) void VnniQuantizedGemmRequant(
    const int32_t* a, const int32_t* b, int64_t rows, int64_t groups, int64_t cols,
    const RequantizeTile& tile) {
  // Per thread, kept between calls.
  static thread_local std::vector<RowScale> scales;
  const int64_t valid_rows = std::min(rows, tile.valid_rows);
  if (scales.size() < static_cast<size_t>(valid_rows)) scales.resize(valid_rows);
  for (int64_t r = 0; r < valid_rows; ++r) {
    const int32_t shift = tile.right_shifts[r];
    scales[r].multiplier = int64_t{static_cast<uint32_t>(tile.multipliers[r])} * 2;
    scales[r].half = int64_t{1} << shift;
    scales[r].even_shift = shift + 1;
    scales[r].odd_shift = shift - 31;
  }
  if (tile.lo >= tile.zero_point) {
    VnniGemm<true, true>(a, b, rows, groups, cols, nullptr, &tile, scales.data());
  } else {
    VnniGemm<true, false>(a, b, rows, groups, cols, nullptr, &tile, scales.data());
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
