// The uint8 output step on 8 int32 lanes, shared by Avx2RequantizeRow and
// the AVX2 GEMM's fused epilogue, bit-exact with Requantize in
// mace/ops/common/quantize.h: |x| times the multiplier as 64-bit products
// (vpmuludq on even and odd lanes), plus half, shifted right, sign
// restored, clamped and the zero point added. Only included by files built
// with -mavx2; the functions are static so each file keeps its own copy and
// none can leak into baseline code.
#ifndef MACE_OPS_X86_REQUANTIZE_AVX2_H_
#define MACE_OPS_X86_REQUANTIZE_AVX2_H_

#include <immintrin.h>

#include <cstdint>

namespace mace {
namespace ops {
namespace x86 {

// One multiplier's constants (multiplier < 2^right_shift).
struct Avx2RequantizeScale {
  __m256i multiplier, half;
  __m128i shift;
};

// The clamp, relative to the zero point, and the zero point.
struct Avx2RequantizeClamp {
  __m256i zero_point, lo, hi;
};

static inline Avx2RequantizeScale Avx2MakeRequantizeScale(int32_t multiplier,
                                                         int32_t right_shift) {
  Avx2RequantizeScale k;
  k.multiplier = _mm256_set1_epi64x(static_cast<uint32_t>(multiplier));
  k.half = _mm256_set1_epi64x(int64_t{1} << (right_shift - 1));
  k.shift = _mm_cvtsi32_si128(right_shift);
  return k;
}

static inline Avx2RequantizeClamp Avx2MakeRequantizeClamp(int32_t zero_point, int32_t lo,
                                                         int32_t hi) {
  Avx2RequantizeClamp k;
  k.zero_point = _mm256_set1_epi32(zero_point);
  // Clamped before the zero point is added, so that nothing wraps.
  k.lo = _mm256_set1_epi32(lo - zero_point);
  k.hi = _mm256_set1_epi32(hi - zero_point);
  return k;
}

// zero_point + Requantize(x), clamped, in int32 lanes.
static inline __m256i Avx2Requantize(__m256i x, const Avx2RequantizeScale& s,
                                     const Avx2RequantizeClamp& c) {
  // |INT32_MIN| stays 0x80000000, which as unsigned is the right magnitude.
  const __m256i magnitude = _mm256_abs_epi32(x);
  const __m256i even = _mm256_srl_epi64(
      _mm256_add_epi64(_mm256_mul_epu32(magnitude, s.multiplier), s.half), s.shift);
  const __m256i odd = _mm256_srl_epi64(
      _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(magnitude, 32), s.multiplier), s.half),
      s.shift);
  // Results are below 2^31 (multiplier < 1): recombine the 32-bit halves.
  const __m256i rounded = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  const __m256i value = _mm256_sign_epi32(rounded, x);
  return _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(value, c.lo), c.hi), c.zero_point);
}

// The 8 lanes (each in [0, 255]) as 8 bytes, in the low 64 bits.
static inline int64_t Avx2PackBytes(__m256i value) {
  const __m256i words = _mm256_packs_epi32(value, value);
  const __m256i bytes = _mm256_packus_epi16(words, words);
  const uint32_t low = static_cast<uint32_t>(_mm256_extract_epi32(bytes, 0));
  const uint32_t high = static_cast<uint32_t>(_mm256_extract_epi32(bytes, 4));
  return static_cast<int64_t>(low | (uint64_t{high} << 32));
}

}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_REQUANTIZE_AVX2_H_
