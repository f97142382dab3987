// NEON bands of a 3x3 depthwise convolution over a zero-padded input: 4
// outputs per vector, two output rows per pass so that the input rows both
// read are loaded once. Stride 2 uses vld2q_f32, which splits 8 inputs into
// even and odd lanes as it loads.
//
// A row's ragged end is one more whole vector ending at the last output: it
// recomputes a few outputs instead of storing lane by lane. Only rows
// narrower than a vector go through a staging vector.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include <limits>

#include "mace/ops/arm/neon_epilogue.h"
#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

constexpr int kLanes = 4;

inline float32x4_t MulAdd(float32x4_t acc, float32x4_t x, float tap) {
#if defined(__aarch64__)
  return vfmaq_n_f32(acc, x, tap);
#else
  return vmlaq_n_f32(acc, x, tap);
#endif
}

// Copied once per band: the output may alias the taps as far as the
// compiler knows, so taps read inside the loop would be reloaded after every
// store.
struct Taps {
  float v[9];
  explicit Taps(const float* taps) {
    for (int i = 0; i < 9; ++i) v[i] = taps[i];
  }
};

// The inputs of taps kw = 0, 1, 2 for 4 outputs whose first window starts
// at `in`.
template <int kStrideW>
inline void LoadWindows(const float* in, float32x4_t x[3]) {
  if constexpr (kStrideW == 1) {
    x[0] = vld1q_f32(in);
    x[1] = vld1q_f32(in + 1);
    x[2] = vld1q_f32(in + 2);
  } else {
    const float32x4x2_t pairs = vld2q_f32(in);
    x[0] = pairs.val[0];
    x[1] = pairs.val[1];
    x[2] = vld2q_f32(in + 2).val[0];
  }
}

inline float32x4_t TapRow(const float32x4_t x[3], const float* taps, float32x4_t acc) {
  acc = MulAdd(acc, x[0], taps[0]);
  acc = MulAdd(acc, x[1], taps[1]);
  return MulAdd(acc, x[2], taps[2]);
}

// The fused activation, chosen once per band rather than per vector. No
// activation is a clamp to [-inf, inf], which costs two cheap instructions a
// vector but a third of the code (NEON's max and min propagate NaN).
template <bool kHardSwish>
struct Activate {
  float32x4_t lo, hi;
  explicit Activate(const TileEpilogue& epilogue) {
    const bool clamp = epilogue.activation == kTileActClamp;
    lo = vdupq_n_f32(clamp ? epilogue.lo : -std::numeric_limits<float>::infinity());
    hi = vdupq_n_f32(clamp ? epilogue.hi : std::numeric_limits<float>::infinity());
  }
  float32x4_t operator()(float32x4_t v) const {
    if constexpr (kHardSwish) {
      TileEpilogue epilogue;
      epilogue.activation = kTileActHardSwish;
      return NeonActivate(v, epilogue);
    } else {
      return vminq_f32(vmaxq_f32(v, lo), hi);
    }
  }
};

// kRows output vectors at the same column of consecutive rows, whose first
// windows start at `in`. Always inlined: a call per vector, with the
// accumulators passed through memory, would cost as much as the vector.
template <int kStrideW, int kStrideH, int kRows, typename Activation>
[[gnu::always_inline]] inline void OutputVectors(const float* in, int64_t pitch, const Taps& taps,
                                                 float bias, const Activation& activate,
                                                 float32x4_t acc[kRows]) {
  // Input row k feeds tap row k of the first output row and tap row
  // k - kStrideH of the second.
  constexpr int kInputRows = (kRows - 1) * kStrideH + 3;
  for (int i = 0; i < kRows; ++i) acc[i] = vdupq_n_f32(bias);
#pragma GCC unroll 8
  for (int k = 0; k < kInputRows; ++k) {
    float32x4_t x[3];
    LoadWindows<kStrideW>(in + k * pitch, x);
    if (k < 3) acc[0] = TapRow(x, taps.v + 3 * k, acc[0]);
    if (kRows == 2 && k >= kStrideH && k - kStrideH < 3) {
      acc[kRows - 1] = TapRow(x, taps.v + 3 * (k - kStrideH), acc[kRows - 1]);
    }
  }
  for (int i = 0; i < kRows; ++i) acc[i] = activate(acc[i]);
}

// Writes kRows output rows (of `width`, one after the other at `out`) whose
// windows start at input row `in`.
template <int kStrideW, int kStrideH, int kRows, typename Activation>
[[gnu::always_inline]] inline void OutputRows(const float* in, int64_t pitch, const Taps& taps,
                                              float bias, const Activation& activate, float* out,
                                              int64_t width) {
  float32x4_t acc[kRows];
  if (width < kLanes) {
    OutputVectors<kStrideW, kStrideH, kRows>(in, pitch, taps, bias, activate, acc);
    for (int i = 0; i < kRows; ++i) {
      float staged[kLanes];
      vst1q_f32(staged, acc[i]);
      for (int64_t j = 0; j < width; ++j) out[i * width + j] = staged[j];
    }
    return;
  }
  int64_t j = 0;
  for (; j + kLanes <= width; j += kLanes) {
    OutputVectors<kStrideW, kStrideH, kRows>(in + j * kStrideW, pitch, taps, bias, activate, acc);
    for (int i = 0; i < kRows; ++i) vst1q_f32(out + i * width + j, acc[i]);
  }
  if (j < width) {
    j = width - kLanes;
    OutputVectors<kStrideW, kStrideH, kRows>(in + j * kStrideW, pitch, taps, bias, activate, acc);
    for (int i = 0; i < kRows; ++i) vst1q_f32(out + i * width + j, acc[i]);
  }
}

template <int kStrideW, int kStrideH, bool kHardSwish>
void Band(const DepthwiseBand& band) {
  const Taps taps(band.taps);
  const Activate<kHardSwish> activate(band.epilogue);
  const int64_t pitch = band.in_pitch, width = band.out_w;
  int64_t r = 0;
  for (; r + 2 <= band.rows; r += 2) {
    OutputRows<kStrideW, kStrideH, 2>(band.in + r * kStrideH * pitch, pitch, taps, band.bias,
                                      activate, band.out + r * width, width);
  }
  if (r < band.rows) {
    OutputRows<kStrideW, kStrideH, 1>(band.in + r * kStrideH * pitch, pitch, taps, band.bias,
                                      activate, band.out + r * width, width);
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

void NeonDepthwise3x3S1(const DepthwiseBand& band) {
  if (band.stride_h == 1) {
    Band<1, 1>(band);
  } else {
    Band<1, 2>(band);
  }
}

void NeonDepthwise3x3S2(const DepthwiseBand& band) {
  if (band.stride_h == 1) {
    Band<2, 1>(band);
  } else {
    Band<2, 2>(band);
  }
}

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // __aarch64__ || __ARM_NEON
