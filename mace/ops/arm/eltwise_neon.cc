// NEON eltwise rows: 8 elements per iteration, the fused clamp or hard-swish
// applied before the store. The tail (under 4 elements) goes through a
// staging vector, so nothing is loaded or stored past the row; rows may be
// written in place.
//
// armv7 NEON has no divide: DIV divides lane by lane with VFP there, which
// rounds exactly like the reference.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include "mace/ops/arm/linked_variants.h"
#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

constexpr int kLanes = 4;

// Broadcast once per row.
struct Constants {
  float32x4_t coeff_a, coeff_b, lo, hi;
  explicit Constants(const EltwiseRow& row)
      : coeff_a(vdupq_n_f32(row.coeff_a)),
        coeff_b(vdupq_n_f32(row.coeff_b)),
        lo(vdupq_n_f32(row.epilogue.lo)),
        hi(vdupq_n_f32(row.epilogue.hi)) {}
};

inline float32x4_t Divide(float32x4_t a, float32x4_t b) {
#if defined(__aarch64__)
  return vdivq_f32(a, b);
#else
  float x[kLanes], y[kLanes];
  vst1q_f32(x, a);
  vst1q_f32(y, b);
  for (int l = 0; l < kLanes; ++l) x[l] /= y[l];
  return vld1q_f32(x);
#endif
}

template <int kOp>
float32x4_t Compute(float32x4_t a, float32x4_t b, const Constants& k) {
  if constexpr (kOp == kEltwiseSum) {
    return vaddq_f32(a, b);
  } else if constexpr (kOp == kEltwiseSub) {
    return vsubq_f32(a, b);
  } else if constexpr (kOp == kEltwiseProd) {
    return vmulq_f32(a, b);
  } else if constexpr (kOp == kEltwiseDiv) {
    return Divide(a, b);
  } else if constexpr (kOp == kEltwiseMin) {
    return vminq_f32(a, b);  // NaN if either operand is NaN
  } else if constexpr (kOp == kEltwiseMax) {
    return vmaxq_f32(a, b);
  } else if constexpr (kOp == kEltwiseNeg) {
    return vnegq_f32(a);
  } else if constexpr (kOp == kEltwiseAbs) {
    return vabsq_f32(a);
  } else if constexpr (kOp == kEltwiseSqrDiff) {
    const float32x4_t d = vsubq_f32(a, b);
    return vmulq_f32(d, d);
  } else {
#if defined(__aarch64__)
    return vfmaq_f32(vmulq_f32(b, k.coeff_b), a, k.coeff_a);
#else
    return vmlaq_f32(vmulq_f32(b, k.coeff_b), a, k.coeff_a);
#endif
  }
}

template <int kActivation>
float32x4_t Activate(float32x4_t v, const Constants& k) {
  if constexpr (kActivation == kTileActClamp) {
    return vminq_f32(vmaxq_f32(v, k.lo), k.hi);
  } else if constexpr (kActivation == kTileActHardSwish) {
    const float32x4_t gate =
        vminq_f32(vmaxq_f32(vaddq_f32(v, vdupq_n_f32(3.f)), vdupq_n_f32(0.f)), vdupq_n_f32(6.f));
    return vmulq_f32(vmulq_f32(v, gate), vdupq_n_f32(1.f / 6.f));
  } else {
    return v;
  }
}

