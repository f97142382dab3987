// The uint8 Eltwise's table lookups on AVX-512 (EltwiseUint8TableKernel):
// 16 pairs per step, each index in0 * 256 + in1 made in int32 lanes, the
// aligned dword holding the entry gathered (so nothing past the table's
// 65,536 bytes is read) and the entry shifted down to the low byte, which
// the narrowing store keeps. The tail looks up one pair at a time.
#include "mace/ops/x86/avx512_intrinsics.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

void Avx512EltwiseUint8Table(const uint8_t* table, const uint8_t* in0, const uint8_t* in1,
                             int64_t count, uint8_t* out) {
  const __m512i byte_in_word = _mm512_set1_epi32(3);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512i a = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in0 + i)));
    const __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in1 + i)));
    const __m512i index = _mm512_or_si512(_mm512_slli_epi32(a, 8), b);
    const __m512i words = _mm512_i32gather_epi32(_mm512_srli_epi32(index, 2), table, 4);
    const __m512i shift = _mm512_slli_epi32(_mm512_and_si512(index, byte_in_word), 3);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm512_cvtepi32_epi8(_mm512_srlv_epi32(words, shift)));
  }
  for (; i < count; ++i) out[i] = table[(int64_t{in0[i]} << 8) | in1[i]];
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
