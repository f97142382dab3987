// The uint8 output step on 16 int32 lanes, shared by Avx512RequantizeRow and
// the VNNI GEMM's fused epilogue, bit-exact with Requantize in
// mace/ops/common/quantize.h: |x| times the multiplier as 64-bit products
// (vpmuludq on even and odd lanes), plus half, shifted right, sign
// restored, clamped and the zero point added. Only included by files built
// with AVX-512 flags, after avx512_intrinsics.h; the functions are static so
// each file keeps its own copy and none can leak into baseline code.
#ifndef MACE_OPS_X86_REQUANTIZE_AVX512_H_
#define MACE_OPS_X86_REQUANTIZE_AVX512_H_

#include <cstdint>

#include "mace/ops/x86/avx512_intrinsics.h"

namespace mace {
namespace ops {
namespace x86 {

// One multiplier's constants (multiplier < 2^right_shift). The rule's
// (|x| m + 2^(s-1)) >> s is computed as (|x| 2m + 2^s) >> (s + 1), the same
// quotient: 2m still fits vpmuludq's unsigned 32 bits, the product stays
// below 2^63, and the shift s + 1 is at least 32, so the odd lanes' result
// lands in the upper half of their 64-bit lane with one shift of s - 31
// (no shift back up).
struct Avx512RequantizeScale {
  __m512i multiplier, half;
  __m128i even_shift, odd_shift;
};

// The clamp, relative to the zero point, and the zero point.
struct Avx512RequantizeClamp {
  __m512i zero_point, lo, hi;
};

static inline Avx512RequantizeScale Avx512MakeRequantizeScale(int32_t multiplier,
                                                             int32_t right_shift) {
  Avx512RequantizeScale k;
  k.multiplier = _mm512_set1_epi64(uint64_t{static_cast<uint32_t>(multiplier)} * 2);
  k.half = _mm512_set1_epi64(int64_t{1} << right_shift);
  k.even_shift = _mm_cvtsi32_si128(right_shift + 1);
  k.odd_shift = _mm_cvtsi32_si128(right_shift - 31);
  return k;
}

static inline Avx512RequantizeClamp Avx512MakeRequantizeClamp(int32_t zero_point, int32_t lo,
                                                             int32_t hi) {
  Avx512RequantizeClamp k;
  k.zero_point = _mm512_set1_epi32(zero_point);
  // Clamped before the zero point is added, so that nothing wraps.
  k.lo = _mm512_set1_epi32(lo - zero_point);
  k.hi = _mm512_set1_epi32(hi - zero_point);
  return k;
}

// Requantize of non-negative int32 lanes (as unsigned, so 0x80000000 is
// 2^31), without the clamp.
static inline __m512i Avx512RequantizeMagnitude(__m512i magnitude, const Avx512RequantizeScale& s) {
  const __m512i even = _mm512_srl_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(magnitude, s.multiplier), s.half), s.even_shift);
  const __m512i odd = _mm512_srl_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(magnitude, 32), s.multiplier), s.half),
      s.odd_shift);
  // Results are below 2^31 (multiplier < 1): even results in the low
  // halves, odd ones already in the high halves.
  return _mm512_mask_blend_epi32(0xAAAA, even, odd);
}

// zero_point + Requantize(x), clamped, in int32 lanes.
static inline __m512i Avx512Requantize(__m512i x, const Avx512RequantizeScale& s,
                                       const Avx512RequantizeClamp& c) {
  // |INT32_MIN| stays 0x80000000, which as unsigned is the right magnitude.
  const __m512i rounded = Avx512RequantizeMagnitude(_mm512_abs_epi32(x), s);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i value =
      _mm512_mask_sub_epi32(rounded, _mm512_cmplt_epi32_mask(x, zero), zero, rounded);
  return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(value, c.lo), c.hi), c.zero_point);
}

// The same where the clamp's low end is at or above the zero point (a
// fused RELU or RELU6): Requantize is odd and monotone, so every x <= 0
// gives at most the zero point and clamps to lo, as max(x, 0) does; the
// sign steps drop out.
static inline __m512i Avx512RequantizeAboveZero(__m512i x, const Avx512RequantizeScale& s,
                                                const Avx512RequantizeClamp& c) {
  const __m512i rounded = Avx512RequantizeMagnitude(_mm512_max_epi32(x, _mm512_setzero_si512()), s);
  return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(rounded, c.lo), c.hi), c.zero_point);
}

// Requantize or RequantizeAboveZero, chosen at compile time.
template <bool AboveZero>
static inline __m512i Avx512RequantizeAs(__m512i x, const Avx512RequantizeScale& s,
                                         const Avx512RequantizeClamp& c) {
  return AboveZero ? Avx512RequantizeAboveZero(x, s, c) : Avx512Requantize(x, s, c);
}

}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_REQUANTIZE_AVX512_H_
