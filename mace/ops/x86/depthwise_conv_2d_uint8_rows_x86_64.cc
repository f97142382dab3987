// The uint8 depthwise driver's row moves (cpu/depthwise_conv_2d_uint8_rows.h)
// with SSE2, which every x86-64 CPU has (this file gets no AVX flags).
#include <emmintrin.h>

#include "mace/ops/cpu/depthwise_conv_2d_uint8_rows.h"

namespace mace {
namespace ops {

void WidenUint8Row(const uint8_t* in, int16_t* row, int64_t x_begin, int64_t x_end, int64_t width,
                   int64_t bytes_left, int32_t zero_point) {
  int64_t x = x_begin;
  // 16 bytes widened to int16 minus the zero point per step; the last
  // step overlaps the one before it rather than leaving a scalar tail.
  const __m128i zero = _mm_setzero_si128();
  const __m128i offset = _mm_set1_epi16(static_cast<int16_t>(zero_point));
  if (x_end - x_begin >= 16) {
    for (;; x += 16) {
      if (x + 16 > x_end) x = x_end - 16;
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x));
      __m128i* dst = reinterpret_cast<__m128i*>(row + x);
      _mm_storeu_si128(dst, _mm_sub_epi16(_mm_unpacklo_epi8(bytes, zero), offset));
      _mm_storeu_si128(dst + 1, _mm_sub_epi16(_mm_unpackhi_epi8(bytes, zero), offset));
      if (x + 16 == x_end) break;
    }
    return;
  }
  if (x_end - x_begin >= 8) {
    for (;; x += 8) {
      if (x + 8 > x_end) x = x_end - 8;
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + x));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(row + x),
                       _mm_sub_epi16(_mm_unpacklo_epi8(bytes, zero), offset));
      if (x + 8 == x_end) break;
    }
    return;
  }
  // Rows of 1 to 7 values (7 x 7 planes): one 8-byte step with the lanes
  // past the input zeroed (they are padding), where the plane row has 8
  // columns from x and the input plane 8 bytes from in + x.
  if (x + 8 <= width && bytes_left >= 8) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + x));
    const __m128i inside = _mm_cmplt_epi16(_mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7),
                                           _mm_set1_epi16(static_cast<int16_t>(x_end - x)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(row + x),
                     _mm_and_si128(_mm_sub_epi16(_mm_unpacklo_epi8(bytes, zero), offset), inside));
    return;
  }
  for (; x < x_end; ++x) row[x] = static_cast<int16_t>(in[x] - zero_point);
}

int64_t CopyUint8RowsWide(const uint8_t* bytes, int64_t pitch, int64_t out_h, int64_t out_w,
                          uint8_t* out) {
  // 16 bytes per row (out_w <= 16) while the rows written after it cover
  // the excess.
  int64_t y = 0;
  for (; y * out_w + 16 <= out_h * out_w; ++y) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + y * out_w),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + y * pitch)));
  }
  return y;
}

}  // namespace ops
}  // namespace mace
