// The AVX-512 SGEMM micro-kernel (8 x 32 tile).
//
// Per k step it loads 32 B values into two vectors, broadcasts each of the
// 8 A values and issues 16 FMAs: 8 cycles on the two 512-bit FMA ports, in
// which the 10 loads take 10 of the 16 load-port slots. Sixteen accumulators
// are twice the FMA latency (4 cycles) times the ports, so nothing stalls.
//
// Why not a taller tile that fills the 32 ZMM registers (14 x 32, 28
// accumulators)? Nothing here is load-bound, so the extra reuse buys little,
// while GEMM rows are output channels, nearly always multiples of 8: with 14
// rows, 16, 32 or 64 channels compute 28, 42 or 70 rows (57-91 % useful), and
// with 8 rows none is wasted. Through the GEMM driver on a Sapphire Rapids
// class core 8 x 32 matched 14 x 32 on large square products and was 10-20 %
// faster on MobileNet-like 1x1 layers with 24-64 output channels. A wider
// tile (8 x 48) wastes half of a 7 x 7 feature map's 49 columns.
//
// Built with AVX-512 flags: it includes nothing but the intrinsics and the
// plain structs of micro_kernels.h, and its helpers are static, so no inline
// function compiled here can be merged into baseline code.

#include "mace/ops/x86/avx512_intrinsics.h"
// After the intrinsics: its own <immintrin.h> is then a no-op.
#include "mace/ops/x86/avx2_epilogue.h"
#include "mace/ops/x86/avx512_epilogue.h"
#include "mace/ops/x86/avx512_kernels.h"
#include "mace/ops/x86/column_tail.h"
#include "mace/ops/x86/gemm_a_source.h"

