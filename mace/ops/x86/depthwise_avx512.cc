// AVX-512 bands of a 3x3 depthwise convolution over a zero-padded input,
// 16 outputs per vector (the band itself is depthwise_band.inc).
//
// Rows of up to 8 outputs go to the AVX2 kernel: a 16-lane vector would
// leave half or more of its lanes idle for the same instructions.
//
// Stride 2 loads 32 consecutive inputs; one two-source permute each picks
// the even lanes (tap 0) and the odd lanes (tap 1) in output order. Tap 2
// reads tap 0's inputs one output on, so it is tap 0's vector shifted by a
// lane with input 32 broadcast into the top: a shuffle and a broadcast load
// instead of two loads and a permute. 512-bit shuffles issue only on the
// port of the second FMA unit, so stride 2 gives up some multiply-add
// throughput to them however they are done.
//
// Built with AVX-512 flags: it includes nothing but the intrinsics and the
// plain structs of micro_kernels.h, and its helpers are in an anonymous
// namespace, so no inline function compiled here can be merged into
// baseline code.
#include "mace/ops/x86/avx512_intrinsics.h"
// After the intrinsics: its own <immintrin.h> is then a no-op.
#include "mace/ops/x86/avx2_kernels.h"
#include "mace/ops/x86/avx512_epilogue.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {

using Vec = __m512;
constexpr int kLanes = 16;
constexpr int64_t kNarrowRow = 8;

inline Vec Set1(float value) { return _mm512_set1_ps(value); }
inline Vec MulAdd(Vec x, Vec y, Vec acc) { return _mm512_fmadd_ps(x, y, acc); }
inline Vec Min(Vec a, Vec b) { return _mm512_min_ps(a, b); }
inline Vec Max(Vec a, Vec b) { return _mm512_max_ps(a, b); }
inline void Store(float* out, Vec v) { _mm512_storeu_ps(out, v); }

inline void StoreFirst(float* out, Vec v, int64_t n) {
  _mm512_mask_storeu_ps(out, static_cast<__mmask16>((1u << n) - 1), v);
}

inline Vec HardSwish(Vec v) {
  TileEpilogue epilogue;
  epilogue.activation = kTileActHardSwish;
  return Avx512Activate(v, epilogue);
}

template <int kStrideW>
inline void LoadWindows(const float* in, Vec x[3]) {
  if constexpr (kStrideW == 1) {
    x[0] = _mm512_loadu_ps(in);
    x[1] = _mm512_loadu_ps(in + 1);
    x[2] = _mm512_loadu_ps(in + 2);
  } else {
    // Indices 16-31 of a two-source permute pick the second source's lanes.
    const __m512i even =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd =
        _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512 lo = _mm512_loadu_ps(in), hi = _mm512_loadu_ps(in + kLanes);
    x[0] = _mm512_permutex2var_ps(lo, even, hi);
    x[1] = _mm512_permutex2var_ps(lo, odd, hi);
    const __m512i last = _mm512_castps_si512(_mm512_set1_ps(in[2 * kLanes]));
    x[2] = _mm512_castsi512_ps(_mm512_alignr_epi32(last, _mm512_castps_si512(x[0]), 1));
  }
}

// The permutes above already put the lanes in output order.
template <int kStrideW>
inline Vec InOutputOrder(Vec v) {
  return v;
}

#include "mace/ops/x86/depthwise_band.inc"

}  // namespace

void Avx512Depthwise3x3S1(const DepthwiseBand& band) {
  if (band.out_w <= kNarrowRow) return Avx2Depthwise3x3S1(band);
  DepthwiseBand3x3<1>(band);
}

void Avx512Depthwise3x3S2(const DepthwiseBand& band) {
  if (band.out_w <= kNarrowRow) return Avx2Depthwise3x3S2(band);
  DepthwiseBand3x3<2>(band);
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