template <int kOp, int kBroadcast, int kActivation>
void Row(const EltwiseRow& row) {
  constexpr bool kUnary = kOp == kEltwiseNeg || kOp == kEltwiseAbs;
  const Constants k(row);
  const float* a = row.a;
  const float* b = row.b;
  float* out = row.out;
  const int64_t n = row.count;
  const float32x4_t scalar =
      kBroadcast == kEltwiseScalarA
          ? vdupq_n_f32(a[0])
          : (kBroadcast == kEltwiseScalarB ? vdupq_n_f32(b[0]) : vdupq_n_f32(0.f));
  const auto load_a = [&](int64_t i) {
    return kBroadcast == kEltwiseScalarA ? scalar : vld1q_f32(a + i);
  };
  const auto load_b = [&](int64_t i) {
    if constexpr (kUnary || kBroadcast == kEltwiseScalarB) {
      return scalar;
    } else {
      return vld1q_f32(b + i);
    }
  };
  int64_t i = 0;
#if defined(__aarch64__)
  // 16 elements a loop, each operand in one four-register ld1 and the
  // result in one st1: 10 instructions for a sum, where the 8-element loop
  // below takes 11 (MobileNet v2's ten residual sums, 216,384 elements, took
  // 0.30 M instructions). Each block is loaded whole before it is stored,
  // so rows may still run in place.
  // The pointers move on (post-indexed loads and store) rather than
  // being indexed, which took three adds a loop.
  if (n >= 4 * kLanes) {
    const float* pa = a;
    const float* pb = b;
    float* po = out;
    for (int64_t blocks = n / (4 * kLanes); blocks > 0; --blocks) {
      float32x4x4_t va, vb, vo;
      if constexpr (kBroadcast != kEltwiseScalarA) {
        va = vld1q_f32_x4(pa);
        pa += 4 * kLanes;
      }
      if constexpr (!kUnary && kBroadcast != kEltwiseScalarB) {
        vb = vld1q_f32_x4(pb);
        pb += 4 * kLanes;
      }
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        const float32x4_t x = kBroadcast == kEltwiseScalarA ? scalar : va.val[v];
        float32x4_t y = scalar;
        if constexpr (!kUnary && kBroadcast != kEltwiseScalarB) y = vb.val[v];
        vo.val[v] = Activate<kActivation>(Compute<kOp>(x, y, k), k);
      }
      vst1q_f32_x4(po, vo);
      po += 4 * kLanes;
    }
    i = n / (4 * kLanes) * (4 * kLanes);
  }
#endif
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const float32x4_t x0 = Compute<kOp>(load_a(i), load_b(i), k);
    const float32x4_t x1 = Compute<kOp>(load_a(i + kLanes), load_b(i + kLanes), k);
    vst1q_f32(out + i, Activate<kActivation>(x0, k));
    vst1q_f32(out + i + kLanes, Activate<kActivation>(x1, k));
  }
  if (i + kLanes <= n) {
    vst1q_f32(out + i, Activate<kActivation>(Compute<kOp>(load_a(i), load_b(i), k), k));
    i += kLanes;
  }
  if (i < n) {
    float x[kLanes] = {0.f, 0.f, 0.f, 0.f}, y[kLanes] = {0.f, 0.f, 0.f, 0.f};
    for (int64_t l = 0; l < n - i; ++l) {
      if (kBroadcast != kEltwiseScalarA) x[l] = a[i + l];
      if (!kUnary && kBroadcast != kEltwiseScalarB) y[l] = b[i + l];
    }
    const float32x4_t va = kBroadcast == kEltwiseScalarA ? scalar : vld1q_f32(x);
    float32x4_t vb = scalar;
    if constexpr (!kUnary && kBroadcast != kEltwiseScalarB) vb = vld1q_f32(y);
    vst1q_f32(x, Activate<kActivation>(Compute<kOp>(va, vb, k), k));
    for (int64_t l = 0; l < n - i; ++l) out[i + l] = x[l];
  }
}

// The row of an operation this build leaves out (linked_variants.h): each
// vector goes through the switches below to the same Compute and Activate
// as the specialized rows, so the results are the same bits.
float32x4_t ComputeAny(int op, float32x4_t a, float32x4_t b, const Constants& k) {
  switch (op) {
    case kEltwiseSum:
      return Compute<kEltwiseSum>(a, b, k);
    case kEltwiseSub:
      return Compute<kEltwiseSub>(a, b, k);
    case kEltwiseProd:
      return Compute<kEltwiseProd>(a, b, k);
    case kEltwiseDiv:
      return Compute<kEltwiseDiv>(a, b, k);
    case kEltwiseMin:
      return Compute<kEltwiseMin>(a, b, k);
    case kEltwiseMax:
      return Compute<kEltwiseMax>(a, b, k);
    case kEltwiseNeg:
      return Compute<kEltwiseNeg>(a, b, k);
    case kEltwiseAbs:
      return Compute<kEltwiseAbs>(a, b, k);
    case kEltwiseSqrDiff:
      return Compute<kEltwiseSqrDiff>(a, b, k);
    default:
      return Compute<kEltwiseWeightedSum>(a, b, k);
  }
}

float32x4_t ActivateAny(int activation, float32x4_t v, const Constants& k) {
  switch (activation) {
    case kTileActClamp:
      return Activate<kTileActClamp>(v, k);
    case kTileActHardSwish:
      return Activate<kTileActHardSwish>(v, k);
    default:
      return v;
  }
}

