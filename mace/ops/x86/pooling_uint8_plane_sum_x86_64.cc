// Uint8PlaneSum (cpu/pooling_uint8_plane_sum.h) with SSE2, which every
// x86-64 CPU has (this file gets no AVX flags): psadbw against zero sums 8
// bytes into each 64-bit half.
#include <emmintrin.h>

#include "mace/ops/cpu/pooling_uint8_plane_sum.h"

namespace mace {
namespace ops {

int64_t Uint8PlaneSum(const uint8_t* data, int64_t count) {
  int64_t sum = 0, i = 0;
  const __m128i zero = _mm_setzero_si128();
  __m128i acc = zero;
  for (; i + 16 <= count; i += 16) {
    acc = _mm_add_epi64(
        acc, _mm_sad_epu8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i)), zero));
  }
  sum = _mm_cvtsi128_si64(acc) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc));
  for (; i < count; ++i) sum += data[i];
  return sum;
}

}  // namespace ops
}  // namespace mace
