// float to uint8 on AVX-512 (QuantizeUint8Kernel), bit-exact with
// QuantizeValue in mace/ops/common/quantize.h: zero_point +
// round(double(x) / scale), rounded half away from zero, NaN to the zero
// point, clamped to [0, 255].
//
// Without a division: for a float x and a positive float scale s, the exact
// quotient q = x / s is either a whole number or a half, or at least 2^-33
// of itself away from every whole number and half (x and k s, k below
// 2^10, are multiples of the smaller of their two ulps). The correctly
// rounded double quotient therefore lies on the same side of each such
// point as q, and so does |x| times the double reciprocal of s (relative
// error below 2^-52), except where q is exactly a whole number or a half.
// The truncation n of |x| / s from the reciprocal is thus exact or, at an
// exact whole q, one less; |x| >= (n + 1/2) s, exact in double (a 24-bit
// scale times a number of at most 29 bits), then says whether to step up,
// which also mends that case. Past 2^28 the result clamps either way.
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
  Constants k;
  k.scale = _mm512_set1_pd(scale);
  k.reciprocal = _mm512_set1_pd(1.0 / static_cast<double>(scale));
  k.zero_point = _mm512_set1_pd(zero_point);
  k.half = _mm512_set1_pd(0.5);
  k.one = _mm512_set1_pd(1.0);
  k.sign = _mm512_set1_pd(-0.0);
  k.low = _mm512_set1_pd(0.0);
  k.high = _mm512_set1_pd(255.0);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm512_cvtepi32_epi8(QuantizeSixteen(_mm512_loadu_ps(in + i), k)));
  }
  if (i < count) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (count - i)) - 1);
    _mm512_mask_cvtepi32_storeu_epi8(out + i, mask,
                                     QuantizeSixteen(_mm512_maskz_loadu_ps(mask, in + i), k));
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
