// The uint8 output step on AVX-512 (RequantizeRowKernel), bit-exact with
// Requantize in mace/ops/common/quantize.h and with Avx2RequantizeRow:
// |x| times the multiplier as 64-bit products (vpmuludq on even and odd
// lanes), plus half, shifted right, sign restored, clamped, zero point added
// and narrowed to bytes, 16 values at a time. The tail runs the same
// arithmetic under a mask, so there is no scalar copy of the rule.
#include <immintrin.h>

#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

namespace {

struct Constants {
  __m512i row_term, multiplier, half, zero_point, lo, hi;
  __m128i shift;
};

inline __m512i Step(__m512i x, const Constants& k) {
  // |INT32_MIN| stays 0x80000000, which as unsigned is the right magnitude.
  const __m512i magnitude = _mm512_abs_epi32(x);
  const __m512i even = _mm512_srl_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(magnitude, k.multiplier), k.half), k.shift);
  const __m512i odd = _mm512_srl_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(magnitude, 32), k.multiplier), k.half),
      k.shift);
  // Results are below 2^31 (multiplier < 1): recombine the 32-bit halves.
  const __m512i rounded = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  const __m512i zero = _mm512_setzero_si512();
  const __m512i value =
      _mm512_mask_sub_epi32(rounded, _mm512_cmplt_epi32_mask(x, zero), zero, rounded);
  // Clamped before the zero point is added, so that nothing wraps.
  return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(value, k.lo), k.hi), k.zero_point);
}

}  // namespace

void Avx512RequantizeRow(const RequantizeRow& row) {
  Constants k;
  k.row_term = _mm512_set1_epi32(row.row_term);
  k.multiplier = _mm512_set1_epi64(static_cast<uint32_t>(row.multiplier));
  k.half = _mm512_set1_epi64(int64_t{1} << (row.right_shift - 1));
  k.shift = _mm_cvtsi32_si128(row.right_shift);
  k.zero_point = _mm512_set1_epi32(row.zero_point);
  k.lo = _mm512_set1_epi32(row.lo - row.zero_point);
  k.hi = _mm512_set1_epi32(row.hi - row.zero_point);
  // Locals, so that the byte stores (which may alias anything) do not make
  // the compiler reload the row's pointers every step.
  const int32_t* const sums = row.sums;
  const int32_t* const column_terms = row.column_terms;
  uint8_t* const out = row.out;
  const int64_t count = row.count;
  int64_t i = 0;
  if (column_terms != nullptr) {
    for (; i + 16 <= count; i += 16) {
      const __m512i x = _mm512_add_epi32(
          _mm512_add_epi32(_mm512_loadu_si512(sums + i), k.row_term),
          _mm512_loadu_si512(column_terms + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(Step(x, k)));
    }
  } else {
    for (; i + 16 <= count; i += 16) {
      const __m512i x = _mm512_add_epi32(_mm512_loadu_si512(sums + i), k.row_term);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(Step(x, k)));
    }
  }
  if (i < count) {
    // The tail: the same arithmetic under a mask.
    const __mmask16 mask = static_cast<__mmask16>((1u << (count - i)) - 1);
    __m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, sums + i), k.row_term);
    if (column_terms != nullptr) {
      x = _mm512_add_epi32(x, _mm512_maskz_loadu_epi32(mask, column_terms + i));
    }
    _mm512_mask_cvtepi32_storeu_epi8(out + i, mask, Step(x, k));
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
