// The Winograd F(2x2) and F(4x4) transforms built for NEON: the portable code
// of cpu/winograd_kernels.inc, which the compiler vectorizes for NEON.
#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {
#include "mace/ops/cpu/winograd_kernels.inc"

// NEON has no masked store: the tail goes lane by lane.
inline void WgStorePartial(const float* src, int64_t count, float* dst) {
  for (int64_t i = 0; i < count; ++i) dst[i] = src[i];
}
}  // namespace

void NeonWinogradInput(const WinogradInputRun& run) { WgInput(run); }
void NeonWinogradOutput(const WinogradOutputRun& run) { WgOutput(run); }

}  // namespace arm
}  // namespace ops
}  // namespace mace
