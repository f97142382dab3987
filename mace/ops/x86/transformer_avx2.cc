// The transformer element-wise kernels (cpu/transformer_kernels.inc) built
// with AVX2 + FMA: eight lanes.
#include "mace/ops/x86/transformer_kernels_x86.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {
constexpr int kTkLanes = 8;
#include "mace/ops/cpu/transformer_kernels.inc"
}  // namespace

TransformerKernels Avx2TransformerKernels() { return TkFill("avx2_fma"); }

}  // namespace x86
}  // namespace ops
}  // namespace mace
