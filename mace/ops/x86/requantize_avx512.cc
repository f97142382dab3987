// The uint8 output step on AVX-512 (RequantizeRowKernel), bit-exact with
// Requantize in mace/ops/common/quantize.h and with Avx2RequantizeRow: the
// step of requantize_avx512.h, narrowed to bytes, 16 values at a time. The
// tail runs the same arithmetic under a mask, so there is no scalar copy of
// the rule.
#include "mace/ops/x86/avx512_kernels.h"
#include "mace/ops/x86/requantize_avx512.h"

namespace mace {
namespace ops {
namespace x86 {

namespace {

template <bool AboveZero>
void RequantizeRowAs(const RequantizeRow& row) {
  const __m512i row_term = _mm512_set1_epi32(row.row_term);
  const Avx512RequantizeScale scale = Avx512MakeRequantizeScale(row.multiplier, row.right_shift);
  const Avx512RequantizeClamp clamp = Avx512MakeRequantizeClamp(row.zero_point, row.lo, row.hi);
  // Locals, so that the byte stores (which may alias anything) do not make
  // the compiler reload the row's pointers every step.
  const int32_t* const sums = row.sums;
  const int32_t* const column_terms = row.column_terms;
  uint8_t* const out = row.out;
  const int64_t count = row.count;
  int64_t i = 0;
  if (column_terms != nullptr) {
    for (; i + 16 <= count; i += 16) {
      const __m512i x = _mm512_add_epi32(_mm512_add_epi32(_mm512_loadu_si512(sums + i), row_term),
                                         _mm512_loadu_si512(column_terms + i));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                       _mm512_cvtepi32_epi8(Avx512RequantizeAs<AboveZero>(x, scale, clamp)));
    }
  } else {
    for (; i + 16 <= count; i += 16) {
      const __m512i x = _mm512_add_epi32(_mm512_loadu_si512(sums + i), row_term);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                       _mm512_cvtepi32_epi8(Avx512RequantizeAs<AboveZero>(x, scale, clamp)));
    }
  }
  if (i < count) {
    // The tail: the same arithmetic under a mask.
    const __mmask16 mask = static_cast<__mmask16>((1u << (count - i)) - 1);
    __m512i x = _mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, sums + i), row_term);
    if (column_terms != nullptr) {
      x = _mm512_add_epi32(x, _mm512_maskz_loadu_epi32(mask, column_terms + i));
    }
    _mm512_mask_cvtepi32_storeu_epi8(out + i, mask, Avx512RequantizeAs<AboveZero>(x, scale, clamp));
  }
}

}  // namespace

void Avx512RequantizeRow(const RequantizeRow& row) {
  // Without the sign steps where the clamp starts at or above the zero
  // point (a fused RELU or RELU6).
  if (row.lo >= row.zero_point) {
    RequantizeRowAs<true>(row);
  } else {
    RequantizeRowAs<false>(row);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
