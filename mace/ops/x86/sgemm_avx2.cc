// The AVX2/FMA SGEMM micro-kernel (6 x 16 tile).
//
// Per k step it loads 16 B values into two vectors, broadcasts each of the
// 6 A values and issues 12 FMAs: two FMA ports stay busy for 6 cycles while
// the loads (2 + 6 broadcasts) fit the two load ports. The packed panels are
// read sequentially, which the hardware prefetcher follows.
#include <immintrin.h>

#include "mace/ops/x86/avx2_asm.h"
#include "mace/ops/x86/avx2_epilogue.h"
#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/column_tail.h"

namespace mace {
namespace ops {
namespace x86 {

// The tile's 12 accumulators, c<row><vector>, zeroed.
#define MACE_AVX2_ZERO_TILE                                    \
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(); \
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps(); \
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(); \
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps(); \
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps(); \
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();

// Bias and activation of row i's two vectors, once the reduction is done.
// (A partial tile activates its second vector even when it stores only the
// first: a few instructions on an edge tile, one epilogue to maintain.)
#define MACE_AVX2_FINISH(i)                                             \
  if (epilogue.last) {                                                  \
    if (epilogue.row_bias != nullptr) {                                 \
      const __m256 bias = _mm256_broadcast_ss(epilogue.row_bias + (i)); \
      c##i##0 = _mm256_add_ps(c##i##0, bias);                           \
      c##i##1 = _mm256_add_ps(c##i##1, bias);                           \
    }                                                                   \
    if (epilogue.col_bias != nullptr) {                                 \
      c##i##0 = _mm256_add_ps(c##i##0, col_bias0);                      \
      c##i##1 = _mm256_add_ps(c##i##1, col_bias1);                      \
    }                                                                   \
    c##i##0 = Avx2Activate(c##i##0, epilogue);                          \
    c##i##1 = Avx2Activate(c##i##1, epilogue);                          \
  }

#define MACE_AVX2_STORE(i)                                        \
  {                                                               \
    float* row = c + (i)*ldc;                                     \
    if (epilogue.accumulate) {                                    \
      c##i##0 = _mm256_add_ps(c##i##0, _mm256_loadu_ps(row));     \
      c##i##1 = _mm256_add_ps(c##i##1, _mm256_loadu_ps(row + 8)); \
    }                                                             \
    MACE_AVX2_FINISH(i)                                           \
    _mm256_storeu_ps(row, c##i##0);                               \
    _mm256_storeu_ps(row + 8, c##i##1);                           \
  }

// The reduction's steps are written out in asm: GCC's code for the
// intrinsic loop kept one of the 12 accumulators on the stack, its chain of
// multiply-adds passing through a store and a load every four steps, and
// the direct-A loop reloaded row offsets from the stack too. Here the
// accumulators stay in ymm0-12 and a step's B vectors and broadcast use
// ymm13-15. A packed A holds a step's 6 values together (24 bytes a step);
// a plain A's rows 0-2 are at a + {0, 1, 2} * lda and rows 3-5 at a3 + {0,
// 1, 2} * lda, lda in bytes.
// clang-format off
#define MACE_AVX2_ASM_B(OFFSET)                     \
  "vmovups " #OFFSET "(%[b]), %%ymm13\n\t"          \
  "vmovups " #OFFSET "+32(%[b]), %%ymm14\n\t"
// A packed A's step over its first N rows (a tile of N < 6 rows reads a
// panel padded to 6).
#define MACE_AVX2_ASM_PANEL_ROWS1(A0, A1, A2, A3, A4, A5) \
  MACE_AVX2_ASM_FMA2(#A0 "(%[a])", c00, c01)
#define MACE_AVX2_ASM_PANEL_ROWS2(A0, A1, A2, A3, A4, A5) \
  MACE_AVX2_ASM_PANEL_ROWS1(A0, A1, A2, A3, A4, A5)       \
  MACE_AVX2_ASM_FMA2(#A1 "(%[a])", c10, c11)
#define MACE_AVX2_ASM_PANEL_ROWS3(A0, A1, A2, A3, A4, A5) \
  MACE_AVX2_ASM_PANEL_ROWS2(A0, A1, A2, A3, A4, A5)       \
  MACE_AVX2_ASM_FMA2(#A2 "(%[a])", c20, c21)
#define MACE_AVX2_ASM_PANEL_ROWS4(A0, A1, A2, A3, A4, A5) \
  MACE_AVX2_ASM_PANEL_ROWS3(A0, A1, A2, A3, A4, A5)       \
  MACE_AVX2_ASM_FMA2(#A3 "(%[a])", c30, c31)
#define MACE_AVX2_ASM_PANEL_ROWS5(A0, A1, A2, A3, A4, A5) \
  MACE_AVX2_ASM_PANEL_ROWS4(A0, A1, A2, A3, A4, A5)       \
  MACE_AVX2_ASM_FMA2(#A4 "(%[a])", c40, c41)
#define MACE_AVX2_ASM_PANEL_ROWS6(A0, A1, A2, A3, A4, A5) \
  MACE_AVX2_ASM_PANEL_ROWS5(A0, A1, A2, A3, A4, A5)       \
  MACE_AVX2_ASM_FMA2(#A5 "(%[a])", c50, c51)
#define MACE_AVX2_ASM_PANEL_STEP(N, BO, A0, A1, A2, A3, A4, A5) \
  MACE_AVX2_ASM_B(BO) MACE_AVX2_ASM_PANEL_ROWS##N(A0, A1, A2, A3, A4, A5)
#define MACE_AVX2_ASM_ROWS_STEP(BO, AO)               \
  MACE_AVX2_ASM_B(BO)                                 \
  MACE_AVX2_ASM_FMA2(#AO "(%[a])", c00, c01)          \
  MACE_AVX2_ASM_FMA2(#AO "(%[a],%[ld],1)", c10, c11)  \
  MACE_AVX2_ASM_FMA2(#AO "(%[a],%[ld],2)", c20, c21)  \
  MACE_AVX2_ASM_FMA2(#AO "(%[a3])", c30, c31)         \
  MACE_AVX2_ASM_FMA2(#AO "(%[a3],%[ld],1)", c40, c41) \
  MACE_AVX2_ASM_FMA2(#AO "(%[a3],%[ld],2)", c50, c51)
#define MACE_AVX2_ASM_PANEL_1(N)                             \
  MACE_AVX2_ASM_PANEL_STEP(N, 0, 0, 4, 8, 12, 16, 20)
#define MACE_AVX2_ASM_PANEL_4(N)                             \
  MACE_AVX2_ASM_PANEL_STEP(N, 0, 0, 4, 8, 12, 16, 20)        \
  MACE_AVX2_ASM_PANEL_STEP(N, 64, 24, 28, 32, 36, 40, 44)    \
  MACE_AVX2_ASM_PANEL_STEP(N, 128, 48, 52, 56, 60, 64, 68)   \
  MACE_AVX2_ASM_PANEL_STEP(N, 192, 72, 76, 80, 84, 88, 92)
#define MACE_AVX2_ASM_ROWS_4                                 \
  MACE_AVX2_ASM_ROWS_STEP(0, 0) MACE_AVX2_ASM_ROWS_STEP(64, 4) \
  MACE_AVX2_ASM_ROWS_STEP(128, 8) MACE_AVX2_ASM_ROWS_STEP(192, 12)
#define MACE_AVX2_ASM_TILE                                                   \
  [c00] "+x"(c00), [c01] "+x"(c01), [c10] "+x"(c10), [c11] "+x"(c11),       \
  [c20] "+x"(c20), [c21] "+x"(c21), [c30] "+x"(c30), [c31] "+x"(c31),       \
  [c40] "+x"(c40), [c41] "+x"(c41), [c50] "+x"(c50), [c51] "+x"(c51)
// One asm statement of steps: PANEL_OF(kRows) for a packed A, ROWS_TEXT
// for A's rows in place (whole tiles only). A tile of fewer rows still
// names all 12 accumulators; the ones past kRows stay zero.
#define MACE_AVX2_ASM_PANEL_IF(N, PANEL_OF)                                 \
  else if constexpr (kRows == N) {                                          \
    __asm__(PANEL_OF(N) : MACE_AVX2_ASM_TILE : [a] "r"(a), [b] "r"(b)       \
            : "xmm13", "xmm14", "xmm15", "memory");                         \
  }
#define MACE_AVX2_ASM_STEPS(PANEL_OF, ROWS_TEXT)                            \
  if constexpr (kRowsA) {                                                   \
    __asm__(ROWS_TEXT : MACE_AVX2_ASM_TILE                                  \
            : [a] "r"(a), [a3] "r"(a3), [ld] "r"(ld_bytes), [b] "r"(b)      \
            : "xmm13", "xmm14", "xmm15", "memory");                         \
  }                                                                         \
  MACE_AVX2_ASM_PANEL_IF(6, PANEL_OF) MACE_AVX2_ASM_PANEL_IF(5, PANEL_OF)   \
  MACE_AVX2_ASM_PANEL_IF(4, PANEL_OF) MACE_AVX2_ASM_PANEL_IF(3, PANEL_OF)   \
  MACE_AVX2_ASM_PANEL_IF(2, PANEL_OF) MACE_AVX2_ASM_PANEL_IF(1, PANEL_OF)
// clang-format on

namespace {

// kRowsA: A's rows read in place, lda floats apart; else a packed panel,
// of which the tile computes and stores the first kRows rows.
template <bool kRowsA, int kRows = 6>
inline void Gemm6x16Tile(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                         int64_t ldc, const TileEpilogue& epilogue) {
  const float* a3 = a + 3 * lda;
  const int64_t ld_bytes = lda * int64_t{sizeof(float)};
  // A step moves one value along each row, or past a panel's 6 values.
  constexpr int kAStep = kRowsA ? 1 : 6;
  // C is touched only after the reduction; start fetching it now so its
  // misses overlap the FMAs.
  static_assert(kRows >= 1 && kRows <= 6 && (kRows == 6 || !kRowsA), "rows of a tile");
  for (int i = 0; i < kRows; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 15), _MM_HINT_T0);
  }
  MACE_AVX2_ZERO_TILE
  int64_t k = 0;
  // Four steps at a time. Four steps read 1.5 cache lines of a packed A;
  // with a next panel to fetch, the loop asks for two lines of it from the
  // same offset (a line early every other time), so the slice arrives in
  // step with this tile's reduction.
  if (const float* next = epilogue.prefetch_a) {
    for (; k + 4 <= kc; k += 4) {
      _mm_prefetch(reinterpret_cast<const char*>(next), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(next + 16), _MM_HINT_T0);
      next += 24;
      MACE_AVX2_ASM_STEPS(MACE_AVX2_ASM_PANEL_4, MACE_AVX2_ASM_ROWS_4)
      a += 4 * kAStep;
      a3 += 4;
      b += 64;
    }
  }
  for (; k + 4 <= kc; k += 4) {
    MACE_AVX2_ASM_STEPS(MACE_AVX2_ASM_PANEL_4, MACE_AVX2_ASM_ROWS_4)
    a += 4 * kAStep;
    a3 += 4;
    b += 64;
  }
  for (; k < kc; ++k) {
    MACE_AVX2_ASM_STEPS(MACE_AVX2_ASM_PANEL_1, MACE_AVX2_ASM_ROWS_STEP(0, 0))
    a += kAStep;
    a3 += 1;
    b += 16;
  }
  __m256 col_bias0 = _mm256_setzero_ps(), col_bias1 = _mm256_setzero_ps();
  if (epilogue.last && epilogue.col_bias != nullptr) {
    col_bias0 = _mm256_loadu_ps(epilogue.col_bias);
    col_bias1 = _mm256_loadu_ps(epilogue.col_bias + 8);
  }
  MACE_AVX2_STORE(0)
  if constexpr (kRows > 1) MACE_AVX2_STORE(1)
  if constexpr (kRows > 2) MACE_AVX2_STORE(2)
  if constexpr (kRows > 3) MACE_AVX2_STORE(3)
  if constexpr (kRows > 4) MACE_AVX2_STORE(4)
  if constexpr (kRows > 5) MACE_AVX2_STORE(5)
}

}  // namespace

#undef MACE_AVX2_ASM_STEPS
#undef MACE_AVX2_ASM_PANEL_IF
#undef MACE_AVX2_ASM_PANEL_1
#undef MACE_AVX2_ASM_PANEL_ROWS1
#undef MACE_AVX2_ASM_PANEL_ROWS2
#undef MACE_AVX2_ASM_PANEL_ROWS3
#undef MACE_AVX2_ASM_PANEL_ROWS4
#undef MACE_AVX2_ASM_PANEL_ROWS5
#undef MACE_AVX2_ASM_PANEL_ROWS6
#undef MACE_AVX2_ASM_TILE
#undef MACE_AVX2_ASM_ROWS_4
#undef MACE_AVX2_ASM_PANEL_4
#undef MACE_AVX2_ASM_ROWS_STEP
#undef MACE_AVX2_ASM_PANEL_STEP
#undef MACE_AVX2_ASM_B

void Avx2Gemm6x16(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                  const TileEpilogue& epilogue) {
  Gemm6x16Tile<false>(kc, a, 0, b, c, ldc, epilogue);
}

// The same steps in the same order, each A value broadcast from its row of
// the unpacked operand.
void Avx2Gemm6x16DirectA(int64_t kc, const float* a, int64_t lda, const float* b, float* c,
                         int64_t ldc, const TileEpilogue& epilogue) {
  Gemm6x16Tile<true>(kc, a, lda, b, c, ldc, epilogue);
}

// Partial tiles: kWide covers up to 16 columns with two vectors, else up to
// 8 with one (half the multiply-adds). Columns past `cols` are masked off in
// every access to C and col_bias, rows past `rows` skipped.
#define MACE_AVX2_PARTIAL_ROW(i)                           \
  if ((i) < kRows) {                                       \
    const __m256 ai = _mm256_broadcast_ss(a + (i));        \
    c##i##0 = _mm256_fmadd_ps(ai, b0, c##i##0);            \
    if (kWide) c##i##1 = _mm256_fmadd_ps(ai, b1, c##i##1); \
  }

#define MACE_AVX2_PARTIAL_STEP(offset)                         \
  {                                                            \
    const float* b_row = b_rows.Row(k + (offset));             \
    const __m256 b0 = _mm256_loadu_ps(b_row);                  \
    const __m256 b1 = kWide ? _mm256_loadu_ps(b_row + 8) : b0; \
    const float* a_step = a + 6 * (offset);                    \
    {                                                          \
      const float* a = a_step;                                 \
      MACE_AVX2_PARTIAL_ROW(0)                                 \
      MACE_AVX2_PARTIAL_ROW(1)                                 \
      MACE_AVX2_PARTIAL_ROW(2)                                 \
      MACE_AVX2_PARTIAL_ROW(3)                                 \
      MACE_AVX2_PARTIAL_ROW(4)                                 \
      MACE_AVX2_PARTIAL_ROW(5)                                 \
    }                                                          \
  }

#define MACE_AVX2_PARTIAL_STORE(i)                                                     \
  if ((i) < rows) {                                                                    \
    float* row = c + (i)*ldc;                                                          \
    if (epilogue.accumulate) {                                                         \
      c##i##0 = _mm256_add_ps(c##i##0, _mm256_maskload_ps(row, mask0));                \
      if (kWide) c##i##1 = _mm256_add_ps(c##i##1, _mm256_maskload_ps(row + 8, mask1)); \
    }                                                                                  \
    MACE_AVX2_FINISH(i)                                                                \
    _mm256_maskstore_ps(row, mask0, c##i##0);                                          \
    if (kWide) _mm256_maskstore_ps(row + 8, mask1, c##i##1);                           \
  }

// Where a partial tile finds B's k-th row: in a packed panel, or in place
// through per-step offsets (a direct convolution's taps).
struct PanelRows {
  const float* b;
  const float* Row(int64_t k) const { return b + 16 * k; }
};
struct OffsetRows {
  const float* base;
  const int64_t* offsets;
  const float* Row(int64_t k) const { return base + offsets[k]; }
};

// kRows (>= rows) is how many rows' multiply-adds each step issues: a
// tile of 2 of 6 rows (BERT's 128 tokens end in one) costs a third of a
// full one.
template <bool kWide, int kRows, typename BRows>
static inline void Avx2Partial6x16(int64_t kc, const float* a, BRows b_rows, float* c, int64_t ldc,
                                   int rows, int cols, const TileEpilogue& epilogue) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i mask0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols), lanes);
  const __m256i mask1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols - 8), lanes);
  MACE_AVX2_ZERO_TILE
  int64_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    MACE_AVX2_PARTIAL_STEP(0)
    MACE_AVX2_PARTIAL_STEP(1)
    MACE_AVX2_PARTIAL_STEP(2)
    MACE_AVX2_PARTIAL_STEP(3)
    a += 24;
  }
  for (; k < kc; ++k) {
    MACE_AVX2_PARTIAL_STEP(0)
    a += 6;
  }
  __m256 col_bias0 = _mm256_setzero_ps(), col_bias1 = _mm256_setzero_ps();
  if (epilogue.last && epilogue.col_bias != nullptr) {
    col_bias0 = _mm256_maskload_ps(epilogue.col_bias, mask0);
    col_bias1 = _mm256_maskload_ps(epilogue.col_bias + 8, mask1);
  }
  MACE_AVX2_PARTIAL_STORE(0)
  MACE_AVX2_PARTIAL_STORE(1)
  MACE_AVX2_PARTIAL_STORE(2)
  MACE_AVX2_PARTIAL_STORE(3)
  MACE_AVX2_PARTIAL_STORE(4)
  MACE_AVX2_PARTIAL_STORE(5)
}

template <bool kWide, typename BRows>
static inline void Avx2PartialRows(int64_t kc, const float* a, BRows b_rows, float* c, int64_t ldc,
                                   int rows, int cols, const TileEpilogue& epilogue) {
  if (rows <= 2) {
    Avx2Partial6x16<kWide, 2>(kc, a, b_rows, c, ldc, rows, cols, epilogue);
  } else if (rows <= 4) {
    Avx2Partial6x16<kWide, 4>(kc, a, b_rows, c, ldc, rows, cols, epilogue);
  } else {
    Avx2Partial6x16<kWide, 6>(kc, a, b_rows, c, ldc, rows, cols, epilogue);
  }
}

// The last kCols (< 6) columns of a partial tile (ColumnTailSums): a step
// costs kCols multiply-adds where a half tile costs 6, so a 7 x 7 map's 49
// columns cost 48 + 1 instead of 48 + 8. C's columns are strided by ldc:
// they go through a staging vector, rows past `rows` left alone.
template <int kCols>
static inline void Avx2Columns6(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                                int rows, const TileEpilogue& epilogue) {
  __m256 sums[kCols];
  ColumnTailSums<6, 16, kCols>(kc, a, b, sums);
  __m256 row_bias = _mm256_setzero_ps();
  if (epilogue.last && epilogue.row_bias != nullptr) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    row_bias =
        _mm256_maskload_ps(epilogue.row_bias, _mm256_cmpgt_epi32(_mm256_set1_epi32(rows), lanes));
  }
#pragma GCC unroll 8
  for (int j = 0; j < kCols; ++j) {
    __m256 v = sums[j];
    alignas(32) float column[8] = {};
    if (epilogue.accumulate) {
      for (int i = 0; i < rows; ++i) column[i] = c[i * ldc + j];
      v = _mm256_add_ps(v, _mm256_load_ps(column));
    }
    if (epilogue.last) {
      v = _mm256_add_ps(v, row_bias);
      if (epilogue.col_bias != nullptr) {
        v = _mm256_add_ps(v, _mm256_broadcast_ss(epilogue.col_bias + j));
      }
      v = Avx2Activate(v, epilogue);
    }
    _mm256_store_ps(column, v);
    for (int i = 0; i < rows; ++i) c[i * ldc + j] = column[i];
  }
}

// A tile of all 16 columns and fewer rows runs the asm tile over its rows.
// Otherwise, per k step: a whole 8-column vector costs 6 multiply-adds, and
// a tail of t < 6 columns t more by columns, so 9-13 columns are 8 + columns
// and 1-5 columns are columns alone.
void Avx2GemmPartial6x16(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                         int rows, int cols, const TileEpilogue& epilogue) {
  if (cols == 16) {
    switch (rows) {
      case 1:
        return Gemm6x16Tile<false, 1>(kc, a, 0, b, c, ldc, epilogue);
      case 2:
        return Gemm6x16Tile<false, 2>(kc, a, 0, b, c, ldc, epilogue);
      case 3:
        return Gemm6x16Tile<false, 3>(kc, a, 0, b, c, ldc, epilogue);
      case 4:
        return Gemm6x16Tile<false, 4>(kc, a, 0, b, c, ldc, epilogue);
      default:
        return Gemm6x16Tile<false, 5>(kc, a, 0, b, c, ldc, epilogue);
    }
  }
  const int tail = cols % 8;
  if (tail == 0 || tail >= 6) {
    if (cols > 8) {
      Avx2PartialRows<true>(kc, a, PanelRows{b}, c, ldc, rows, cols, epilogue);
    } else {
      Avx2PartialRows<false>(kc, a, PanelRows{b}, c, ldc, rows, cols, epilogue);
    }
    return;
  }
  if (cols > 8) Avx2PartialRows<false>(kc, a, PanelRows{b}, c, ldc, rows, 8, epilogue);
  const int first = cols - tail;
  TileEpilogue shifted = epilogue;
  if (shifted.col_bias != nullptr) shifted.col_bias += first;
  switch (tail) {
    case 1:
      return Avx2Columns6<1>(kc, a, b + first, c + first, ldc, rows, shifted);
    case 2:
      return Avx2Columns6<2>(kc, a, b + first, c + first, ldc, rows, shifted);
    case 3:
      return Avx2Columns6<3>(kc, a, b + first, c + first, ldc, rows, shifted);
    case 4:
      return Avx2Columns6<4>(kc, a, b + first, c + first, ldc, rows, shifted);
    default:
      return Avx2Columns6<5>(kc, a, b + first, c + first, ldc, rows, shifted);
  }
}

// A direct convolution's tile: the partial kernel reading B in place. Its
// reduction is a single block, so the tile is written once.
void Avx2ConvRows6x16(int64_t kc, const float* a, const float* base, const int64_t* offsets,
                      float* c, int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) {
  TileEpilogue once = epilogue;
  once.accumulate = false;
  once.last = true;
  if (cols > 8) {
    Avx2PartialRows<true>(kc, a, OffsetRows{base, offsets}, c, ldc, rows, cols, once);
  } else {
    Avx2PartialRows<false>(kc, a, OffsetRows{base, offsets}, c, ldc, rows, cols, once);
  }
}

#undef MACE_AVX2_PARTIAL_ROW
#undef MACE_AVX2_PARTIAL_STEP
#undef MACE_AVX2_PARTIAL_STORE
#undef MACE_AVX2_STORE
#undef MACE_AVX2_FINISH
#undef MACE_AVX2_ZERO_TILE

}  // namespace x86
}  // namespace ops
}  // namespace mace
