// float to uint8 on AVX2 (QuantizeUint8Kernel), bit-exact with QuantizeValue
// in mace/ops/common/quantize.h: each float widened to double and divided by
// the scale (correctly rounded, as the scalar division), rounded half away
// from zero as the truncation plus one step away from zero where the
// (exact) fraction is at least one half, the zero point added, NaN replaced
// by the zero point, clamped to [0, 255]. The tail goes through the same
// vector step on a zero-padded copy, so there is no scalar copy of the rule.
#include <immintrin.h>

#include <cstring>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

struct Constants {
  __m256d scale, zero_point, half, one, sign, low, high;
};

inline __m128i QuantizeFour(__m128 x, const Constants& k) {
  const __m256d v = _mm256_div_pd(_mm256_cvtps_pd(x), k.scale);
  const __m256d whole = _mm256_round_pd(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m256d fraction = _mm256_andnot_pd(k.sign, _mm256_sub_pd(v, whole));
  const __m256d away = _mm256_cmp_pd(fraction, k.half, _CMP_GE_OQ);
  const __m256d step = _mm256_and_pd(away, _mm256_or_pd(k.one, _mm256_and_pd(v, k.sign)));
  __m256d value = _mm256_add_pd(_mm256_add_pd(whole, step), k.zero_point);
  value = _mm256_min_pd(_mm256_max_pd(value, k.low), k.high);
  value = _mm256_blendv_pd(value, k.zero_point, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
  return _mm256_cvtpd_epi32(value);
}

// Eight values to eight bytes (in the low half).
inline __m128i QuantizeEight(const float* in, const Constants& k) {
  const __m256 x = _mm256_loadu_ps(in);
  const __m128i words = _mm_packs_epi32(QuantizeFour(_mm256_castps256_ps128(x), k),
                                        QuantizeFour(_mm256_extractf128_ps(x, 1), k));
  return _mm_packus_epi16(words, words);
}

}  // namespace

void Avx2QuantizeUint8(const float* in, int64_t count, float scale, int32_t zero_point,
                       uint8_t* out) {
  Constants k;
  k.scale = _mm256_set1_pd(scale);
  k.zero_point = _mm256_set1_pd(zero_point);
  k.half = _mm256_set1_pd(0.5);
  k.one = _mm256_set1_pd(1.0);
  k.sign = _mm256_set1_pd(-0.0);
  k.low = _mm256_set1_pd(0.0);
  k.high = _mm256_set1_pd(255.0);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i), QuantizeEight(in + i, k));
  }
  if (i < count) {
    float padded[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::memcpy(padded, in + i, (count - i) * sizeof(float));
    uint8_t bytes[16];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(bytes), QuantizeEight(padded, k));
    std::memcpy(out + i, bytes, count - i);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
