// The Winograd transforms written once in portable C++
// (cpu/winograd_kernels.inc), built here with this library's AVX-512 flags so
// the compiler vectorizes them for this instruction set, with the masked
// loads and stores and the clamps that file asks each instruction set for.
#include "mace/ops/x86/avx512_intrinsics.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {
#include "mace/ops/cpu/winograd_kernels.inc"

// The mask of lanes [begin, end), 0 <= begin <= end <= 16.
inline __mmask16 WgLaneMask(int64_t begin, int64_t end) {
  return static_cast<__mmask16>(((1u << end) - 1) & ~((1u << begin) - 1));
}

// AVX-512 loads and stores under a lane mask; src may end with the run, so
// it is read under the mask too.
inline void WgStorePartial(const float* src, int64_t count, float* dst) {
  const __mmask16 mask = WgLaneMask(0, count);
  _mm512_mask_storeu_ps(dst, mask, _mm512_maskz_loadu_ps(mask, src));
}

inline void WgStoreLanes(const WgVec& v, int64_t begin, int64_t end, float* lane0) {
  _mm512_mask_storeu_ps(lane0, WgLaneMask(begin, end), reinterpret_cast<__m512>(v));
}

inline WgVec WgLoadLanes(const float* lane0, int64_t begin, int64_t end) {
  return reinterpret_cast<WgVec>(_mm512_maskz_loadu_ps(WgLaneMask(begin, end), lane0));
}

// max and min return their second operand when either is NaN.
inline WgVec WgAtLeast(const WgVec& x, float bound) {
  return reinterpret_cast<WgVec>(_mm512_max_ps(_mm512_set1_ps(bound), reinterpret_cast<__m512>(x)));
}
inline WgVec WgAtMost(const WgVec& x, float bound) {
  return reinterpret_cast<WgVec>(_mm512_min_ps(_mm512_set1_ps(bound), reinterpret_cast<__m512>(x)));
}
}  // namespace

void Avx512WinogradInput(const WinogradInputRun& run) { WgInput(run); }
void Avx512WinogradOutput(const WinogradOutputRun& run) { WgOutput(run); }
void Avx512WinogradFilter(const float* g, int tile, float* u) { WgFilter(g, tile, u); }

}  // namespace x86
}  // namespace ops
}  // namespace mace