namespace mace {
namespace ops {
namespace x86 {

// Applies X to each of the tile's 8 row indices.
#define MACE_AVX512_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

#define MACE_AVX512_ZERO(i) __m512 c##i##0 = _mm512_setzero_ps(), c##i##1 = _mm512_setzero_ps();

#define MACE_AVX512_PREFETCH_C(i)                                               \
  if constexpr ((i) < kRows) {                                                  \
    _mm_prefetch(reinterpret_cast<const char*>(c + (i)*ldc), _MM_HINT_T0);      \
    _mm_prefetch(reinterpret_cast<const char*>(c + (i)*ldc + 31), _MM_HINT_T0); \
  }

#define MACE_AVX512_ROW(i)                               \
  if constexpr ((i) < kRows) {                           \
    const __m512 ai = _mm512_set1_ps(a.At(i, a_offset)); \
    c##i##0 = _mm512_fmadd_ps(ai, b0, c##i##0);          \
    c##i##1 = _mm512_fmadd_ps(ai, b1, c##i##1);          \
  }

#define MACE_AVX512_STEP(offset)                               \
  {                                                            \
    const __m512 b0 = _mm512_loadu_ps(b + 32 * (offset));      \
    const __m512 b1 = _mm512_loadu_ps(b + 32 * (offset) + 16); \
    constexpr int a_offset = (offset);                         \
    MACE_AVX512_ROWS(MACE_AVX512_ROW)                          \
  }

// Bias and activation of row i's two vectors, once the reduction is done.
// (A partial tile activates its second vector even when it stores only the
// first: a few instructions on an edge tile, one epilogue to maintain.)
#define MACE_AVX512_FINISH(i)                                   \
  if (epilogue.last) {                                          \
    if (epilogue.row_bias != nullptr) {                         \
      const __m512 bias = _mm512_set1_ps(epilogue.row_bias[i]); \
      c##i##0 = _mm512_add_ps(c##i##0, bias);                   \
      c##i##1 = _mm512_add_ps(c##i##1, bias);                   \
    }                                                           \
    if (epilogue.col_bias != nullptr) {                         \
      c##i##0 = _mm512_add_ps(c##i##0, col_bias0);              \
      c##i##1 = _mm512_add_ps(c##i##1, col_bias1);              \
    }                                                           \
    c##i##0 = Avx512Activate(c##i##0, epilogue);                \
    c##i##1 = Avx512Activate(c##i##1, epilogue);                \
  }

#define MACE_AVX512_STORE(i)                                       \
  if constexpr ((i) < kRows) {                                     \
    float* row = c + (i)*ldc;                                      \
    if (epilogue.accumulate) {                                     \
      c##i##0 = _mm512_add_ps(c##i##0, _mm512_loadu_ps(row));      \
      c##i##1 = _mm512_add_ps(c##i##1, _mm512_loadu_ps(row + 16)); \
    }                                                              \
    MACE_AVX512_FINISH(i)                                          \
    _mm512_storeu_ps(row, c##i##0);                                \
    _mm512_storeu_ps(row + 16, c##i##1);                           \
  }

namespace {

// The first kRows rows of the tile (a last row panel of fewer than 8 rows
// reads a packed A padded to 8).
template <class A, int kRows = 8>
inline void Gemm8x32Tile(int64_t kc, A a, const float* b, float* c, int64_t ldc,
                         const TileEpilogue& epilogue) {
  // C is touched only after the reduction; start fetching it now so its
  // misses overlap the FMAs.
  MACE_AVX512_ROWS(MACE_AVX512_PREFETCH_C)
  MACE_AVX512_ROWS(MACE_AVX512_ZERO)
  int64_t k = 0;
  // Unrolled by four so loop overhead does not steal issue slots from FMAs.
  // Four steps read two cache lines of a packed A; with a next panel to
  // fetch, the loop asks for the same two lines of it, so the whole slice
  // arrives in step with this tile's reduction instead of in one burst of
  // misses.
  if (const float* next = epilogue.prefetch_a) {
    for (; k + 4 <= kc; k += 4) {
      _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(next + 16), _MM_HINT_T0);
      next += 4 * 8;
      MACE_AVX512_STEP(0) MACE_AVX512_STEP(1) MACE_AVX512_STEP(2) MACE_AVX512_STEP(3) a.Advance(4);
      b += 4 * 32;
    }
  }
  for (; k + 4 <= kc; k += 4) {
    MACE_AVX512_STEP(0) MACE_AVX512_STEP(1) MACE_AVX512_STEP(2) MACE_AVX512_STEP(3) a.Advance(4);
    b += 4 * 32;
  }
  for (; k < kc; ++k) {
    MACE_AVX512_STEP(0)
    a.Advance(1);
    b += 32;
  }
  __m512 col_bias0 = _mm512_setzero_ps(), col_bias1 = _mm512_setzero_ps();
  if (epilogue.last && epilogue.col_bias != nullptr) {
    col_bias0 = _mm512_loadu_ps(epilogue.col_bias);
    col_bias1 = _mm512_loadu_ps(epilogue.col_bias + 16);
  }
  MACE_AVX512_ROWS(MACE_AVX512_STORE)
}

}  // namespace

void Avx512Gemm8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                    const TileEpilogue& epilogue) {
  Gemm8x32Tile(kc, PanelA<8>{a}, b, c, ldc, epilogue);
}

// The same steps in the same order, each A value broadcast from its row of
// the unpacked operand.
void Avx512Gemm8x32DirectA(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                           int64_t ldc, const TileEpilogue& epilogue) {
  Gemm8x32Tile(kc, RowsA{a, lda}, b, c, ldc, epilogue);
}

// Partial tiles: kWide covers up to 32 columns with two vectors, else up to
// 16 with one (half the multiply-adds). Columns past `cols` are masked off
// in every access to C and col_bias, rows past `rows` skipped.
#define MACE_AVX512_PARTIAL_ROW(i)                         \
  {                                                        \
    const __m512 ai = _mm512_set1_ps(a_step[i]);           \
    c##i##0 = _mm512_fmadd_ps(ai, b0, c##i##0);            \
    if (kWide) c##i##1 = _mm512_fmadd_ps(ai, b1, c##i##1); \
  }

#define MACE_AVX512_PARTIAL_STEP(offset)                        \
  {                                                             \
    const float* b_row = b_rows.Row(k + (offset));              \
    const __m512 b0 = _mm512_loadu_ps(b_row);                   \
    const __m512 b1 = kWide ? _mm512_loadu_ps(b_row + 16) : b0; \
    const float* a_step = a + 8 * (offset);                     \
    MACE_AVX512_ROWS(MACE_AVX512_PARTIAL_ROW)                   \
  }

#define MACE_AVX512_PARTIAL_STORE(i)                                                       \
  if ((i) < rows) {                                                                        \
    float* row = c + (i)*ldc;                                                              \
    if (epilogue.accumulate) {                                                             \
      c##i##0 = _mm512_add_ps(c##i##0, _mm512_maskz_loadu_ps(mask0, row));                 \
      if (kWide) c##i##1 = _mm512_add_ps(c##i##1, _mm512_maskz_loadu_ps(mask1, row + 16)); \
    }                                                                                      \
    MACE_AVX512_FINISH(i)                                                                  \
    _mm512_mask_storeu_ps(row, mask0, c##i##0);                                            \
    if (kWide) _mm512_mask_storeu_ps(row + 16, mask1, c##i##1);                            \
  }

// Where a partial tile finds B's k-th row: in a packed panel, or in place
// through per-step offsets (a direct convolution's taps).
struct PanelRows {
  const float* b;
  const float* Row(int64_t k) const { return b + 32 * k; }
};
struct OffsetRows {
  const float* base;
  const int64_t* offsets;
  const float* Row(int64_t k) const { return base + offsets[k]; }
};

template <bool kWide, typename BRows>
static inline void Avx512Partial8x32(int64_t kc, const float* a, BRows b_rows, float* c,
                                     int64_t ldc, int rows, int cols,
                                     const TileEpilogue& epilogue) {
  const __mmask16 mask0 = static_cast<__mmask16>((1u << (cols < 16 ? cols : 16)) - 1);
  const __mmask16 mask1 = static_cast<__mmask16>((1u << (cols > 16 ? cols - 16 : 0)) - 1);
  MACE_AVX512_ROWS(MACE_AVX512_ZERO)
  int64_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    MACE_AVX512_PARTIAL_STEP(0)
    MACE_AVX512_PARTIAL_STEP(1)
    MACE_AVX512_PARTIAL_STEP(2)
    MACE_AVX512_PARTIAL_STEP(3)
    a += 4 * 8;
  }
  for (; k < kc; ++k) {
    MACE_AVX512_PARTIAL_STEP(0)
    a += 8;
  }
  __m512 col_bias0 = _mm512_setzero_ps(), col_bias1 = _mm512_setzero_ps();
  if (epilogue.last && epilogue.col_bias != nullptr) {
    col_bias0 = _mm512_maskz_loadu_ps(mask0, epilogue.col_bias);
    col_bias1 = _mm512_maskz_loadu_ps(mask1, epilogue.col_bias + 16);
  }
  MACE_AVX512_ROWS(MACE_AVX512_PARTIAL_STORE)
}

// The last kCols (< 8) columns of a partial tile (ColumnTailSums): a step
// costs kCols multiply-adds where a masked 16-wide vector costs 8. A 7 x 7
// map (49 columns) computes 32 + 16 + 1 columns instead of 64, a 14 x 14
// one 192 + 4 instead of 224.
template <int kCols>
static inline void Avx512Columns8(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                                  int rows, const TileEpilogue& epilogue) {
  __m256 sums[kCols];
  ColumnTailSums<8, 32, kCols>(kc, a, b, sums);
  // Column j of C is rows strided by ldc: gathered and scattered once per
  // tile, rows past `rows` masked off.
  const __mmask8 row_mask = static_cast<__mmask8>((1u << rows) - 1);
  const __m512i offsets =
      _mm512_set_epi64(7 * ldc, 6 * ldc, 5 * ldc, 4 * ldc, 3 * ldc, 2 * ldc, ldc, 0);
  __m256 row_bias = _mm256_setzero_ps();
  if (epilogue.last && epilogue.row_bias != nullptr) {
    row_bias = _mm256_maskz_loadu_ps(row_mask, epilogue.row_bias);
  }
#pragma GCC unroll 8
  for (int j = 0; j < kCols; ++j) {
    __m256 v = sums[j];
    if (epilogue.accumulate) {
      v = _mm256_add_ps(v,
                        _mm512_mask_i64gather_ps(_mm256_setzero_ps(), row_mask, offsets, c + j, 4));
    }
    if (epilogue.last) {
      v = _mm256_add_ps(v, row_bias);
      if (epilogue.col_bias != nullptr) v = _mm256_add_ps(v, _mm256_set1_ps(epilogue.col_bias[j]));
      v = Avx2Activate(v, epilogue);
    }
    _mm512_mask_i64scatter_ps(c + j, row_mask, offsets, v, 4);
  }
}

// `cols` < 8 columns starting at column `first` of the tile.
static void Avx512Columns(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                          int rows, int first, int cols, const TileEpilogue& epilogue) {
  TileEpilogue shifted = epilogue;
  if (shifted.col_bias != nullptr) shifted.col_bias += first;
  b += first;
  c += first;
  switch (cols) {
    case 1:
      return Avx512Columns8<1>(kc, a, b, c, ldc, rows, shifted);
    case 2:
      return Avx512Columns8<2>(kc, a, b, c, ldc, rows, shifted);
    case 3:
      return Avx512Columns8<3>(kc, a, b, c, ldc, rows, shifted);
    case 4:
      return Avx512Columns8<4>(kc, a, b, c, ldc, rows, shifted);
    case 5:
      return Avx512Columns8<5>(kc, a, b, c, ldc, rows, shifted);
    case 6:
      return Avx512Columns8<6>(kc, a, b, c, ldc, rows, shifted);
    default:
      return Avx512Columns8<7>(kc, a, b, c, ldc, rows, shifted);
  }
}

// A tile of all 32 columns and fewer rows runs the 8 x 32 tile over its
// rows. Otherwise, per k step: a whole 16-column vector costs 8
// multiply-adds, and a tail of t < 8 columns t more by columns, so 17-23
// columns are 16 + columns and 1-7 columns are columns alone.
void Avx512GemmPartial8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                           int rows, int cols, const TileEpilogue& epilogue) {
  if (cols == 32) {
    const PanelA<8> panel{a};
    switch (rows) {
      case 1:
        return Gemm8x32Tile<PanelA<8>, 1>(kc, panel, b, c, ldc, epilogue);
      case 2:
        return Gemm8x32Tile<PanelA<8>, 2>(kc, panel, b, c, ldc, epilogue);
      case 3:
        return Gemm8x32Tile<PanelA<8>, 3>(kc, panel, b, c, ldc, epilogue);
      case 4:
        return Gemm8x32Tile<PanelA<8>, 4>(kc, panel, b, c, ldc, epilogue);
      case 5:
        return Gemm8x32Tile<PanelA<8>, 5>(kc, panel, b, c, ldc, epilogue);
      case 6:
        return Gemm8x32Tile<PanelA<8>, 6>(kc, panel, b, c, ldc, epilogue);
      default:
        return Gemm8x32Tile<PanelA<8>, 7>(kc, panel, b, c, ldc, epilogue);
    }
  }
  const int tail = cols % 16;
  if (tail == 0 || tail >= 8) {
    if (cols > 16) {
      Avx512Partial8x32<true>(kc, a, PanelRows{b}, c, ldc, rows, cols, epilogue);
    } else {
      Avx512Partial8x32<false>(kc, a, PanelRows{b}, c, ldc, rows, cols, epilogue);
    }
    return;
  }
  if (cols > 16) Avx512Partial8x32<false>(kc, a, PanelRows{b}, c, ldc, rows, 16, epilogue);
  Avx512Columns(kc, a, b, c, ldc, rows, cols - tail, tail, epilogue);
}

// A direct convolution's tile: the partial kernel reading B in place. Its
// reduction is a single block, so the tile is written once.
void Avx512ConvRows8x32(int64_t kc, const float* a, const float* base, const int64_t* offsets,
                        float* c, int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) {
  TileEpilogue once = epilogue;
  once.accumulate = false;
  once.last = true;
  if (cols > 16) {
    Avx512Partial8x32<true>(kc, a, OffsetRows{base, offsets}, c, ldc, rows, cols, once);
  } else {
    Avx512Partial8x32<false>(kc, a, OffsetRows{base, offsets}, c, ldc, rows, cols, once);
  }
}

#undef MACE_AVX512_PARTIAL_ROW
#undef MACE_AVX512_PARTIAL_STEP
#undef MACE_AVX512_PARTIAL_STORE
#undef MACE_AVX512_ROWS
#undef MACE_AVX512_ZERO
#undef MACE_AVX512_PREFETCH_C
#undef MACE_AVX512_ROW
#undef MACE_AVX512_STEP
#undef MACE_AVX512_STORE
#undef MACE_AVX512_FINISH

}  // namespace x86
}  // namespace ops
}  // namespace mace
