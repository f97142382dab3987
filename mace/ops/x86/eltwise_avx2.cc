// AVX2 eltwise rows: 16 elements per iteration, the fused clamp or
// hard-swish applied before the store, and a masked tail so that nothing is
// loaded or stored past the row (rows may be written in place, so a tail
// vector that overlapped earlier outputs would read results back).
//
// Operation, broadcast form and activation are template arguments: the loop
// body holds no branch, and the dispatch below runs once per row.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

constexpr int kLanes = 8;

// From kLaneMask + 8 - n: the first n lanes set.
alignas(32) const int32_t kLaneMask[2 * kLanes] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                   0,  0,  0,  0,  0,  0,  0,  0};

// Broadcast once per row.
struct Constants {
  __m256 coeff_a, coeff_b, lo, hi;
  explicit Constants(const EltwiseRow& row)
      : coeff_a(_mm256_set1_ps(row.coeff_a)),
        coeff_b(_mm256_set1_ps(row.coeff_b)),
        lo(_mm256_set1_ps(row.epilogue.lo)),
        hi(_mm256_set1_ps(row.epilogue.hi)) {}
};

template <int kOp>
__m256 Compute(__m256 a, __m256 b, const Constants& k) {
  if constexpr (kOp == kEltwiseSum) {
    return _mm256_add_ps(a, b);
  } else if constexpr (kOp == kEltwiseSub) {
    return _mm256_sub_ps(a, b);
  } else if constexpr (kOp == kEltwiseProd) {
    return _mm256_mul_ps(a, b);
  } else if constexpr (kOp == kEltwiseDiv) {
    return _mm256_div_ps(a, b);
  } else if constexpr (kOp == kEltwiseMin || kOp == kEltwiseMax) {
    // minps/maxps pick b when either operand is NaN (and b on ties, like
    // a < b ? a : b); the op's result is NaN then.
    const __m256 picked = kOp == kEltwiseMin ? _mm256_min_ps(a, b) : _mm256_max_ps(a, b);
    return _mm256_blendv_ps(picked, _mm256_set1_ps(__builtin_nanf("")),
                            _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
  } else if constexpr (kOp == kEltwiseNeg) {
    return _mm256_xor_ps(a, _mm256_set1_ps(-0.f));
  } else if constexpr (kOp == kEltwiseAbs) {
    return _mm256_andnot_ps(_mm256_set1_ps(-0.f), a);
  } else if constexpr (kOp == kEltwiseSqrDiff) {
    const __m256 d = _mm256_sub_ps(a, b);
    return _mm256_mul_ps(d, d);
  } else {
    return _mm256_fmadd_ps(a, k.coeff_a, _mm256_mul_ps(b, k.coeff_b));
  }
}

template <int kActivation>
__m256 Activate(__m256 v, const Constants& k) {
  if constexpr (kActivation == kTileActClamp) {
    return _mm256_min_ps(_mm256_max_ps(v, k.lo), k.hi);
  } else if constexpr (kActivation == kTileActHardSwish) {
    const __m256 gate =
        _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, _mm256_set1_ps(3.f)), _mm256_setzero_ps()),
                      _mm256_set1_ps(6.f));
    return _mm256_div_ps(_mm256_mul_ps(v, gate), _mm256_set1_ps(6.f));
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
  const __m256 scalar =
      kBroadcast == kEltwiseScalarA
          ? _mm256_set1_ps(a[0])
          : (kBroadcast == kEltwiseScalarB ? _mm256_set1_ps(b[0]) : _mm256_setzero_ps());
  const auto load_a = [&](int64_t i) {
    return kBroadcast == kEltwiseScalarA ? scalar : _mm256_loadu_ps(a + i);
  };
  const auto load_b = [&](int64_t i) {
    if constexpr (kUnary || kBroadcast == kEltwiseScalarB) {
      return scalar;
    } else {
      return _mm256_loadu_ps(b + i);
    }
  };
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const __m256 x0 = Compute<kOp>(load_a(i), load_b(i), k);
    const __m256 x1 = Compute<kOp>(load_a(i + kLanes), load_b(i + kLanes), k);
    _mm256_storeu_ps(out + i, Activate<kActivation>(x0, k));
    _mm256_storeu_ps(out + i + kLanes, Activate<kActivation>(x1, k));
  }
  if (i + kLanes <= n) {
    _mm256_storeu_ps(out + i, Activate<kActivation>(Compute<kOp>(load_a(i), load_b(i), k), k));
    i += kLanes;
  }
  if (i < n) {
    const __m256i mask =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLaneMask + kLanes - (n - i)));
    const __m256 x = kBroadcast == kEltwiseScalarA ? scalar : _mm256_maskload_ps(a + i, mask);
    __m256 y = scalar;
    if constexpr (!kUnary && kBroadcast != kEltwiseScalarB) y = _mm256_maskload_ps(b + i, mask);
    _mm256_maskstore_ps(out + i, mask, Activate<kActivation>(Compute<kOp>(x, y, k), k));
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

}  // namespace

void Avx2EltwiseRow(const EltwiseRow& row) {
  switch (row.op) {
    case kEltwiseSum:
      return ByBroadcast<kEltwiseSum>(row);
    case kEltwiseSub:
      return ByBroadcast<kEltwiseSub>(row);
    case kEltwiseProd:
      return ByBroadcast<kEltwiseProd>(row);
    case kEltwiseDiv:
      return ByBroadcast<kEltwiseDiv>(row);
    case kEltwiseMin:
      return ByBroadcast<kEltwiseMin>(row);
    case kEltwiseMax:
      return ByBroadcast<kEltwiseMax>(row);
    case kEltwiseNeg:
      return ByActivation<kEltwiseNeg, kEltwiseVectors>(row);
    case kEltwiseAbs:
      return ByActivation<kEltwiseAbs, kEltwiseVectors>(row);
    case kEltwiseSqrDiff:
      return ByBroadcast<kEltwiseSqrDiff>(row);
    case kEltwiseWeightedSum:
      return ByBroadcast<kEltwiseWeightedSum>(row);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
