// float to uint8 on AVX-512 (QuantizeUint8Kernel), bit-exact with
// QuantizeValue in mace/ops/common/quantize.h: each float widened to double
// and divided by the scale (correctly rounded, as the scalar division),
// rounded half away from zero as the truncation plus one step away from
// zero where the (exact) fraction is at least one half, the zero point
// added, NaN replaced by the zero point, clamped to [0, 255].
#include "mace/ops/x86/avx512_intrinsics.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

struct Constants {
  __m512d scale, zero_point, half, one, sign, low, high;
};

inline __m256i QuantizeEight(__m256 x, const Constants& k) {
  const __m512d v = _mm512_div_pd(_mm512_cvtps_pd(x), k.scale);
  const __m512d whole = _mm512_roundscale_pd(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m512d fraction = _mm512_sub_pd(v, whole);
  const __mmask8 away = _mm512_cmp_pd_mask(_mm512_abs_pd(fraction), k.half, _CMP_GE_OQ);
  const __m512d step = _mm512_or_pd(k.one, _mm512_and_pd(v, k.sign));
  const __m512d rounded = _mm512_mask_add_pd(whole, away, whole, step);
  __m512d value = _mm512_min_pd(_mm512_max_pd(_mm512_add_pd(rounded, k.zero_point), k.low), k.high);
  value = _mm512_mask_mov_pd(value, _mm512_cmp_pd_mask(v, v, _CMP_UNORD_Q), k.zero_point);
  return _mm512_cvtpd_epi32(value);
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
  Constants k;
  k.scale = _mm512_set1_pd(scale);
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
