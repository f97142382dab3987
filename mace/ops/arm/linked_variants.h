// Which activation specializations of the NEON GEMM and depthwise kernels a
// build links. A kernel that clamps its results to [lo, hi] in registers
// comes in variants: no clamp (no activation), a lower bound only (ReLU),
// both bounds (ReLU6, RELUX) and, for depthwise, hard swish. The two-sided
// clamp is always linked: with lo = -inf and hi = +inf it stores the same
// bits as the others (NEON's fmax and fmin return a NaN operand, and no
// other value moves), two instructions a vector slower.
//
// A model-specific library leaves out the variants its models never pick
// (--define=mace_neon_<variant>=off, chosen by
// tools/python/mace_converter/kernel_families.py from the ops' activations):
// mace/ops/BUILD.bazel then compiles arm_kernels with MACE_NEON_<VARIANT>=0
// and those cases run the two-sided clamp, or for hard swish the unclamped
// depthwise bands followed by hard swish over their outputs.
//
// Only the files of arm_kernels get the defines: include this from their
// .cc files only.
#ifndef MACE_OPS_ARM_LINKED_VARIANTS_H_
#define MACE_OPS_ARM_LINKED_VARIANTS_H_

#include <limits>

#ifndef MACE_NEON_GEMM_UNCLAMPED
#define MACE_NEON_GEMM_UNCLAMPED 1
#endif
#ifndef MACE_NEON_GEMM_LOWER_CLAMP
#define MACE_NEON_GEMM_LOWER_CLAMP 1
#endif
#ifndef MACE_NEON_DEPTHWISE_UNCLAMPED
#define MACE_NEON_DEPTHWISE_UNCLAMPED 1
#endif
#ifndef MACE_NEON_DEPTHWISE_LOWER_CLAMP
#define MACE_NEON_DEPTHWISE_LOWER_CLAMP 1
#endif
#ifndef MACE_NEON_DEPTHWISE_HARDSWISH
#define MACE_NEON_DEPTHWISE_HARDSWISH 1
#endif
// The element-wise row kernel (eltwise_neon.cc) is specialized by operation,
// broadcast and fused activation. An operation left out
// (--define=mace_neon_eltwise_<op>=off) runs one generic row that picks the
// same NEON instruction per vector at run time: the same bits, slower.
#ifndef MACE_NEON_ELTWISE_SUM
#define MACE_NEON_ELTWISE_SUM 1
#endif
#ifndef MACE_NEON_ELTWISE_WEIGHTED_SUM
#define MACE_NEON_ELTWISE_WEIGHTED_SUM 1
#endif
#ifndef MACE_NEON_ELTWISE_SUB
#define MACE_NEON_ELTWISE_SUB 1
#endif
#ifndef MACE_NEON_ELTWISE_PROD
#define MACE_NEON_ELTWISE_PROD 1
#endif
#ifndef MACE_NEON_ELTWISE_DIV
#define MACE_NEON_ELTWISE_DIV 1
#endif
#ifndef MACE_NEON_ELTWISE_MIN
#define MACE_NEON_ELTWISE_MIN 1
#endif
#ifndef MACE_NEON_ELTWISE_MAX
#define MACE_NEON_ELTWISE_MAX 1
#endif
#ifndef MACE_NEON_ELTWISE_NEG
#define MACE_NEON_ELTWISE_NEG 1
#endif
#ifndef MACE_NEON_ELTWISE_ABS
#define MACE_NEON_ELTWISE_ABS 1
#endif
#ifndef MACE_NEON_ELTWISE_SQR_DIFF
#define MACE_NEON_ELTWISE_SQR_DIFF 1
#endif

namespace mace {
namespace ops {
namespace arm {

inline constexpr bool kLinksGemmUnclamped = MACE_NEON_GEMM_UNCLAMPED != 0;
inline constexpr bool kLinksGemmLowerClamp = MACE_NEON_GEMM_LOWER_CLAMP != 0;
inline constexpr bool kLinksDepthwiseUnclamped = MACE_NEON_DEPTHWISE_UNCLAMPED != 0;
inline constexpr bool kLinksDepthwiseLowerClamp = MACE_NEON_DEPTHWISE_LOWER_CLAMP != 0;
inline constexpr bool kLinksDepthwiseHardSwish = MACE_NEON_DEPTHWISE_HARDSWISH != 0;
inline constexpr bool kLinksEltwiseSum = MACE_NEON_ELTWISE_SUM != 0;
inline constexpr bool kLinksEltwiseWeightedSum = MACE_NEON_ELTWISE_WEIGHTED_SUM != 0;
inline constexpr bool kLinksEltwiseSub = MACE_NEON_ELTWISE_SUB != 0;
inline constexpr bool kLinksEltwiseProd = MACE_NEON_ELTWISE_PROD != 0;
inline constexpr bool kLinksEltwiseDiv = MACE_NEON_ELTWISE_DIV != 0;
inline constexpr bool kLinksEltwiseMin = MACE_NEON_ELTWISE_MIN != 0;
inline constexpr bool kLinksEltwiseMax = MACE_NEON_ELTWISE_MAX != 0;
inline constexpr bool kLinksEltwiseNeg = MACE_NEON_ELTWISE_NEG != 0;
inline constexpr bool kLinksEltwiseAbs = MACE_NEON_ELTWISE_ABS != 0;
inline constexpr bool kLinksEltwiseSqrDiff = MACE_NEON_ELTWISE_SQR_DIFF != 0;

// The clamp variants, in the order both kernel files number them.
enum : int { kClampNone = 0, kClampLo = 1, kClampLoHi = 2 };

// The variant to run for a clamp to [lo, hi] (clamp false: no clamp), and
// the bounds it reads: a variant this build leaves out becomes kClampLoHi
// with the missing bound infinite.
struct ClampChoice {
  int kind = kClampLoHi;
  float bounds[2] = {0.f, 0.f};
};

inline ClampChoice ChooseClamp(bool clamp, float lo, float hi, bool links_unclamped,
                               bool links_lower) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  ClampChoice choice;
  if (!clamp || (lo == -kInf && hi == kInf)) {
    choice.kind = links_unclamped ? kClampNone : kClampLoHi;
    choice.bounds[0] = -kInf;
    choice.bounds[1] = kInf;
  } else if (hi == kInf) {
    choice.kind = links_lower ? kClampLo : kClampLoHi;
    choice.bounds[0] = lo;
    choice.bounds[1] = kInf;
  } else {
    choice.bounds[0] = lo;
    choice.bounds[1] = hi;
  }
  return choice;
}

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ARM_LINKED_VARIANTS_H_
