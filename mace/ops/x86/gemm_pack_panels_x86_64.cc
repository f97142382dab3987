// GEMM panels from a depth-contiguous operand on x86-64, by SSE 4x4
// transposes (gemm_pack_panels.h): four loads and four stores per 16
// values instead of one each, and for a width with two rows past its groups
// of four (AVX2's 6-row A panels) one interleave of those two rows per four
// depths. Built with baseline flags, so SSE2 only.
#include <xmmintrin.h>

#include <algorithm>

#include "mace/ops/cpu/gemm_pack_panels.h"

namespace mace {
namespace ops {
namespace {

// A whole panel of `width` rows, `stride` apart: per four depths, each
// group of four rows is one transpose, stored as a quarter of four depth
// rows of the panel, and two rows left over (width 4 * groups + 2) are
// interleaved into pairs, one pair per depth row.
void PackFullPanel(const float* src, int64_t depth, int64_t stride, int width, float* dst) {
  const int groups = width / 4;
  const bool pair = width % 4 == 2;
  int64_t d = 0;
  for (; d + 4 <= depth; d += 4) {
    if (pair) {
      const float* row = src + int64_t{4} * groups * stride + d;
      const __m128 a = _mm_loadu_ps(row);
      const __m128 b = _mm_loadu_ps(row + stride);
      const __m128 lo = _mm_unpacklo_ps(a, b);  // a0 b0 a1 b1
      const __m128 hi = _mm_unpackhi_ps(a, b);  // a2 b2 a3 b3
      float* out = dst + d * width + 4 * groups;
      _mm_storel_pi(reinterpret_cast<__m64*>(out), lo);
      _mm_storeh_pi(reinterpret_cast<__m64*>(out + width), lo);
      _mm_storel_pi(reinterpret_cast<__m64*>(out + 2 * width), hi);
      _mm_storeh_pi(reinterpret_cast<__m64*>(out + 3 * width), hi);
    }
    for (int g = 0; g < groups; ++g) {
      const float* row = src + int64_t{4} * g * stride + d;
      __m128 r0 = _mm_loadu_ps(row);
      __m128 r1 = _mm_loadu_ps(row + stride);
      __m128 r2 = _mm_loadu_ps(row + 2 * stride);
      __m128 r3 = _mm_loadu_ps(row + 3 * stride);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      float* out = dst + d * width + 4 * g;
      _mm_storeu_ps(out, r0);
      _mm_storeu_ps(out + width, r1);
      _mm_storeu_ps(out + 2 * width, r2);
      _mm_storeu_ps(out + 3 * width, r3);
    }
  }
  for (; d < depth; ++d) {
    for (int i = 0; i < width; ++i) dst[d * width + i] = src[i * stride + d];
  }
}

}  // namespace

// Even widths (the AVX-512 table's 8-row A panels and 32-column B panels,
// AVX2's 6-row A and 16-column B ones); a last partial panel is copied
// value by value and zero-padded.
bool PackContiguousDepthPanels(const float* src, int64_t rows, int64_t depth, int64_t stride,
                               int width, float* dst) {
  if (width % 2 != 0) return false;
  const int64_t full = rows / width;
  for (int64_t p = 0; p < full; ++p, dst += depth * width) {
    PackFullPanel(src + p * width * stride, depth, stride, width, dst);
  }
  const int valid = static_cast<int>(rows - full * width);
  if (valid == 0) return true;
  const float* base = src + full * width * stride;
  for (int64_t d = 0; d < depth; ++d) {
    float* out = dst + d * width;
    for (int i = 0; i < valid; ++i) out[i] = base[i * stride + d];
    std::fill(out + valid, out + width, 0.f);
  }
  return true;
}

}  // namespace ops
}  // namespace mace
