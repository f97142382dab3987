// The multiply-adds of a partial GEMM tile's narrow tail, shared by the AVX2
// and AVX-512 kernels: each of the last kCols columns gets one 8-lane vector
// holding the tile's kMr rows, so a k step costs kCols multiply-adds (the A
// values are one load, each B value a broadcast) where a whole vector of
// columns costs kMr. Only included by files built with -mavx2 and -mfma or
// wider; the function is static so each file keeps its own copy and none can
// leak into baseline code.
#ifndef MACE_OPS_X86_COLUMN_TAIL_H_
#define MACE_OPS_X86_COLUMN_TAIL_H_

#include <immintrin.h>

#include <cstdint>

namespace mace {
namespace ops {
namespace x86 {

// sums[j] (rows in lanes 0 .. kMr - 1) = A panel (kMr values per k step) x
// column j of the B panel (kNr values per k step), for k < kc. Independent
// chains of k steps keep enough FMAs in flight when there are few columns.
template <int kMr, int kNr, int kCols>
static inline void ColumnTailSums(int64_t kc, const float* a, const float* b, __m256 sums[kCols]) {
  static_assert(kMr <= 8, "one 8-lane vector per column");
  constexpr int kChains = kCols <= 2 ? 4 : 2;
  const __m256i a_mask =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(kMr), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  // A full 8-row step is a plain load; a shorter one must not read past the
  // panel's last step.
  const auto load_a = [&](const float* p) {
    return kMr == 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, a_mask);
  };
  __m256 acc[kChains][kCols];
#pragma GCC unroll 4
  for (int s = 0; s < kChains; ++s) {
#pragma GCC unroll 8
    for (int j = 0; j < kCols; ++j) acc[s][j] = _mm256_setzero_ps();
  }
  int64_t k = 0;
  for (; k + kChains <= kc; k += kChains) {
#pragma GCC unroll 4
    for (int s = 0; s < kChains; ++s) {
      const __m256 as = load_a(a + kMr * s);
#pragma GCC unroll 8
      for (int j = 0; j < kCols; ++j) {
        acc[s][j] = _mm256_fmadd_ps(as, _mm256_broadcast_ss(b + kNr * s + j), acc[s][j]);
      }
    }
    a += kMr * kChains;
    b += kNr * kChains;
  }
  for (; k < kc; ++k) {
    const __m256 a0 = load_a(a);
#pragma GCC unroll 8
    for (int j = 0; j < kCols; ++j) {
      acc[0][j] = _mm256_fmadd_ps(a0, _mm256_broadcast_ss(b + j), acc[0][j]);
    }
    a += kMr;
    b += kNr;
  }
#pragma GCC unroll 8
  for (int j = 0; j < kCols; ++j) {
    sums[j] = acc[0][j];
#pragma GCC unroll 4
    for (int s = 1; s < kChains; ++s) sums[j] = _mm256_add_ps(sums[j], acc[s][j]);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_COLUMN_TAIL_H_
