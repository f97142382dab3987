// The matrix-vector kernel built for NEON: the portable code of
// cpu/gemv_kernels.inc, which the compiler vectorizes for this instruction set.
#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {
#include "mace/ops/cpu/gemv_kernels.inc"
}  // namespace

bool NeonPanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out) {
  return GemvDot(panel, depth, width, x, out);
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
