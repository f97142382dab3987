// The kernels written once in portable C++ (cpu/gemv_kernels.inc,
// cpu/blocked_kernels.inc), built here with this library's AVX-512 flags so
// the compiler vectorizes them for this instruction set. The Winograd
// transforms are in winograd_avx512.cc: each of the two is a long compile,
// and apart they build in parallel.
#include "mace/ops/x86/avx512_intrinsics.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {
#include "mace/ops/cpu/gemv_kernels.inc"
#include "mace/ops/cpu/winograd_common.inc"
// Channel blocks of 16 lanes; a conv tile keeps 8 x 3 accumulators and three
// weight vectors in the 32 ZMM registers (the input values are broadcast
// straight from memory by the multiply-adds).
constexpr int kBkLanes = 16;
constexpr int kBkPos = 8;
constexpr int kBkBlocks = 4;
constexpr int kBkAccumulators = 24;  // 8 x 3, and 6 x 4
constexpr bool kBkUnrollBlocks = true;
#include "mace/ops/cpu/blocked_kernels.inc"

inline BkVec BkAtLeast(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(_mm512_max_ps(_mm512_set1_ps(bound), reinterpret_cast<__m512>(x)));
}
inline BkVec BkAtMost(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(_mm512_min_ps(_mm512_set1_ps(bound), reinterpret_cast<__m512>(x)));
}
inline BkVec BkMaxOf(const BkVec& a, const BkVec& b) {
  return reinterpret_cast<BkVec>(
      _mm512_max_ps(reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b)));
}
// An empty asm statement holding v in a ZMM register.
inline void BkInRegister(BkVec& v) { __asm__("" : "+v"(v)); }

// A panel of width 1 is one row of a matrix read in place (a FullyConnected
// weight that is not packed). Four accumulators keep the loop bound by
// reading the row rather than by one multiply-add chain; the rows of a
// classifier are read back to back, so the loop fetches kGemvAhead bytes
// ahead as the panel kernel does.
float RowDot(const float* row, int64_t depth, const float* x) {
  __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  int64_t d = 0;
  for (; d + 64 <= depth; d += 64) {
    const char* ahead = reinterpret_cast<const char*>(row + d) + kGemvAhead;
    for (int line = 0; line < 256; line += 64) __builtin_prefetch(ahead + line);
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(row + d), _mm512_loadu_ps(x + d), acc0);
    acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(row + d + 16), _mm512_loadu_ps(x + d + 16), acc1);
    acc2 = _mm512_fmadd_ps(_mm512_loadu_ps(row + d + 32), _mm512_loadu_ps(x + d + 32), acc2);
    acc3 = _mm512_fmadd_ps(_mm512_loadu_ps(row + d + 48), _mm512_loadu_ps(x + d + 48), acc3);
  }
  for (; d + 16 <= depth; d += 16) {
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(row + d), _mm512_loadu_ps(x + d), acc0);
  }
  if (d < depth) {
    // Masked loads: the row (and x) may end at the last valid float.
    const __mmask16 mask = static_cast<__mmask16>((1u << (depth - d)) - 1);
    acc1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, row + d), _mm512_maskz_loadu_ps(mask, x + d),
                           acc1);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3)));
}
}  // namespace

bool Avx512PanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out) {
  if (width == 1) {
    out[0] = RowDot(panel, depth, x);
    return true;
  }
  return GemvDot(panel, depth, width, x, out);
}

void Avx512BlockedConv(const BlockedConvRun& run) { BkConv(run); }

// One gather per column: lane l reads row l (index l * stride, masked to
// `lanes`, zeros elsewhere).
void Avx512BlockedPack(const float* src, int64_t stride, int lanes, int64_t count, float* dst) {
  const __m512i index =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<int32_t>(stride)));
  const __mmask16 mask = static_cast<__mmask16>((1u << lanes) - 1);
  for (int64_t j = 0; j < count; ++j) {
    _mm512_storeu_ps(dst + j * 16,
                     _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask, index, src + j, 4));
  }
}
void Avx512BlockedWindow(const BlockedWindowRun& run) { BkWindow(run); }
void Avx512BlockedWinogradInput(const BlockedWinogradInputRun& run) { BkWinogradInput(run); }
void Avx512BlockedWinogradOutput(const BlockedWinogradOutputRun& run) { BkWinogradOutput(run); }

}  // namespace x86
}  // namespace ops
}  // namespace mace
