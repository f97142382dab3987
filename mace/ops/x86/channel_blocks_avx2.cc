// Activations between plain NCHW rows and 8-lane channel blocks
// (BlockedPackKernel, BlockedUnpackKernel) as 8 x 8 register transposes; a
// tail of under 8 positions goes one value at a time.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

// Every loop here is unrolled so that the arrays of vectors stay in
// registers: at -O2 GCC kept them on the stack, and a block of 8 x 8 went
// through memory twice (4 times slower on an AMD EPYC).
inline void Transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
#pragma GCC unroll 8
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 8
  for (int i = 0; i < 2; ++i) {
    u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
#pragma GCC unroll 8
  for (int m = 0; m < 4; ++m) {
    r[m] = _mm256_permute2f128_ps(u[m], u[4 + m], 0x20);
    r[4 + m] = _mm256_permute2f128_ps(u[m], u[4 + m], 0x31);
  }
}

}  // namespace

void Avx2ChannelPack(const float* src, int64_t stride, int lanes, int64_t count, float* dst) {
  __m256 r[8];
  int64_t j = 0;
  for (; j + 8 <= count; j += 8) {
#pragma GCC unroll 8
    for (int l = 0; l < 8; ++l) {
      r[l] = l < lanes ? _mm256_loadu_ps(src + l * stride + j) : _mm256_setzero_ps();
    }
    Transpose8(r);
#pragma GCC unroll 8
    for (int p = 0; p < 8; ++p) _mm256_storeu_ps(dst + (j + p) * 8, r[p]);
  }
  for (; j < count; ++j) {
    for (int l = 0; l < 8; ++l) dst[j * 8 + l] = l < lanes ? src[l * stride + j] : 0.f;
  }
}

void Avx2ChannelUnpack(const float* src, int lanes, int64_t count, float* dst, int64_t stride) {
  __m256 r[8];
  int64_t j = 0;
  for (; j + 8 <= count; j += 8) {
#pragma GCC unroll 8
    for (int p = 0; p < 8; ++p) r[p] = _mm256_loadu_ps(src + (j + p) * 8);
    Transpose8(r);
#pragma GCC unroll 8
    for (int l = 0; l < 8; ++l) {
      if (l < lanes) _mm256_storeu_ps(dst + l * stride + j, r[l]);
    }
  }
  for (; j < count; ++j) {
    for (int l = 0; l < lanes; ++l) dst[l * stride + j] = src[j * 8 + l];
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
