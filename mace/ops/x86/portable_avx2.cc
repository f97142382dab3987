// The kernels written once in portable C++ (cpu/gemv_kernels.inc,
// cpu/blocked_kernels.inc), built here with this library's AVX2 + FMA flags so
// the compiler vectorizes them for this instruction set. The Winograd
// transforms are in winograd_avx2.cc: each of the two is a long compile, and
// apart they build in parallel.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {
#include "mace/ops/cpu/gemv_kernels.inc"
#include "mace/ops/cpu/winograd_common.inc"
// Channel blocks of 8 lanes; a conv tile keeps 6 x 2 accumulators, two
// weight vectors and a broadcast input value in the 16 YMM registers.
constexpr int kBkLanes = 8;
constexpr int kBkPos = 6;
constexpr int kBkBlocks = 2;
constexpr int kBkAccumulators = kBkPos * kBkBlocks;
constexpr bool kBkUnrollBlocks = true;
#include "mace/ops/cpu/blocked_kernels.inc"

inline BkVec BkAtLeast(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(_mm256_max_ps(_mm256_set1_ps(bound), reinterpret_cast<__m256>(x)));
}
inline BkVec BkAtMost(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(_mm256_min_ps(_mm256_set1_ps(bound), reinterpret_cast<__m256>(x)));
}
inline BkVec BkMaxOf(const BkVec& a, const BkVec& b) {
  return reinterpret_cast<BkVec>(
      _mm256_max_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b)));
}
// An empty asm statement holding v in a YMM register.
inline void BkInRegister(BkVec& v) { __asm__("" : "+v"(v)); }

// A panel of width 1 is one row of a matrix read in place (a FullyConnected
// weight that is not packed). Four accumulators keep the loop bound by
// reading the row rather than by one multiply-add chain; the rows of a
// classifier are read back to back, so the loop fetches kGemvAhead bytes
// ahead as the panel kernel does.
float RowDot(const float* row, int64_t depth, const float* x) {
  __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  int64_t d = 0;
  for (; d + 32 <= depth; d += 32) {
    const char* ahead = reinterpret_cast<const char*>(row + d) + kGemvAhead;
    __builtin_prefetch(ahead);
    __builtin_prefetch(ahead + 64);
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d), _mm256_loadu_ps(x + d), acc0);
    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d + 8), _mm256_loadu_ps(x + d + 8), acc1);
    acc2 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d + 16), _mm256_loadu_ps(x + d + 16), acc2);
    acc3 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d + 24), _mm256_loadu_ps(x + d + 24), acc3);
  }
  for (; d + 8 <= depth; d += 8) {
    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(row + d), _mm256_loadu_ps(x + d), acc0);
  }
  if (d < depth) {
    // Masked loads: the row (and x) may end at the last valid float.
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(depth - d)), lane);
    acc1 = _mm256_fmadd_ps(_mm256_maskload_ps(row + d, mask), _mm256_maskload_ps(x + d, mask),
                           acc1);
  }
  const __m256 sum = _mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3));
  __m128 half = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
  half = _mm_add_ps(half, _mm_movehl_ps(half, half));
  half = _mm_add_ss(half, _mm_movehdup_ps(half));
  return _mm_cvtss_f32(half);
}
}  // namespace

bool Avx2PanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out) {
  if (width == 1) {
    out[0] = RowDot(panel, depth, x);
    return true;
  }
  return GemvDot(panel, depth, width, x, out);
}

void Avx2BlockedConv(const BlockedConvRun& run) { BkConv(run); }

// One gather per column: lane l reads row l (index l * stride, masked to
// `lanes`, zeros elsewhere).
void Avx2BlockedPack(const float* src, int64_t stride, int lanes, int64_t count, float* dst) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i index = _mm256_mullo_epi32(lane, _mm256_set1_epi32(static_cast<int32_t>(stride)));
  const __m256 mask = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), lane));
  for (int64_t j = 0; j < count; ++j) {
    _mm256_storeu_ps(dst + j * 8,
                     _mm256_mask_i32gather_ps(_mm256_setzero_ps(), src + j, index, mask, 4));
  }
}
void Avx2BlockedWindow(const BlockedWindowRun& run) { BkWindow(run); }
void Avx2BlockedWinogradInput(const BlockedWinogradInputRun& run) { BkWinogradInput(run); }
void Avx2BlockedWinogradOutput(const BlockedWinogradOutputRun& run) { BkWinogradOutput(run); }

}  // namespace x86
}  // namespace ops
}  // namespace mace
