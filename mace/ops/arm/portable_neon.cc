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

// NEON has no masked store: the tail goes lane by lane.
inline void WgStorePartial(const float* src, int64_t count, float* dst) {
  for (int64_t i = 0; i < count; ++i) dst[i] = src[i];
}
}  // namespace

bool NeonPanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out) {
  return GemvDot(panel, depth, width, x, out);
}

void NeonWinogradInput(const WinogradInputRun& run) { WgInput(run); }
void NeonWinogradOutput(const WinogradOutputRun& run) { WgOutput(run); }

}  // namespace arm
}  // namespace ops
}  // namespace mace
