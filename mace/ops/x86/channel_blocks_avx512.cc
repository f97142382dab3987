// Activations between plain NCHW rows and 16-lane channel blocks
// (BlockedPackKernel, BlockedUnpackKernel) as 16 x 16 register transposes:
// the conversions where a blocked run of ops meets a plain one.
#include "mace/ops/x86/avx512_intrinsics.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

// The loops here are unrolled so that fewer of the vectors go through the
// stack: at -O2 GCC kept them rolled, and the arrays of vectors in memory.

// r[i] lane j becomes r[j] lane i: pairs of rows interleaved, then pairs of
// pairs, then the 128-bit quarters regrouped.
inline void Transpose16(__m512 r[16]) {
  __m512 t[16];
#pragma GCC unroll 16
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // Quarter k of r[4 * i + m] then holds column 4 * k + m of rows 4 * i to
  // 4 * i + 3.
#pragma GCC unroll 16
  for (int i = 0; i < 4; ++i) {
    const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
    const __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
    r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  // Each m reads and writes rows m, 4 + m, 8 + m and 12 + m only, so the
  // regrouping goes in place.
#pragma GCC unroll 16
  for (int m = 0; m < 4; ++m) {
    const __m512 ab_even = _mm512_shuffle_f32x4(r[m], r[4 + m], 0x88);
    const __m512 ab_odd = _mm512_shuffle_f32x4(r[m], r[4 + m], 0xDD);
    const __m512 cd_even = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0x88);
    const __m512 cd_odd = _mm512_shuffle_f32x4(r[8 + m], r[12 + m], 0xDD);
    r[m] = _mm512_shuffle_f32x4(ab_even, cd_even, 0x88);
    r[8 + m] = _mm512_shuffle_f32x4(ab_even, cd_even, 0xDD);
    r[4 + m] = _mm512_shuffle_f32x4(ab_odd, cd_odd, 0x88);
    r[12 + m] = _mm512_shuffle_f32x4(ab_odd, cd_odd, 0xDD);
  }
}

inline __mmask16 FirstLanes(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

}  // namespace

void Avx512ChannelPack(const float* src, int64_t stride, int lanes, int64_t count, float* dst) {
  __m512 r[16];
  for (int64_t j = 0; j < count; j += 16) {
    const int64_t n = count - j < 16 ? count - j : 16;
    const __mmask16 mask = FirstLanes(n);
#pragma GCC unroll 16
    for (int l = 0; l < 16; ++l) {
      r[l] = l < lanes ? _mm512_maskz_loadu_ps(mask, src + l * stride + j) : _mm512_setzero_ps();
    }
    Transpose16(r);
#pragma GCC unroll 16
    for (int p = 0; p < 16; ++p) {
      if (p < n) _mm512_storeu_ps(dst + (j + p) * 16, r[p]);
    }
  }
}

void Avx512ChannelUnpack(const float* src, int lanes, int64_t count, float* dst, int64_t stride) {
  __m512 r[16];
  for (int64_t j = 0; j < count; j += 16) {
    const int64_t n = count - j < 16 ? count - j : 16;
    const __mmask16 mask = FirstLanes(n);
#pragma GCC unroll 16
    for (int p = 0; p < 16; ++p) {
      r[p] = p < n ? _mm512_loadu_ps(src + (j + p) * 16) : _mm512_setzero_ps();
    }
    Transpose16(r);
#pragma GCC unroll 16
    for (int l = 0; l < 16; ++l) {
      if (l < lanes) _mm512_mask_storeu_ps(dst + l * stride + j, mask, r[l]);
    }
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
