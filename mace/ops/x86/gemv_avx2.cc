// The matrix-vector kernel built for AVX2: the portable code of
// cpu/gemv_kernels.inc, which the compiler vectorizes for this instruction set.
#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {
#include "mace/ops/cpu/gemv_kernels.inc"
}  // namespace

bool Avx2PanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out) {
  return GemvDot(panel, depth, width, x, out);
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
