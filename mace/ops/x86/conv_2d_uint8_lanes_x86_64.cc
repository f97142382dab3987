// The uint8 GEMM convolution's packing vectors (cpu/conv_2d_uint8_lanes.h)
// with SSE2, which every x86-64 CPU has (this file gets no AVX flags).
#include <emmintrin.h>

#include "mace/ops/cpu/conv_2d_uint8_lanes.h"

namespace mace {
namespace ops {

int64_t InterleavePairVectors(const uint8_t* r0, const uint8_t* r1, int64_t count,
                              uint8_t subtract, int32_t* out) {
  int64_t i = 0;
  const __m128i zero = _mm_setzero_si128();
  const __m128i offset = _mm_set1_epi16(subtract);
  for (; i + 16 <= count; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r1 + i));
    const __m128i low = _mm_unpacklo_epi8(a, b), high = _mm_unpackhi_epi8(a, b);
    __m128i* dst = reinterpret_cast<__m128i*>(out + i);
    _mm_storeu_si128(dst, _mm_sub_epi16(_mm_unpacklo_epi8(low, zero), offset));
    _mm_storeu_si128(dst + 1, _mm_sub_epi16(_mm_unpackhi_epi8(low, zero), offset));
    _mm_storeu_si128(dst + 2, _mm_sub_epi16(_mm_unpacklo_epi8(high, zero), offset));
    _mm_storeu_si128(dst + 3, _mm_sub_epi16(_mm_unpackhi_epi8(high, zero), offset));
  }
  return i;
}

int64_t InterleaveQuadVectors(const uint8_t* const* rows, int64_t count, int32_t* out) {
  int64_t i = 0;
  // Bytes of rows 0 and 1, and of rows 2 and 3, interleaved into pairs, then
  // the pairs into quads: 16 words per step.
  for (; i + 16 <= count; i += 16) {
    const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[0] + i));
    const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[1] + i));
    const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[2] + i));
    const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[3] + i));
    const __m128i low01 = _mm_unpacklo_epi8(r0, r1), high01 = _mm_unpackhi_epi8(r0, r1);
    const __m128i low23 = _mm_unpacklo_epi8(r2, r3), high23 = _mm_unpackhi_epi8(r2, r3);
    __m128i* dst = reinterpret_cast<__m128i*>(out + i);
    _mm_storeu_si128(dst, _mm_unpacklo_epi16(low01, low23));
    _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(low01, low23));
    _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(high01, high23));
    _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(high01, high23));
  }
  // Rows are often short (an output row of 7 to 56 values): 8 more words
  // from 8-byte loads.
  if (i + 8 <= count) {
    const __m128i r0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(rows[0] + i));
    const __m128i r1 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(rows[1] + i));
    const __m128i r2 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(rows[2] + i));
    const __m128i r3 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(rows[3] + i));
    const __m128i low01 = _mm_unpacklo_epi8(r0, r1), low23 = _mm_unpacklo_epi8(r2, r3);
    __m128i* dst = reinterpret_cast<__m128i*>(out + i);
    _mm_storeu_si128(dst, _mm_unpacklo_epi16(low01, low23));
    _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(low01, low23));
    i += 8;
  }
  return i;
}

int64_t AddQuadSumVectors(const uint8_t* words, int64_t count, int32_t* sums) {
  int64_t pos = 0;
  const __m128i low_bytes = _mm_set1_epi16(0x00FF);
  const __m128i ones = _mm_set1_epi16(1);
  for (; pos + 4 <= count; pos += 4) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 4 * pos));
    // Byte pairs summed into 16 bits, then the two pairs of each word.
    const __m128i pairs = _mm_add_epi16(_mm_and_si128(w, low_bytes), _mm_srli_epi16(w, 8));
    __m128i* dst = reinterpret_cast<__m128i*>(sums + pos);
    _mm_storeu_si128(dst, _mm_add_epi32(_mm_loadu_si128(dst), _mm_madd_epi16(pairs, ones)));
  }
  return pos;
}

int64_t CopyEvenBytesVectors(const uint8_t* src, int64_t first, int64_t last, uint8_t* dst) {
  int64_t i = first;
  const __m128i low_bytes = _mm_set1_epi16(0x00FF);
  // Reads src[2i .. 2i + 31]: within the bound while i + 16 < last.
  for (; i + 16 < last; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i + 16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_packus_epi16(_mm_and_si128(a, low_bytes), _mm_and_si128(b, low_bytes)));
  }
  return i;
}

}  // namespace ops
}  // namespace mace
