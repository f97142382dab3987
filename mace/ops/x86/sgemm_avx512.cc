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

#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

static inline __m512 Avx512Activate(__m512 v, const TileEpilogue& epilogue) {
  switch (epilogue.activation) {
    case kTileActClamp:
      return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(epilogue.lo)),
                           _mm512_set1_ps(epilogue.hi));
    case kTileActHardSwish: {
      const __m512 gate =
          _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, _mm512_set1_ps(3.f)), _mm512_setzero_ps()),
                        _mm512_set1_ps(6.f));
      return _mm512_div_ps(_mm512_mul_ps(v, gate), _mm512_set1_ps(6.f));
    }
    default:
      return v;
  }
}

// Applies X to each of the tile's 8 row indices.
#define MACE_AVX512_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

#define MACE_AVX512_ZERO(i) __m512 c##i##0 = _mm512_setzero_ps(), c##i##1 = _mm512_setzero_ps();

#define MACE_AVX512_PREFETCH_C(i)                                        \
  _mm_prefetch(reinterpret_cast<const char*>(c + (i)*ldc), _MM_HINT_T0); \
  _mm_prefetch(reinterpret_cast<const char*>(c + (i)*ldc + 31), _MM_HINT_T0);

#define MACE_AVX512_ROW(i)                       \
  {                                              \
    const __m512 ai = _mm512_set1_ps(a_step[i]); \
    c##i##0 = _mm512_fmadd_ps(ai, b0, c##i##0);  \
    c##i##1 = _mm512_fmadd_ps(ai, b1, c##i##1);  \
  }

#define MACE_AVX512_STEP(offset)                               \
  {                                                            \
    const __m512 b0 = _mm512_loadu_ps(b + 32 * (offset));      \
    const __m512 b1 = _mm512_loadu_ps(b + 32 * (offset) + 16); \
    const float* a_step = a + 8 * (offset);                    \
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
  {                                                                \
    float* row = c + (i)*ldc;                                      \
    if (epilogue.accumulate) {                                     \
      c##i##0 = _mm512_add_ps(c##i##0, _mm512_loadu_ps(row));      \
      c##i##1 = _mm512_add_ps(c##i##1, _mm512_loadu_ps(row + 16)); \
    }                                                              \
    MACE_AVX512_FINISH(i)                                          \
    _mm512_storeu_ps(row, c##i##0);                                \
    _mm512_storeu_ps(row + 16, c##i##1);                           \
  }

void Avx512Gemm8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                    const TileEpilogue& epilogue) {
  // C is touched only after the reduction; start fetching it now so its
  // misses overlap the FMAs.
  MACE_AVX512_ROWS(MACE_AVX512_PREFETCH_C)
  MACE_AVX512_ROWS(MACE_AVX512_ZERO)
  int64_t k = 0;
  // Unrolled by four so loop overhead does not steal issue slots from FMAs.
  for (; k + 4 <= kc; k += 4) {
    MACE_AVX512_STEP(0) MACE_AVX512_STEP(1) MACE_AVX512_STEP(2) MACE_AVX512_STEP(3) a += 4 * 8;
    b += 4 * 32;
  }
  for (; k < kc; ++k) {
    MACE_AVX512_STEP(0)
    a += 8;
    b += 32;
  }
  __m512 col_bias0 = _mm512_setzero_ps(), col_bias1 = _mm512_setzero_ps();
  if (epilogue.last && epilogue.col_bias != nullptr) {
    col_bias0 = _mm512_loadu_ps(epilogue.col_bias);
    col_bias1 = _mm512_loadu_ps(epilogue.col_bias + 16);
  }
  MACE_AVX512_ROWS(MACE_AVX512_STORE)
}

// Partial tiles: kWide covers up to 32 columns with two vectors, else up to
// 16 with one (half the multiply-adds). Columns past `cols` are masked off
// in every access to C and col_bias, rows past `rows` skipped.
#define MACE_AVX512_PARTIAL_ROW(i)                                   \
  {                                                                  \
    const __m512 ai = _mm512_set1_ps(a_step[i]);                     \
    c##i##0 = _mm512_fmadd_ps(ai, b0, c##i##0);                      \
    if (kWide) c##i##1 = _mm512_fmadd_ps(ai, b1, c##i##1);           \
  }

#define MACE_AVX512_PARTIAL_STEP(offset)                                          \
  {                                                                               \
    const __m512 b0 = _mm512_loadu_ps(b + 32 * (offset));                         \
    const __m512 b1 = kWide ? _mm512_loadu_ps(b + 32 * (offset) + 16) : b0;       \
    const float* a_step = a + 8 * (offset);                                       \
    MACE_AVX512_ROWS(MACE_AVX512_PARTIAL_ROW)                                     \
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

template <bool kWide>
static inline void Avx512Partial8x32(int64_t kc, const float* a, const float* b, float* c,
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
    b += 4 * 32;
  }
  for (; k < kc; ++k) {
    MACE_AVX512_PARTIAL_STEP(0)
    a += 8;
    b += 32;
  }
  __m512 col_bias0 = _mm512_setzero_ps(), col_bias1 = _mm512_setzero_ps();
  if (epilogue.last && epilogue.col_bias != nullptr) {
    col_bias0 = _mm512_maskz_loadu_ps(mask0, epilogue.col_bias);
    col_bias1 = _mm512_maskz_loadu_ps(mask1, epilogue.col_bias + 16);
  }
  MACE_AVX512_ROWS(MACE_AVX512_PARTIAL_STORE)
}

void Avx512GemmPartial8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                           int rows, int cols, const TileEpilogue& epilogue) {
  if (cols > 16) {
    Avx512Partial8x32<true>(kc, a, b, c, ldc, rows, cols, epilogue);
  } else {
    Avx512Partial8x32<false>(kc, a, b, c, ldc, rows, cols, epilogue);
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
