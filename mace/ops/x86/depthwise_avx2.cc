// AVX2/FMA bands of a 3x3 depthwise convolution over a zero-padded input:
// 8 outputs per vector, two output rows per pass so that the input rows both
// read are loaded once.
//
// A row's ragged end is one more whole vector ending at the last output: it
// recomputes a few outputs instead of storing lane by lane. Only rows
// narrower than a vector need a masked store.
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

constexpr int kLanes = 8;
// Not std::numeric_limits: this file includes no library headers (see
// avx2_epilogue.h).
constexpr float kInfinity = __builtin_inff();

// From kLaneMask + 8 - n: the first n lanes set.
alignas(32) const int32_t kLaneMask[2 * kLanes] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                   0,  0,  0,  0,  0,  0,  0,  0};

// Broadcast once per band: the output may alias the taps as far as the
// compiler knows, so taps read inside the loop would be reloaded per store.
struct Taps {
  __m256 v[9];
  explicit Taps(const float* taps) {
#pragma GCC unroll 9
    for (int i = 0; i < 9; ++i) v[i] = _mm256_set1_ps(taps[i]);
  }
};

// The inputs of taps kw = 0, 1, 2 for 8 outputs whose first window starts
// at `in`.
template <int kStrideW>
inline void LoadWindows(const float* in, __m256 x[3]) {
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
inline __m256 InOutputOrder(__m256 v) {
  if constexpr (kStrideW == 1) {
    return v;
  } else {
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
  }
}

inline __m256 TapRow(const __m256 x[3], const __m256* taps, __m256 acc) {
  acc = _mm256_fmadd_ps(x[0], taps[0], acc);
  acc = _mm256_fmadd_ps(x[1], taps[1], acc);
  return _mm256_fmadd_ps(x[2], taps[2], acc);
}

// The fused activation, chosen once per band rather than per vector. No
// activation is a clamp to [-inf, inf], which costs two cheap instructions a
// vector but a third of the code; with the bound first, max and min return
// NaN inputs unchanged.
template <bool kHardSwish>
struct Activate {
  __m256 lo, hi;
  explicit Activate(const TileEpilogue& epilogue) {
    const bool clamp = epilogue.activation == kTileActClamp;
    lo = _mm256_set1_ps(clamp ? epilogue.lo : -kInfinity);
    hi = _mm256_set1_ps(clamp ? epilogue.hi : kInfinity);
  }
  __m256 operator()(__m256 v) const {
    if constexpr (kHardSwish) {
      TileEpilogue epilogue;
      epilogue.activation = kTileActHardSwish;
      return Avx2Activate(v, epilogue);
    } else {
      return _mm256_min_ps(hi, _mm256_max_ps(lo, v));
    }
  }
};

// kRows output vectors at the same column of consecutive rows, whose first
// windows start at `in`. Always inlined: a call per vector, with the
// accumulators passed through memory, would cost as much as the vector.
template <int kStrideW, int kStrideH, int kRows, typename Activation>
[[gnu::always_inline]] inline void OutputVectors(const float* in, int64_t pitch, const Taps& taps,
                                                 __m256 bias, const Activation& activate,
                                                 __m256 acc[kRows]) {
  // Input row k feeds tap row k of the first output row and tap row
  // k - kStrideH of the second.
  constexpr int kInputRows = (kRows - 1) * kStrideH + 3;
  for (int i = 0; i < kRows; ++i) acc[i] = bias;
#pragma GCC unroll 8
  for (int k = 0; k < kInputRows; ++k) {
    __m256 x[3];
    LoadWindows<kStrideW>(in + k * pitch, x);
    if (k < 3) acc[0] = TapRow(x, taps.v + 3 * k, acc[0]);
    if (kRows == 2 && k >= kStrideH && k - kStrideH < 3) {
      acc[kRows - 1] = TapRow(x, taps.v + 3 * (k - kStrideH), acc[kRows - 1]);
    }
  }
  for (int i = 0; i < kRows; ++i) acc[i] = activate(InOutputOrder<kStrideW>(acc[i]));
}

// Writes kRows output rows (of `width`, one after the other at `out`) whose
// windows start at input row `in`.
template <int kStrideW, int kStrideH, int kRows, typename Activation>
[[gnu::always_inline]] inline void OutputRows(const float* in, int64_t pitch, const Taps& taps,
                                              __m256 bias, const Activation& activate, float* out,
                                              int64_t width) {
  __m256 acc[kRows];
  if (width < kLanes) {
    const __m256i mask =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLaneMask + kLanes - width));
    OutputVectors<kStrideW, kStrideH, kRows>(in, pitch, taps, bias, activate, acc);
    for (int i = 0; i < kRows; ++i) _mm256_maskstore_ps(out + i * width, mask, acc[i]);
    return;
  }
  int64_t j = 0;
  for (; j + kLanes <= width; j += kLanes) {
    OutputVectors<kStrideW, kStrideH, kRows>(in + j * kStrideW, pitch, taps, bias, activate, acc);
    for (int i = 0; i < kRows; ++i) _mm256_storeu_ps(out + i * width + j, acc[i]);
  }
  if (j < width) {
    j = width - kLanes;
    OutputVectors<kStrideW, kStrideH, kRows>(in + j * kStrideW, pitch, taps, bias, activate, acc);
    for (int i = 0; i < kRows; ++i) _mm256_storeu_ps(out + i * width + j, acc[i]);
  }
}

template <int kStrideW, int kStrideH, bool kHardSwish>
void Band(const DepthwiseBand& band) {
  const Taps taps(band.taps);
  const __m256 bias = _mm256_set1_ps(band.bias);
  const Activate<kHardSwish> activate(band.epilogue);
  const int64_t pitch = band.in_pitch, width = band.out_w;
  int64_t r = 0;
  for (; r + 2 <= band.rows; r += 2) {
    OutputRows<kStrideW, kStrideH, 2>(band.in + r * kStrideH * pitch, pitch, taps, bias, activate,
                                      band.out + r * width, width);
  }
  if (r < band.rows) {
    OutputRows<kStrideW, kStrideH, 1>(band.in + r * kStrideH * pitch, pitch, taps, bias, activate,
                                      band.out + r * width, width);
  }
}

template <int kStrideW, int kStrideH>
void Band(const DepthwiseBand& band) {
  if (band.epilogue.activation == kTileActHardSwish) {
    Band<kStrideW, kStrideH, true>(band);
  } else {
    Band<kStrideW, kStrideH, false>(band);
  }
}

}  // namespace

void Avx2Depthwise3x3S1(const DepthwiseBand& band) {
  if (band.stride_h == 1) {
    Band<1, 1>(band);
  } else {
    Band<1, 2>(band);
  }
}

void Avx2Depthwise3x3S2(const DepthwiseBand& band) {
  if (band.stride_h == 1) {
    Band<2, 1>(band);
  } else {
    Band<2, 2>(band);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
