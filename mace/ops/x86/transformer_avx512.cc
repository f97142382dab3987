// The transformer element-wise kernels (cpu/transformer_kernels.inc) built
// with AVX-512: sixteen lanes.
#include "mace/ops/x86/transformer_kernels_x86.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {
constexpr int kTkLanes = 16;
#include "mace/ops/cpu/transformer_kernels.inc"
}  // namespace

TransformerKernels Avx512TransformerKernels() { return TkFill("avx512"); }

}  // namespace x86
}  // namespace ops
}  // namespace mace
