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
#if !defined(__aarch64__)
// LayerNorm's centred differences kept as computed (TkKept).
#define MACE_TK_KEEP(v) __asm__("" : "+w"(v))
#endif
#include "mace/ops/cpu/transformer_kernels.inc"
#undef MACE_TK_KEEP

TransformerKernels MakeNeon(const TransformerKernels& portable) {
  TransformerKernels kernels = TkFill("neon");
#if !defined(__aarch64__)
  // The flag's reassociation undoes softmax's two-sum and exp's split ln 2
  // (errors up to 3e-6 relative, against the bound of 1e-6): armv7 keeps
  // the portable softmax. exp_shifted stays within its bound, which grows
  // with x - shift. LayerNorm's centred differences and two-float mean,
  // which it would fold back into one (errors of 3e-5 on rows offset by
  // 1000), are held by MACE_TK_KEEP above.
  kernels.softmax = portable.softmax;
  // It may also fold fake_quantize's and quantize_row's rounding (adding
  // and subtracting 1.5 * 2^23) away and row_range's NaN check (x * 0),
  // and NEON flushes denormals: the portable ones.
  kernels.fake_quantize = portable.fake_quantize;
  kernels.quantize_row = portable.quantize_row;
  kernels.row_range = portable.row_range;
#else
  (void)portable;
#endif
  return kernels;
}

}  // namespace

const TransformerKernels* PortTransformerKernels(KernelIsa isa,
                                                 const TransformerKernels& portable) {
  if (isa != KernelIsa::kNeon) return nullptr;
  static const TransformerKernels neon = MakeNeon(portable);
  return &neon;
}

}  // namespace ops
}  // namespace mace