void AnyRow(const EltwiseRow& row) {
  const Constants k(row);
  const bool unary = row.op == kEltwiseNeg || row.op == kEltwiseAbs;
  // NEG and ABS read `a` as a vector whatever the broadcast (as Linked runs them).
  const bool scalar_a = !unary && row.broadcast == kEltwiseScalarA;
  const bool scalar_b = !unary && row.broadcast == kEltwiseScalarB;
  const float32x4_t a0 = vdupq_n_f32(scalar_a ? row.a[0] : 0.f);
  const float32x4_t b0 = vdupq_n_f32(scalar_b ? row.b[0] : 0.f);
  const int64_t n = row.count;
  for (int64_t i = 0; i < n; i += kLanes) {
    const int64_t lanes = n - i < kLanes ? n - i : kLanes;
    float x[kLanes] = {0.f, 0.f, 0.f, 0.f}, y[kLanes] = {0.f, 0.f, 0.f, 0.f};
    for (int64_t l = 0; l < lanes; ++l) {
      if (!scalar_a) x[l] = row.a[i + l];
      if (!unary && !scalar_b) y[l] = row.b[i + l];
    }
    const float32x4_t va = scalar_a ? a0 : vld1q_f32(x);
    const float32x4_t vb = unary || scalar_b ? b0 : vld1q_f32(y);
    vst1q_f32(x, ActivateAny(row.epilogue.activation, ComputeAny(row.op, va, vb, k), k));
    for (int64_t l = 0; l < lanes; ++l) row.out[i + l] = x[l];
  }
}

template <int kOp, int kBroadcast>
void ByActivation(const EltwiseRow& row) {
  switch (row.epilogue.activation) {
    case kTileActClamp:
      return Row<kOp, kBroadcast, kTileActClamp>(row);
    case kTileActHardSwish:
      return Row<kOp, kBroadcast, kTileActHardSwish>(row);
    default:
      return Row<kOp, kBroadcast, kTileActNone>(row);
  }
}

template <int kOp>
void ByBroadcast(const EltwiseRow& row) {
  switch (row.broadcast) {
    case kEltwiseScalarA:
      return ByActivation<kOp, kEltwiseScalarA>(row);
    case kEltwiseScalarB:
      return ByActivation<kOp, kEltwiseScalarB>(row);
    default:
      return ByActivation<kOp, kEltwiseVectors>(row);
  }
}

// The specialized rows of a linked operation, else the generic one. NEG
// and ABS read one operand: only their vector form exists.
template <int kOp, bool kLinked>
void Linked(const EltwiseRow& row) {
  if constexpr (!kLinked) {
    AnyRow(row);
  } else if constexpr (kOp == kEltwiseNeg || kOp == kEltwiseAbs) {
    ByActivation<kOp, kEltwiseVectors>(row);
  } else {
    ByBroadcast<kOp>(row);
  }
}

}  // namespace

void NeonEltwiseRow(const EltwiseRow& row) {
  switch (row.op) {
    case kEltwiseSum:
      return Linked<kEltwiseSum, kLinksEltwiseSum>(row);
    case kEltwiseSub:
      return Linked<kEltwiseSub, kLinksEltwiseSub>(row);
    case kEltwiseProd:
      return Linked<kEltwiseProd, kLinksEltwiseProd>(row);
    case kEltwiseDiv:
      return Linked<kEltwiseDiv, kLinksEltwiseDiv>(row);
    case kEltwiseMin:
      return Linked<kEltwiseMin, kLinksEltwiseMin>(row);
    case kEltwiseMax:
      return Linked<kEltwiseMax, kLinksEltwiseMax>(row);
    case kEltwiseNeg:
      return Linked<kEltwiseNeg, kLinksEltwiseNeg>(row);
    case kEltwiseAbs:
      return Linked<kEltwiseAbs, kLinksEltwiseAbs>(row);
    case kEltwiseSqrDiff:
      return Linked<kEltwiseSqrDiff, kLinksEltwiseSqrDiff>(row);
    case kEltwiseWeightedSum:
      return Linked<kEltwiseWeightedSum, kLinksEltwiseWeightedSum>(row);
  }
}

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // defined(__aarch64__) || defined(__ARM_NEON)
