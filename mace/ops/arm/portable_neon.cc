// The kernels written once in portable C++ (cpu/gemv_kernels.inc,
// cpu/winograd_kernels.inc), built here with this library's NEON flags so
// the compiler vectorizes them for this instruction set.
#include <arm_neon.h>

#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {
#include "mace/ops/cpu/gemv_kernels.inc"
#include "mace/ops/cpu/winograd_kernels.inc"
// Channel blocks of 4 lanes (one quad register). arm64 keeps 8 x 3
// accumulators, three weight vectors and a broadcast input value in its 32
// vector registers; armv7 has 16 and keeps 4 x 2.
constexpr int kBkLanes = 4;
#if defined(__aarch64__)
constexpr int kBkPos = 8;
constexpr int kBkBlocks = 3;
#else
constexpr int kBkPos = 4;
constexpr int kBkBlocks = 2;
#endif
#include "mace/ops/cpu/blocked_kernels.inc"

// NEON has no masked store: the tail goes lane by lane.
inline void WgStorePartial(const float* src, int64_t count, float* dst) {
  for (int64_t i = 0; i < count; ++i) dst[i] = src[i];
}

// vmaxq_f32 and vminq_f32 return NaN when either operand is NaN.
inline BkVec BkAtLeast(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(vmaxq_f32(reinterpret_cast<float32x4_t>(x), vdupq_n_f32(bound)));
}
inline BkVec BkAtMost(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(vminq_f32(reinterpret_cast<float32x4_t>(x), vdupq_n_f32(bound)));
}
inline BkVec BkMaxOf(const BkVec& a, const BkVec& b) {
  return reinterpret_cast<BkVec>(
      vmaxq_f32(reinterpret_cast<float32x4_t>(a), reinterpret_cast<float32x4_t>(b)));
}
}  // namespace

bool NeonPanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out) {
  return GemvDot(panel, depth, width, x, out);
}

void NeonBlockedConv(const BlockedConvRun& run) { BkConv(run); }
void NeonBlockedWindow(const BlockedWindowRun& run) { BkWindow(run); }

void NeonWinogradInput(const WinogradInputRun& run) { WgInput(run); }
void NeonWinogradOutput(const WinogradOutputRun& run) { WgOutput(run); }

}  // namespace arm
}  // namespace ops
}  // namespace mace
