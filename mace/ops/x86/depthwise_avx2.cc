// AVX2/FMA bands of a 3x3 depthwise convolution over a zero-padded input,
// 8 outputs per vector (the band itself is depthwise_band.inc).
//
// Stride 2 loads 16 consecutive inputs and splits them into even and odd
// lanes with in-lane shuffles alone. The lanes come out in the order
// 0 1 4 5 2 3 6 7 for all three taps alike, so one cross-lane permute per
// output vector restores the order, instead of one per tap.
#include <immintrin.h>

#include "mace/ops/x86/avx2_epilogue.h"
#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

using Vec = __m256;
constexpr int kLanes = 8;

// From kLaneMask + 8 - n: the first n lanes set.
alignas(32) const int32_t kLaneMask[2 * kLanes] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                   0,  0,  0,  0,  0,  0,  0,  0};

inline Vec Set1(float value) { return _mm256_set1_ps(value); }
inline Vec MulAdd(Vec x, Vec y, Vec acc) { return _mm256_fmadd_ps(x, y, acc); }
inline Vec Min(Vec a, Vec b) { return _mm256_min_ps(a, b); }
inline Vec Max(Vec a, Vec b) { return _mm256_max_ps(a, b); }
inline void Store(float* out, Vec v) { _mm256_storeu_ps(out, v); }

inline void StoreFirst(float* out, Vec v, int64_t n) {
  const __m256i mask = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLaneMask + kLanes - n));
  _mm256_maskstore_ps(out, mask, v);
}

inline Vec HardSwish(Vec v) {
  TileEpilogue epilogue;
  epilogue.activation = kTileActHardSwish;
  return Avx2Activate(v, epilogue);
}

template <int kStrideW>
inline void LoadWindows(const float* in, Vec x[3]) {
  if constexpr (kStrideW == 1) {
    x[0] = _mm256_loadu_ps(in);
    x[1] = _mm256_loadu_ps(in + 1);
    x[2] = _mm256_loadu_ps(in + 2);
  } else {
    const __m256 lo = _mm256_loadu_ps(in), hi = _mm256_loadu_ps(in + 8);
    const __m256 lo2 = _mm256_loadu_ps(in + 2), hi2 = _mm256_loadu_ps(in + 10);
    x[0] = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    x[1] = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
    x[2] = _mm256_shuffle_ps(lo2, hi2, _MM_SHUFFLE(2, 0, 2, 0));
  }
}

template <int kStrideW>
inline Vec InOutputOrder(Vec v) {
  if constexpr (kStrideW == 1) {
    return v;
  } else {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
  }
}

#include "mace/ops/x86/depthwise_band.inc"

}  // namespace

void Avx2Depthwise3x3S1(const DepthwiseBand& band) { DepthwiseBand3x3<1>(band); }
void Avx2Depthwise3x3S2(const DepthwiseBand& band) { DepthwiseBand3x3<2>(band); }

}  // namespace x86
}  // namespace ops
}  // namespace mace
