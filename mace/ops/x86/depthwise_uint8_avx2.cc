// AVX2 rows of a 3x3 uint8 depthwise convolution (DepthwiseUint8RowKernel):
// int16 inputs widened to int32 lanes, multiplied by the int16 taps in
// int32 and summed, 8 outputs per vector. Every product and sum is exact.
//
// Stride 2 loads 16 consecutive int16 inputs as 8 int32 words: the even
// input of each pair is the word's low half (shifted up and back down to
// sign-extend it), the odd one its high half, so no shuffle is needed.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

inline __m256i Widen8(const int16_t* in) {
  return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
}

inline __m256i Load16(const int16_t* in) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
}

inline __m256i Even(__m256i pairs) { return _mm256_srai_epi32(_mm256_slli_epi32(pairs, 16), 16); }
inline __m256i Odd(__m256i pairs) { return _mm256_srai_epi32(pairs, 16); }

inline __m256i MulAdd(__m256i x, __m256i tap, __m256i acc) {
  return _mm256_add_epi32(acc, _mm256_mullo_epi32(x, tap));
}

}  // namespace

void Avx2DepthwiseUint8S1(const DepthwiseUint8Row& row) {
  __m256i taps[9];
  for (int t = 0; t < 9; ++t) taps[t] = _mm256_set1_epi32(row.taps[t]);
  for (int64_t x = 0; x < row.count; x += kDepthwiseUint8Lanes) {
    __m256i acc = _mm256_setzero_si256();
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + x;
      acc = MulAdd(Widen8(in), taps[3 * i], acc);
      acc = MulAdd(Widen8(in + 1), taps[3 * i + 1], acc);
      acc = MulAdd(Widen8(in + 2), taps[3 * i + 2], acc);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.sums + x), acc);
  }
}

void Avx2DepthwiseUint8S2(const DepthwiseUint8Row& row) {
  __m256i taps[9];
  for (int t = 0; t < 9; ++t) taps[t] = _mm256_set1_epi32(row.taps[t]);
  for (int64_t x = 0; x < row.count; x += kDepthwiseUint8Lanes) {
    __m256i acc = _mm256_setzero_si256();
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + 2 * x;
      const __m256i pairs = Load16(in);
      acc = MulAdd(Even(pairs), taps[3 * i], acc);
      acc = MulAdd(Odd(pairs), taps[3 * i + 1], acc);
      acc = MulAdd(Even(Load16(in + 2)), taps[3 * i + 2], acc);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.sums + x), acc);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
