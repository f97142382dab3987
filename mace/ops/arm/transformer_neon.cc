// The ARM port's transformer element-wise kernels
// (cpu/transformer_kernels.inc): four NEON lanes, built with the ARM
// builds' vector flags (on armv7 -funsafe-math-optimizations, without which
// GCC lowers generic float vectors to scalar VFP code). NEON is part of
// every build of the port, so the variant is filled here.
#include "mace/ops/cpu/transformer_kernels.h"

namespace mace {
namespace ops {
namespace {
constexpr int kTkLanes = 4;
#include "mace/ops/cpu/transformer_kernels.inc"
}  // namespace

const TransformerKernels* PortTransformerKernels(KernelIsa isa) {
  if (isa != KernelIsa::kNeon) return nullptr;
  static const TransformerKernels neon = TkFill("neon");
  return &neon;
}

}  // namespace ops
}  // namespace mace
