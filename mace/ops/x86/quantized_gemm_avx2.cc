// The uint8 GEMM on AVX2 (kQuantPairsInt16): vpmaddwd multiplies the int16
// pairs of eight columns by a broadcast pair of a row and adds each pair,
// exactly, into int32 lanes.
//
// Register blocking: a tile is 6 rows x 16 columns, twelve int32
// accumulators, two column vectors and one broadcast row pair (with the
// product's temporary, all sixteen ymm registers). Rows come in multiples of
// kQuantGemmRows (4), so the last tile of a call may have 2 or 4 rows.
//
// Loop order: columns outside, rows inside. A strip of 16 columns over the
// whole reduction (64 bytes per word group) stays in L1 while every row
// tile of the call multiplies it; the filter rows stream from L2.
//
// Avx2QuantizedGemmRequant requantizes each tile's accumulators in
// registers (the step of requantize_avx2.h) and stores bytes, only for the
// valid rows and columns; tiles wholly past them are skipped.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/requantize_avx2.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

constexpr int kTileCols = 16;

// The tile at row0, col0: its sums go to c (rows of `cols` sums), or with
// Fused its bytes to `tile` (see QuantizedGemmRequantKernel).
// The loops over the rows are unrolled so that the accumulators stay in
// registers (at -O2 GCC would otherwise keep them on the stack).
template <int Rows, bool Fused>
inline void Tile(const int32_t* a, int64_t groups, const int32_t* b, int64_t cols, int32_t* c,
                 const RequantizeTile* tile, int64_t row0, int64_t col0) {
  __m256i acc0[Rows], acc1[Rows];
#pragma GCC unroll 6
  for (int r = 0; r < Rows; ++r) {
    acc0[r] = _mm256_setzero_si256();
    acc1[r] = _mm256_setzero_si256();
  }
  for (int64_t g = 0; g < groups; ++g) {
    const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 8));
    b += cols;
#pragma GCC unroll 6
    for (int r = 0; r < Rows; ++r) {
      const __m256i w = _mm256_set1_epi32(a[r * groups + g]);
      acc0[r] = _mm256_add_epi32(acc0[r], _mm256_madd_epi16(w, x0));
      acc1[r] = _mm256_add_epi32(acc1[r], _mm256_madd_epi16(w, x1));
    }
  }
  if (!Fused) {
#pragma GCC unroll 6
    for (int r = 0; r < Rows; ++r) {
      int32_t* sums = c + (row0 + r) * cols + col0;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums), acc0[r]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + 8), acc1[r]);
    }
    return;
  }
  const int64_t left = tile->count - col0;  // > 0
  __m256i terms0 = _mm256_setzero_si256(), terms1 = _mm256_setzero_si256();
  if (tile->column_terms != nullptr) {
    // The column terms cover the call's columns, valid or not.
    terms0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tile->column_terms + col0));
    terms1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tile->column_terms + col0 + 8));
  }
  const Avx2RequantizeClamp clamp = Avx2MakeRequantizeClamp(tile->zero_point, tile->lo, tile->hi);
  const int64_t valid_rows = tile->valid_rows - row0;
  uint8_t* out = tile->out + row0 * tile->out_stride + col0;
#pragma GCC unroll 6
  for (int r = 0; r < Rows; ++r) {
    if (r >= valid_rows) break;
    const int64_t row = row0 + r;
    const Avx2RequantizeScale scale =
        Avx2MakeRequantizeScale(tile->multipliers[row], tile->right_shifts[row]);
    const __m256i row_term = _mm256_set1_epi32(tile->row_terms[row]);
    const int64_t low = Avx2PackBytes(
        Avx2Requantize(_mm256_add_epi32(_mm256_add_epi32(acc0[r], row_term), terms0), scale, clamp));
    const int64_t high = Avx2PackBytes(
        Avx2Requantize(_mm256_add_epi32(_mm256_add_epi32(acc1[r], row_term), terms1), scale, clamp));
    if (left >= 16) {
      __builtin_memcpy(out, &low, 8);
      __builtin_memcpy(out + 8, &high, 8);
    } else {
      uint8_t bytes[16];
      __builtin_memcpy(bytes, &low, 8);
      __builtin_memcpy(bytes + 8, &high, 8);
      for (int64_t j = 0; j < left; ++j) out[j] = bytes[j];
    }
    out += tile->out_stride;
  }
}

template <bool Fused>
void Gemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups, int64_t cols,
          int32_t* c, const RequantizeTile* tile) {
  for (int64_t col = 0; col < cols; col += kTileCols) {
    if (Fused && col >= tile->count) break;
    const int32_t* strip = b + col;
    int64_t row = 0;
    for (; row + 6 <= rows; row += 6) {
      if (Fused && row >= tile->valid_rows) break;
      Tile<6, Fused>(a + row * groups, groups, strip, cols, c, tile, row, col);
    }
    if (Fused && row >= tile->valid_rows) continue;
    // rows is a multiple of 4: what is left is 0, 2 or 4 rows.
    if (rows - row == 4) {
      Tile<4, Fused>(a + row * groups, groups, strip, cols, c, tile, row, col);
    } else if (rows - row == 2) {
      Tile<2, Fused>(a + row * groups, groups, strip, cols, c, tile, row, col);
    }
  }
}

}  // namespace

void Avx2QuantizedGemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                       int64_t cols, int32_t* c) {
  Gemm<false>(a, b, rows, groups, cols, c, nullptr);
}

void Avx2QuantizedGemmRequant(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                              int64_t cols, const RequantizeTile& tile) {
  Gemm<true>(a, b, rows, groups, cols, nullptr, &tile);
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
