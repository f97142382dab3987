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

void Avx512RequantizeRow(const RequantizeRow& row) {
  const __m512i row_term = _mm512_set1_epi32(row.row_term);
  const __m512i multiplier = _mm512_set1_epi64(static_cast<uint32_t>(row.multiplier));
  const __m512i half = _mm512_set1_epi64(int64_t{1} << (row.right_shift - 1));
  const __m128i shift = _mm_cvtsi32_si128(row.right_shift);
  // Clamped before the zero point is added, so that nothing wraps.
  const __m512i zero_point = _mm512_set1_epi32(row.zero_point);
  const __m512i lo = _mm512_set1_epi32(row.lo - row.zero_point);
  const __m512i hi = _mm512_set1_epi32(row.hi - row.zero_point);
  const __m512i zero = _mm512_setzero_si512();
  for (int64_t i = 0; i < row.count; i += 16) {
    const int64_t left = row.count - i;
    const __mmask16 mask = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
    __m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, row.sums + i), row_term);
    if (row.column_terms != nullptr) {
      x = _mm512_add_epi32(x, _mm512_maskz_loadu_epi32(mask, row.column_terms + i));
    }
    // |INT32_MIN| stays 0x80000000, which as unsigned is the right magnitude.
    const __m512i magnitude = _mm512_abs_epi32(x);
    const __m512i even = _mm512_srl_epi64(
        _mm512_add_epi64(_mm512_mul_epu32(magnitude, multiplier), half), shift);
    const __m512i odd = _mm512_srl_epi64(
        _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(magnitude, 32), multiplier), half),
        shift);
    // Results are below 2^31 (multiplier < 1): recombine the 32-bit halves.
    const __m512i rounded = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
    const __m512i value =
        _mm512_mask_sub_epi32(rounded, _mm512_cmplt_epi32_mask(x, zero), zero, rounded);
    const __m512i clamped =
        _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(value, lo), hi), zero_point);
    _mm512_mask_cvtepi32_storeu_epi8(row.out + i, mask, clamped);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
