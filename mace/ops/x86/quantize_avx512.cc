// float to uint8 on AVX-512 (QuantizeUint8Kernel), bit-exact with
// QuantizeValue in mace/ops/common/quantize.h: zero_point +
// round(double(x) / scale), rounded half away from zero, NaN to the zero
// point, clamped to [0, 255]. That double quotient lies on the same side
// of every whole number and half as the exact quotient q = x / s, or on it
// when q is (x and k s, k below 2^10, are multiples of the smaller of
// their two ulps, so a q off such a point is at least 2^-33 of itself
// away), so the result is zero_point + the exact q rounded half away.
//
// Sixteen lanes in float, for scales whose float reciprocal is normal and
// accurate: n = |x| times the float reciprocal (relative error below
// 2^-22), capped at 600 (any |q| of 510 or more clamps), rounded to the
// nearest whole number, is within 1 of the rounded |q| R. Two fused
// multiply-adds decide which: |x| - (n + 1/2) s and |x| - (n - 1/2) s,
// each rounded once from its exact value (n +- 1/2 is exact in float),
// have the exact value's sign, with an exact zero as +0 and a negative
// value that underflows as -0, so their sign bits say whether R is n + 1,
// n or n - 1 (|x| on a half goes up). Other scales take the double path:
// the correctly rounded quotient from the double reciprocal as above,
// truncated, and one comparison |x| >= (n + 1/2) s, exact in double, to
// step up.
#include <algorithm>
#include <cmath>

#include "mace/ops/x86/avx512_intrinsics.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

struct Constants {
  __m512d scale, reciprocal, zero_point, half, one, sign, low, high;
};

inline __m256i QuantizeEight(__m256 x, const Constants& k) {
  const __m512d value = _mm512_cvtps_pd(x);
  const __m512d magnitude = _mm512_abs_pd(value);
  const __m512d whole = _mm512_roundscale_pd(_mm512_mul_pd(magnitude, k.reciprocal),
                                             _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __mmask8 up = _mm512_cmp_pd_mask(
      magnitude, _mm512_mul_pd(_mm512_add_pd(whole, k.half), k.scale), _CMP_GE_OQ);
  const __m512d rounded = _mm512_or_pd(_mm512_mask_add_pd(whole, up, whole, k.one),
                                       _mm512_and_pd(value, k.sign));
  __m512d result =
      _mm512_min_pd(_mm512_max_pd(_mm512_add_pd(rounded, k.zero_point), k.low), k.high);
  result = _mm512_mask_mov_pd(result, _mm512_cmp_pd_mask(value, value, _CMP_UNORD_Q),
                              k.zero_point);
  return _mm512_cvtpd_epi32(result);
}

// Sixteen values, as int32 lanes in [0, 255].
inline __m512i QuantizeSixteen(__m512 x, const Constants& k) {
  const __m256i low = QuantizeEight(_mm512_castps512_ps256(x), k);
  const __m256i high =
      QuantizeEight(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)), k);
  return _mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1);
}

// Every value through `sixteen` (16 floats to 16 int32 lanes in [0, 255]),
// the tail under a mask.
template <typename Sixteen>
inline void QuantizeAll(const float* in, int64_t count, uint8_t* out, Sixteen sixteen) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm512_cvtepi32_epi8(sixteen(_mm512_loadu_ps(in + i))));
  }
  if (i < count) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (count - i)) - 1);
    _mm512_mask_cvtepi32_storeu_epi8(out + i, mask, sixteen(_mm512_maskz_loadu_ps(mask, in + i)));
  }
}

// The scales whose float reciprocal is a normal float, and whose products
// with n + 1/2 (n <= 601) stay finite.
bool FloatPathScale(float scale) { return scale >= 0x1p-100f && scale <= 0x1p100f; }

struct FloatConstants {
  __m512 scale, reciprocal, cap, half;
  __m512i zero_point, one, high;
};

// Sixteen values, as int32 lanes in [0, 255].
inline __m512i QuantizeSixteenFloat(__m512 x, const FloatConstants& k) {
  const __m512 magnitude = _mm512_abs_ps(x);
  const __m512 n = _mm512_roundscale_ps(
      _mm512_min_ps(_mm512_mul_ps(magnitude, k.reciprocal), k.cap),
      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // Sign bits: set where |x| < (n + 1/2) s and where |x| < (n - 1/2) s.
  const __mmask16 below_high = _mm512_movepi32_mask(
      _mm512_castps_si512(_mm512_fnmadd_ps(_mm512_add_ps(n, k.half), k.scale, magnitude)));
  const __mmask16 below_low = _mm512_movepi32_mask(
      _mm512_castps_si512(_mm512_fnmadd_ps(_mm512_sub_ps(n, k.half), k.scale, magnitude)));
  __m512i rounded = _mm512_cvttps_epi32(n);
  rounded = _mm512_mask_add_epi32(rounded, static_cast<__mmask16>(~below_high), rounded, k.one);
  rounded = _mm512_mask_sub_epi32(rounded, below_low, rounded, k.one);
  const __mmask16 negative = _mm512_movepi32_mask(_mm512_castps_si512(x));
  __m512i value = _mm512_mask_sub_epi32(_mm512_add_epi32(k.zero_point, rounded), negative,
                                        k.zero_point, rounded);
  value = _mm512_min_epi32(_mm512_max_epi32(value, _mm512_setzero_si512()), k.high);
  return _mm512_mask_mov_epi32(value, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), k.zero_point);
}

void QuantizeFloatPath(const float* in, int64_t count, float scale, int32_t zero_point,
                       uint8_t* out) {
  FloatConstants k;
  k.scale = _mm512_set1_ps(scale);
  k.reciprocal = _mm512_set1_ps(1.f / scale);
  k.cap = _mm512_set1_ps(600.f);
  k.half = _mm512_set1_ps(0.5f);
  k.zero_point = _mm512_set1_epi32(zero_point);
  k.one = _mm512_set1_epi32(1);
  k.high = _mm512_set1_epi32(255);
  QuantizeAll(in, count, out, [&](__m512 x) { return QuantizeSixteenFloat(x, k); });
}

}  // namespace

void Avx512QuantizeUint8(const float* in, int64_t count, float scale, int32_t zero_point,
                         uint8_t* out) {
  if (!(scale > 0.f && std::isfinite(scale))) {
    // Outside the argument above (quantization checks refuse such scales).
    for (int64_t i = 0; i < count; ++i) {
      const double value = zero_point + std::round(static_cast<double>(in[i]) / scale);
      out[i] = std::isnan(value) ? static_cast<uint8_t>(zero_point)
                                 : static_cast<uint8_t>(std::min(std::max(value, 0.0), 255.0));
    }
    return;
  }
  if (FloatPathScale(scale)) {
    QuantizeFloatPath(in, count, scale, zero_point, out);
    return;
  }
  Constants k;
  k.scale = _mm512_set1_pd(scale);
  k.reciprocal = _mm512_set1_pd(1.0 / static_cast<double>(scale));
  k.zero_point = _mm512_set1_pd(zero_point);
  k.half = _mm512_set1_pd(0.5);
  k.one = _mm512_set1_pd(1.0);
  k.sign = _mm512_set1_pd(-0.0);
  k.low = _mm512_set1_pd(0.0);
  k.high = _mm512_set1_pd(255.0);
  QuantizeAll(in, count, out, [&](__m512 x) { return QuantizeSixteen(x, k); });
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
