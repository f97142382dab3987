// GEMM panels from a depth-contiguous operand on x86-64, by SSE 4x4
// transposes (gemm_pack_panels.h): four loads and four stores per 16
// values instead of one each. Built with baseline flags, so SSE2 only.
#include <xmmintrin.h>

#include <algorithm>

#include "mace/ops/cpu/gemm_pack_panels.h"

namespace mace {
namespace ops {
namespace {

// Panel rows [0, 4 * groups) of `width`, from rows `stride` apart: per four
// depths, each group of four rows is one transpose, stored as a quarter of
// four depth rows of the panel.
void PackFullPanel(const float* src, int64_t depth, int64_t stride, int width, float* dst) {
  const int groups = width / 4;
  int64_t d = 0;
  for (; d + 4 <= depth; d += 4) {
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

// Widths of whole groups of four (the AVX-512 table's 8-row A panels and
// 32-column B panels, AVX2's 16-column ones); a last partial panel is
// copied value by value and zero-padded.
bool PackContiguousDepthPanels(const float* src, int64_t rows, int64_t depth, int64_t stride,
                               int width, float* dst) {
  if (width % 4 != 0) return false;
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
