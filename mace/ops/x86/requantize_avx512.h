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

// One multiplier's constants (multiplier < 2^right_shift).
struct Avx512RequantizeScale {
  __m512i multiplier, half;
  __m128i shift;
};

// The clamp, relative to the zero point, and the zero point.
struct Avx512RequantizeClamp {
  __m512i zero_point, lo, hi;
};

static inline Avx512RequantizeScale Avx512MakeRequantizeScale(int32_t multiplier,
                                                             int32_t right_shift) {
  Avx512RequantizeScale k;
  k.multiplier = _mm512_set1_epi64(static_cast<uint32_t>(multiplier));
  k.half = _mm512_set1_epi64(int64_t{1} << (right_shift - 1));
  k.shift = _mm_cvtsi32_si128(right_shift);
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

// zero_point + Requantize(x), clamped, in int32 lanes.
static inline __m512i Avx512Requantize(__m512i x, const Avx512RequantizeScale& s,
                                       const Avx512RequantizeClamp& c) {
  // |INT32_MIN| stays 0x80000000, which as unsigned is the right magnitude.
  const __m512i magnitude = _mm512_abs_epi32(x);
  const __m512i even = _mm512_srl_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(magnitude, s.multiplier), s.half), s.shift);
  const __m512i odd = _mm512_srl_epi64(
      _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(magnitude, 32), s.multiplier), s.half),
      s.shift);
  // Results are below 2^31 (multiplier < 1): recombine the 32-bit halves.
  const __m512i rounded = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  const __m512i zero = _mm512_setzero_si512();
  const __m512i value =
      _mm512_mask_sub_epi32(rounded, _mm512_cmplt_epi32_mask(x, zero), zero, rounded);
  return _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(value, c.lo), c.hi), c.zero_point);
}

}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_REQUANTIZE_AVX512_H_
