// NEON bands of a 3x3 depthwise convolution over a zero-padded input: 4
// outputs per vector, four output rows per pass on arm64 (two on armv7) so
// that the input rows they share are loaded once. Stride 2 uses vld2q_f32, which splits 8 inputs into
// even and odd lanes as it loads.
//
// A row's ragged end is one more whole vector ending at the last output: it
// recomputes a few outputs instead of storing lane by lane. Only rows
// narrower than a vector go through a staging vector.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include <limits>
#include <utility>

#include "mace/ops/arm/neon_epilogue.h"
#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

constexpr int kLanes = 4;

// Loaded once per band into three vectors (taps 0-3, 4-7 and 8), which the
// multiply-adds read by lane. The output may alias the taps as far as the
// compiler knows, so taps read inside the loop would be reloaded after every
// store; and taps held as floats cost armv7 a move from a core register into
// a NEON lane per multiply-add.
struct Taps {
  float32x4_t q[3];
  explicit Taps(const float* taps)
      : q{vld1q_f32(taps), vld1q_f32(taps + 4), vdupq_n_f32(taps[8])} {}
};

template <int kTap>
[[gnu::always_inline]] inline float32x4_t MulAddTap(float32x4_t acc, float32x4_t x,
                                                    const Taps& taps) {
  const float32x4_t q = taps.q[kTap / 4];
#if defined(__aarch64__)
  return vfmaq_laneq_f32(acc, x, q, kTap % 4);
#else
  return vmlaq_lane_f32(acc, x, kTap % 4 < 2 ? vget_low_f32(q) : vget_high_f32(q), kTap % 2);
#endif
}

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

// Tap row kRow of the filter over one input row's windows.
template <int kRow>
[[gnu::always_inline]] inline float32x4_t TapRow(const float32x4_t x[3], const Taps& taps,
                                                 float32x4_t acc) {
  acc = MulAddTap<3 * kRow>(acc, x[0], taps);
  acc = MulAddTap<3 * kRow + 1>(acc, x[1], taps);
  return MulAddTap<3 * kRow + 2>(acc, x[2], taps);
}

// Tap row kRow, if it is one (0 to 2), over one input row's windows.
template <int kRow>
[[gnu::always_inline]] inline void MaybeTapRow(const float32x4_t x[3], const Taps& taps,
                                               float32x4_t& acc) {
  if constexpr (kRow >= 0 && kRow < 3) acc = TapRow<kRow>(x, taps, acc);
}

template <int kK, int kStrideH, int... kI>
[[gnu::always_inline]] inline void InputRowTaps(std::integer_sequence<int, kI...>,
                                                const float32x4_t x[3], const Taps& taps,
                                                float32x4_t acc[]) {
  (MaybeTapRow<kK - kI * kStrideH>(x, taps, acc[kI]), ...);
}

// Input row kK feeds tap row kK - i * kStrideH of output row i.
template <int kK, int kStrideW, int kStrideH, int kRows>
[[gnu::always_inline]] inline void InputRow(const float* in, int64_t pitch, const Taps& taps,
                                            float32x4_t acc[kRows]) {
  float32x4_t x[3];
  LoadWindows<kStrideW>(in + kK * pitch, x);
  InputRowTaps<kK, kStrideH>(std::make_integer_sequence<int, kRows>(), x, taps, acc);
}

template <int kStrideW, int kStrideH, int kRows, int... kK>
[[gnu::always_inline]] inline void InputRows(std::integer_sequence<int, kK...>, const float* in,
                                             int64_t pitch, const Taps& taps,
                                             float32x4_t acc[kRows]) {
  (InputRow<kK, kStrideW, kStrideH, kRows>(in, pitch, taps, acc), ...);
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
  constexpr int kInputRows = (kRows - 1) * kStrideH + 3;
  #pragma GCC unroll 4
  for (int i = 0; i < kRows; ++i) acc[i] = vdupq_n_f32(bias);
  InputRows<kStrideW, kStrideH, kRows>(std::make_integer_sequence<int, kInputRows>(), in, pitch,
                                       taps, acc);
  #pragma GCC unroll 4
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
    #pragma GCC unroll 4
    for (int i = 0; i < kRows; ++i) vst1q_f32(out + i * width + j, acc[i]);
  }
  if (j < width) {
    j = width - kLanes;
    OutputVectors<kStrideW, kStrideH, kRows>(in + j * kStrideW, pitch, taps, bias, activate, acc);
    #pragma GCC unroll 4
    for (int i = 0; i < kRows; ++i) vst1q_f32(out + i * width + j, acc[i]);
  }
}

// Output rows per pass. Stride 1 reads kRows + 2 input rows for kRows
// output rows: 3 loads per output vector at 4 rows, 4.5 at 2. The arm64
// loop of 4 rows holds 4 accumulators, 9 taps, 3 windows and the bounds in
// its 32 registers; armv7 has 16 and stays at 2.
#if defined(__aarch64__)
constexpr int kPassRows = 4;
#else
constexpr int kPassRows = 2;
#endif

template <int kStrideW, int kStrideH, bool kHardSwish>
void Band(const DepthwiseBand& band) {
  const Taps taps(band.taps);
  const Activate<kHardSwish> activate(band.epilogue);
  const int64_t pitch = band.in_pitch, width = band.out_w;
  int64_t r = 0;
  if constexpr (kPassRows == 4) {
    for (; r + 4 <= band.rows; r += 4) {
      OutputRows<kStrideW, kStrideH, 4>(band.in + r * kStrideH * pitch, pitch, taps, band.bias,
                                        activate, band.out + r * width, width);
    }
  }
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
