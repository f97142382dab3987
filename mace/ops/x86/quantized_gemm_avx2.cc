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
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

constexpr int kTileCols = 16;

// The loops over the rows are unrolled so that the accumulators stay in
// registers (at -O2 GCC would otherwise keep them on the stack).
template <int Rows>
inline void Tile(const int32_t* a, int64_t groups, const int32_t* b, int64_t cols, int32_t* c) {
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
#pragma GCC unroll 6
  for (int r = 0; r < Rows; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * cols), acc0[r]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + r * cols + 8), acc1[r]);
  }
}

}  // namespace

void Avx2QuantizedGemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                       int64_t cols, int32_t* c) {
  for (int64_t col = 0; col < cols; col += kTileCols) {
    const int32_t* strip = b + col;
    int64_t row = 0;
    for (; row + 6 <= rows; row += 6) {
      Tile<6>(a + row * groups, groups, strip, cols, c + row * cols + col);
    }
    // rows is a multiple of 4: what is left is 0, 2 or 4 rows.
    if (rows - row == 4) {
      Tile<4>(a + row * groups, groups, strip, cols, c + row * cols + col);
    } else if (rows - row == 2) {
      Tile<2>(a + row * groups, groups, strip, cols, c + row * cols + col);
    }
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
