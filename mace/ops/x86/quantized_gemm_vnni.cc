// The uint8 GEMM with AVX-512 VNNI (kQuantQuadsUint8): vpdpbusd multiplies
// four uint8 input values by four int8 weights and adds the four products
// into an int32 lane, sixteen lanes at a time. The function is compiled for
// AVX-512 F and VNNI by its target attribute, so the rest of this library
// keeps the AVX2 flags; it is called only where cpu_features.h found VNNI
// (kernel_table.cc).
//
// Register blocking: a tile is 12 rows x 32 columns, 24 int32 accumulators
// in zmm registers plus the two column vectors of a word group; each filter
// word is broadcast straight from memory into the vpdpbusd. Rows come in
// multiples of kQuantGemmRows (4), so the last tile of a call may have 4 or
// 8 rows; columns come in multiples of 32.
//
// Loop order, as in the AVX2 kernel: columns outside, rows inside, so a
// 32-column strip of the panel (128 bytes per word group) stays in L1 while
// every row tile passes over it, and the driver requantizes each column
// block while its sums are in cache.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

constexpr int kTileCols = 32;
constexpr int kTileRows = 12;

// The loops over the rows are unrolled so that the accumulators stay in
// registers.
template <int Rows>
__attribute__((target("avx512f,avx512vnni"), always_inline)) inline void VnniTile(
    const int32_t* a, int64_t groups, const int32_t* b, int64_t cols, int32_t* c) {
  __m512i acc0[Rows], acc1[Rows];
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r) {
    acc0[r] = _mm512_setzero_si512();
    acc1[r] = _mm512_setzero_si512();
  }
  for (int64_t g = 0; g < groups; ++g) {
    const __m512i x0 = _mm512_loadu_si512(b);
    const __m512i x1 = _mm512_loadu_si512(b + 16);
    b += cols;
#pragma GCC unroll 12
    for (int r = 0; r < Rows; ++r) {
      const __m512i w = _mm512_set1_epi32(a[r * groups + g]);
      acc0[r] = _mm512_dpbusd_epi32(acc0[r], x0, w);
      acc1[r] = _mm512_dpbusd_epi32(acc1[r], x1, w);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r) {
    _mm512_storeu_si512(c + r * cols, acc0[r]);
    _mm512_storeu_si512(c + r * cols + 16, acc1[r]);
  }
}

}  // namespace

__attribute__((target("avx512f,avx512vnni"))) void VnniQuantizedGemm(
    const int32_t* a, const int32_t* b, int64_t rows, int64_t groups, int64_t cols, int32_t* c) {
  for (int64_t col = 0; col < cols; col += kTileCols) {
    const int32_t* strip = b + col;
    int64_t row = 0;
    for (; row + kTileRows <= rows; row += kTileRows) {
      VnniTile<kTileRows>(a + row * groups, groups, strip, cols, c + row * cols + col);
    }
    // rows is a multiple of 4: what is left is 0, 4 or 8 rows.
    if (rows - row == 8) {
      VnniTile<8>(a + row * groups, groups, strip, cols, c + row * cols + col);
    } else if (rows - row == 4) {
      VnniTile<4>(a + row * groups, groups, strip, cols, c + row * cols + col);
    }
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
