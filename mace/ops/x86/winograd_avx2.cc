// The Winograd transforms written once in portable C++
// (cpu/winograd_kernels.inc), built here with this library's AVX2 + FMA flags
// so the compiler vectorizes them for this instruction set, with the masked
// loads and stores and the clamps that file asks each instruction set for.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {
#include "mace/ops/cpu/winograd_kernels.inc"

// The mask of lanes [begin, end) in half `half` (lanes 8 * half + [0, 8)) of
// a WgVec: the sign bit of each 32-bit lane.
inline __m256i WgHalfMask(int64_t begin, int64_t end, int half) {
  const __m256i lane =
      _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(8 * half));
  return _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(begin)), lane),
                             _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(end)), lane));
}

// AVX2 loads and stores eight lanes under a mask, a half at a time; src may
// end with the run, so it is read under the mask too.
inline void WgStorePartial(const float* src, int64_t count, float* dst) {
  for (int half = 0; half < 2; ++half) {
    const __m256i mask = WgHalfMask(0, count, half);
    _mm256_maskstore_ps(dst + 8 * half, mask, _mm256_maskload_ps(src + 8 * half, mask));
  }
}

// A WgVec is two 8-lane halves, each stored (loaded) under its part of the
// mask.
inline void WgStoreLanes(const WgVec& v, int64_t begin, int64_t end, float* lane0) {
  const float* in = reinterpret_cast<const float*>(&v);
  for (int half = 0; half < 2; ++half) {
    _mm256_maskstore_ps(lane0 + 8 * half, WgHalfMask(begin, end, half),
                        _mm256_loadu_ps(in + 8 * half));
  }
}

inline WgVec WgLoadLanes(const float* lane0, int64_t begin, int64_t end) {
  WgVec v;
  float* out = reinterpret_cast<float*>(&v);
  for (int half = 0; half < 2; ++half) {
    _mm256_storeu_ps(out + 8 * half,
                     _mm256_maskload_ps(lane0 + 8 * half, WgHalfMask(begin, end, half)));
  }
  return v;
}

// max and min return their second operand when either is NaN; a WgVec is two
// 8-lane halves.
template <typename Op>
inline WgVec WgHalves(const WgVec& x, float bound, Op op) {
  const __m256 b = _mm256_set1_ps(bound);
  WgVec y;
  float* out = reinterpret_cast<float*>(&y);
  const float* in = reinterpret_cast<const float*>(&x);
  _mm256_storeu_ps(out, op(b, _mm256_loadu_ps(in)));
  _mm256_storeu_ps(out + 8, op(b, _mm256_loadu_ps(in + 8)));
  return y;
}
inline WgVec WgAtLeast(const WgVec& x, float bound) {
  return WgHalves(x, bound, [](__m256 b, __m256 v) { return _mm256_max_ps(b, v); });
}
inline WgVec WgAtMost(const WgVec& x, float bound) {
  return WgHalves(x, bound, [](__m256 b, __m256 v) { return _mm256_min_ps(b, v); });
}
}  // namespace

void Avx2WinogradInput(const WinogradInputRun& run) { WgInput(run); }
void Avx2WinogradOutput(const WinogradOutputRun& run) { WgOutput(run); }
void Avx2WinogradFilter(const float* g, int tile, float* u) { WgFilter(g, tile, u); }

}  // namespace x86
}  // namespace ops
}  // namespace mace
