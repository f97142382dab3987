// Half-precision NEON 3x3 depthwise kernels (FEAT_FP16): bands of a plane,
// and small planes with 8 channels as lanes. Built with
// -march=armv8.2-a+fp16 and called only after the HWCAP check, so nothing
// here may be inlined into baseline code: every helper is static.
#include <arm_neon.h>

#include <algorithm>
#include <type_traits>

#include "mace/ops/arm/fp16_neon_common.h"
#include "mace/ops/arm/fp16_neon_kernels.h"
#include "mace/ops/arm/neon_epilogue.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

// The three input vectors of 8 outputs at `row` (horizontal stride 1 or 2).
struct DepthwiseInputs {
  float16x8_t v0, v1, v2;
};

template <int kStride>
static inline __attribute__((always_inline)) DepthwiseInputs LoadInputs(const float16_t* row) {
  if (kStride == 1) return {vld1q_f16(row), vld1q_f16(row + 1), vld1q_f16(row + 2)};
  const float16x8x2_t pair = vld2q_f16(row);
  return {pair.val[0], pair.val[1], vld2q_f16(row + 2).val[0]};
}

// acc plus tap row `tap_row` (0 to 2, a constant once the callers' loops
// are unrolled) times the inputs. Taps 0 to 7 are lanes of t07 (in v0-v15,
// as the by-element form requires), read by assembly fmla (GCC would turn
// them into dup and vector fmla); tap 8 is the vector t8.
static inline __attribute__((always_inline)) float16x8_t AddRow(float16x8_t acc,
                                                                const DepthwiseInputs& in,
                                                                int tap_row, float16x8_t t07,
                                                                float16x8_t t8) {
  if (tap_row == 0) {
    asm("fmla %[acc].8h, %[x0].8h, %[t].h[0]\n"
        "fmla %[acc].8h, %[x1].8h, %[t].h[1]\n"
        "fmla %[acc].8h, %[x2].8h, %[t].h[2]\n"
        : [acc] "+w"(acc)
        : [x0] "w"(in.v0), [x1] "w"(in.v1), [x2] "w"(in.v2), [t] "x"(t07));
  } else if (tap_row == 1) {
    asm("fmla %[acc].8h, %[x0].8h, %[t].h[3]\n"
        "fmla %[acc].8h, %[x1].8h, %[t].h[4]\n"
        "fmla %[acc].8h, %[x2].8h, %[t].h[5]\n"
        : [acc] "+w"(acc)
        : [x0] "w"(in.v0), [x1] "w"(in.v1), [x2] "w"(in.v2), [t] "x"(t07));
  } else {
    asm("fmla %[acc].8h, %[x0].8h, %[t].h[6]\n"
        "fmla %[acc].8h, %[x1].8h, %[t].h[7]\n"
        : [acc] "+w"(acc)
        : [x0] "w"(in.v0), [x1] "w"(in.v1), [t] "x"(t07));
    acc = vfmaq_f16(acc, in.v2, t8);
  }
  return acc;
}

// Stores `count` (at most 8) of the sums in v as floats, with the activation.
template <TileAct kAct>
static inline __attribute__((always_inline)) void DepthwiseStore(
    float16x8_t v, float* out, int64_t count, float16x8_t lo16, float16x8_t hi16,
    const TileEpilogue& epilogue) {
  if (kAct == kActHalf) v = vminq_f16(vmaxq_f16(v, lo16), hi16);
  float32x4_t lo = vcvt_f32_f16(vget_low_f16(v));
  float32x4_t hi = vcvt_high_f32_f16(v);
  if (kAct == kActFloat) {
    lo = NeonActivate(lo, epilogue);
    hi = NeonActivate(hi, epilogue);
  }
  if (count >= 8) {
    vst1q_f32(out, lo);
    vst1q_f32(out + 4, hi);
    return;
  }
  // A part vector lane by lane groups (4, 2, 1): no copy through memory.
  if (count & 4) {
    vst1q_f32(out, lo);
    out += 4;
    lo = hi;
  }
  if (count & 2) {
    vst1_f32(out, vget_low_f32(lo));
    out += 2;
    lo = vextq_f32(lo, lo, 2);
  }
  if (count & 1) vst1q_lane_f32(out, lo, 0);
}

// The same into halves: a half clamp stays in half precision, other
// activations go through single precision.
template <TileAct kAct>
static inline __attribute__((always_inline)) void DepthwiseStore(
    float16x8_t v, float16_t* out, int64_t count, float16x8_t lo16, float16x8_t hi16,
    const TileEpilogue& epilogue) {
  if (kAct == kActHalf) v = vminq_f16(vmaxq_f16(v, lo16), hi16);
  if (kAct == kActFloat) {
    const float32x4_t lo = NeonActivate(vcvt_f32_f16(vget_low_f16(v)), epilogue);
    const float32x4_t hi = NeonActivate(vcvt_high_f32_f16(v), epilogue);
    v = vcvt_high_f16_f32(vcvt_f16_f32(lo), hi);
  }
  if (count >= 8) {
    vst1q_f16(out, v);
    return;
  }
  if (count & 4) {
    vst1_f16(out, vget_low_f16(v));
    out += 4;
    v = vextq_f16(v, v, 4);
  }
  if (count & 2) {
    vst1q_lane_u32(reinterpret_cast<uint32_t*>(out), vreinterpretq_u32_f16(v), 0);
    out += 2;
    v = vextq_f16(v, v, 2);
  }
  if (count & 1) vst1q_lane_f16(out, v, 0);
}

// A band of a 3x3 depthwise plane, `in` holding half values (in_pitch of
// them per row, 8 * ceil(out_w / 8) * stride + 2 readable). Output rows go
// in groups that load the input rows they share once: 4 rows from 6 input
// rows at vertical stride 1, pairs from 5 at 2. Sums start at the bias and
// are kept in half precision.
template <int kStride, int kStrideH, TileAct kAct, typename OT>
static void DepthwiseBand3x3(const DepthwiseBand& band) {
  // Locals: the output stores could alias the band's fields as far as the
  // compiler knows, and reloading them cost a third of the loop.
  const float16_t* in = reinterpret_cast<const float16_t*>(band.in);
  const int64_t pitch = band.in_pitch, out_w = band.out_w, rows = band.rows;
  OT* out = reinterpret_cast<OT*>(band.out);
  TileEpilogue epilogue;
  epilogue.activation = band.epilogue.activation;
  epilogue.lo = band.epilogue.lo;
  epilogue.hi = band.epilogue.hi;
  const float16x8_t lo16 = vdupq_n_f16(static_cast<float16_t>(epilogue.lo));
  const float16x8_t hi16 = vdupq_n_f16(static_cast<float16_t>(epilogue.hi));
  // Taps 0 to 7 as the lanes of one vector, tap 8 in every lane of another.
  const float16x8_t t07 = vcombine_f16(vcvt_f16_f32(vld1q_f32(band.taps)),
                                       vcvt_f16_f32(vld1q_f32(band.taps + 4)));
  const float16x8_t t8 = vdupq_n_f16(static_cast<float16_t>(band.taps[8]));
  const float16x8_t bias = vdupq_n_f16(static_cast<float16_t>(band.bias));
  // kRows output rows of 8 (or count) outputs at x: each input row is
  // loaded once and added to every output row it feeds, in tap-row order.
  const auto rows_at = [&](auto rows_tag, const float16_t* x, OT* dst, int64_t count)
                           __attribute__((always_inline)) {
    constexpr int kRows = decltype(rows_tag)::value;
    float16x8_t acc[kRows];
#pragma GCC unroll 4
    for (int o = 0; o < kRows; ++o) acc[o] = bias;
#pragma GCC unroll 9
    for (int i = 0; i < (kRows - 1) * kStrideH + 3; ++i) {
      const DepthwiseInputs in = LoadInputs<kStride>(x + i * pitch);
#pragma GCC unroll 4
      for (int o = 0; o < kRows; ++o) {
        const int tap_row = i - o * kStrideH;
        if (tap_row >= 0 && tap_row <= 2) {
          acc[o] = AddRow(acc[o], in, tap_row, t07, t8);
        }
      }
    }
#pragma GCC unroll 4
    for (int o = 0; o < kRows; ++o) {
      DepthwiseStore<kAct>(acc[o], dst + o * out_w, count, lo16, hi16, epilogue);
    }
  };
  const int64_t whole = out_w / 8 * 8;
  // A row's last part vector: the row's last 8 outputs again (whole ones
  // that overlap those stored) when it has 8, else a part vector.
  const int64_t tail = whole == out_w ? 0 : out_w >= 8 ? out_w - 8 : 0;
  const int64_t tail_count = out_w >= 8 ? 8 : out_w;
  int64_t r = 0;
  // Output rows in groups of 4 at vertical stride 1 (6 input rows for 4),
  // in pairs at 2 (5 input rows for 2; 9 for 4 would save little), then
  // what is left.
  const auto group = [&](auto rows_tag) __attribute__((always_inline)) {
    constexpr int kRows = decltype(rows_tag)::value;
    for (; r + kRows <= rows; r += kRows, out += kRows * out_w) {
      const float16_t* row0 = in + r * kStrideH * pitch;
      for (int64_t j = 0; j < whole; j += 8) rows_at(rows_tag, row0 + j * kStride, out + j, 8);
      if (whole < out_w) rows_at(rows_tag, row0 + tail * kStride, out + tail, tail_count);
    }
  };
  if (kStrideH == 1) group(std::integral_constant<int, 4>());
  group(std::integral_constant<int, 2>());
  group(std::integral_constant<int, 1>());
}


template <int kStride, int kStrideH, typename OT>
static void Depthwise3x3(const DepthwiseBand& band) {
  switch (ActFor(band.epilogue)) {
    case kActNone:
      return DepthwiseBand3x3<kStride, kStrideH, kActNone, OT>(band);
    case kActHalf:
      return DepthwiseBand3x3<kStride, kStrideH, kActHalf, OT>(band);
    default:
      return DepthwiseBand3x3<kStride, kStrideH, kActFloat, OT>(band);
  }
}

template <int kStride, int kStrideH>
static void Depthwise3x3(const DepthwiseBand& band) {
  if (band.out_half) return Depthwise3x3<kStride, kStrideH, float16_t>(band);
  Depthwise3x3<kStride, kStrideH, float>(band);
}

}  // namespace

void Fp16Depthwise3x3S1(const DepthwiseBand& band) {
  if (band.stride_h == 1) return Depthwise3x3<1, 1>(band);
  Depthwise3x3<1, 2>(band);
}
void Fp16Depthwise3x3S2(const DepthwiseBand& band) {
  if (band.stride_h == 1) return Depthwise3x3<2, 1>(band);
  Depthwise3x3<2, 2>(band);
}

namespace {

// The 8 x 8 transpose of halves: r[i] lane j becomes r[j] lane i.
static inline __attribute__((always_inline)) void Transpose8x8(uint16x8_t r[8]) {
  const uint16x8_t t0 = vtrn1q_u16(r[0], r[1]), t1 = vtrn2q_u16(r[0], r[1]);
  const uint16x8_t t2 = vtrn1q_u16(r[2], r[3]), t3 = vtrn2q_u16(r[2], r[3]);
  const uint16x8_t t4 = vtrn1q_u16(r[4], r[5]), t5 = vtrn2q_u16(r[4], r[5]);
  const uint16x8_t t6 = vtrn1q_u16(r[6], r[7]), t7 = vtrn2q_u16(r[6], r[7]);
  const auto trn1_32 = [](uint16x8_t a, uint16x8_t b) __attribute__((always_inline)) {
    return vreinterpretq_u16_u32(vtrn1q_u32(vreinterpretq_u32_u16(a), vreinterpretq_u32_u16(b)));
  };
  const auto trn2_32 = [](uint16x8_t a, uint16x8_t b) __attribute__((always_inline)) {
    return vreinterpretq_u16_u32(vtrn2q_u32(vreinterpretq_u32_u16(a), vreinterpretq_u32_u16(b)));
  };
  const auto trn1_64 = [](uint16x8_t a, uint16x8_t b) __attribute__((always_inline)) {
    return vreinterpretq_u16_u64(vtrn1q_u64(vreinterpretq_u64_u16(a), vreinterpretq_u64_u16(b)));
  };
  const auto trn2_64 = [](uint16x8_t a, uint16x8_t b) __attribute__((always_inline)) {
    return vreinterpretq_u16_u64(vtrn2q_u64(vreinterpretq_u64_u16(a), vreinterpretq_u64_u16(b)));
  };
  const uint16x8_t u0 = trn1_32(t0, t2), u2 = trn2_32(t0, t2);
  const uint16x8_t u1 = trn1_32(t1, t3), u3 = trn2_32(t1, t3);
  const uint16x8_t u4 = trn1_32(t4, t6), u6 = trn2_32(t4, t6);
  const uint16x8_t u5 = trn1_32(t5, t7), u7 = trn2_32(t5, t7);
  r[0] = trn1_64(u0, u4);
  r[4] = trn2_64(u0, u4);
  r[1] = trn1_64(u1, u5);
  r[5] = trn2_64(u1, u5);
  r[2] = trn1_64(u2, u6);
  r[6] = trn2_64(u2, u6);
  r[3] = trn1_64(u3, u7);
  r[7] = trn2_64(u3, u7);
}

// One output pixel of 8 channels from its three tap rows (three adjacent
// padded pixels each), with the activation kAct.
template <TileAct kAct>
static inline __attribute__((always_inline)) float16x8_t PackedPixel(
    float16x8_t acc, const float16x8_t x[9], const float16x8_t taps[9], float16x8_t lo16,
    float16x8_t hi16, const TileEpilogue& epilogue) {
#pragma GCC unroll 9
  for (int k = 0; k < 9; ++k) acc = vfmaq_f16(acc, x[k], taps[k]);
  if (kAct == kActHalf) acc = vminq_f16(vmaxq_f16(acc, lo16), hi16);
  if (kAct == kActFloat) {
    const float32x4_t lo = NeonActivate(vcvt_f32_f16(vget_low_f16(acc)), epilogue);
    const float32x4_t hi = NeonActivate(vcvt_high_f32_f16(acc), epilogue);
    acc = vcvt_high_f16_f32(vcvt_f16_f32(lo), hi);
  }
  return acc;
}

// The packed group's outputs into `staging`, with the activation kAct. At
// horizontal stride 1 outputs go in fours, which share four of the six
// padded pixels each tap row loads (two loads a tap row for four outputs,
// where pairs took one for two, and one store), then a pair and a single.
template <int kStrideW, TileAct kAct>
static void PackedOutputs(const DepthwisePackedGroup& g, const float16x8_t taps[9],
                          float16x8_t bias) {
  const float16_t* padded = reinterpret_cast<const float16_t*>(g.padded);
  float16_t* out = reinterpret_cast<float16_t*>(g.staging);
  const int64_t out_h = g.out_h, out_w = g.out_w, row_step = g.stride_h * g.padded_w * 8;
  const TileEpilogue epilogue = g.epilogue;
  const float16x8_t lo16 = vdupq_n_f16(static_cast<float16_t>(epilogue.lo));
  const float16x8_t hi16 = vdupq_n_f16(static_cast<float16_t>(epilogue.hi));
  const int64_t padded_row = g.padded_w * 8;
  const int64_t quads = kStrideW == 1 ? out_w / 4 : 0;
  const int64_t pairs = kStrideW == 1 ? out_w % 4 / 2 : 0;
  for (int64_t oh = 0; oh < out_h; ++oh) {
    const float16_t* r0 = padded + oh * row_step;
    const float16_t* r1 = r0 + padded_row;
    const float16_t* r2 = r1 + padded_row;
    for (int64_t i = 0; i < quads; ++i, r0 += 32, r1 += 32, r2 += 32, out += 32) {
      // Six adjacent padded pixels of each tap row.
      float16x8_t x[3][6];
      const float16_t* const rows[3] = {r0, r1, r2};
#pragma GCC unroll 3
      for (int t = 0; t < 3; ++t) {
        const float16x8x4_t first = vld1q_f16_x4(rows[t]);
        const float16x8x2_t last = vld1q_f16_x2(rows[t] + 32);
        x[t][0] = first.val[0];
        x[t][1] = first.val[1];
        x[t][2] = first.val[2];
        x[t][3] = first.val[3];
        x[t][4] = last.val[0];
        x[t][5] = last.val[1];
      }
      float16x8x4_t four;
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const float16x8_t window[9] = {x[0][j], x[0][j + 1], x[0][j + 2],
                                       x[1][j], x[1][j + 1], x[1][j + 2],
                                       x[2][j], x[2][j + 1], x[2][j + 2]};
        four.val[j] = PackedPixel<kAct>(bias, window, taps, lo16, hi16, epilogue);
      }
      vst1q_f16_x4(out, four);
    }
    for (int64_t i = 0; i < pairs; ++i, r0 += 16, r1 += 16, r2 += 16, out += 16) {
      const float16x8x4_t a = vld1q_f16_x4(r0), b = vld1q_f16_x4(r1), c = vld1q_f16_x4(r2);
      const float16x8_t x0[9] = {a.val[0], a.val[1], a.val[2], b.val[0], b.val[1],
                                 b.val[2], c.val[0], c.val[1], c.val[2]};
      const float16x8_t x1[9] = {a.val[1], a.val[2], a.val[3], b.val[1], b.val[2],
                                 b.val[3], c.val[1], c.val[2], c.val[3]};
      float16x8x2_t pair;
      pair.val[0] = PackedPixel<kAct>(bias, x0, taps, lo16, hi16, epilogue);
      pair.val[1] = PackedPixel<kAct>(bias, x1, taps, lo16, hi16, epilogue);
      vst1q_f16_x2(out, pair);
    }
    for (int64_t ow = quads * 4 + pairs * 2; ow < out_w;
         ++ow, r0 += kStrideW * 8, r1 += kStrideW * 8, r2 += kStrideW * 8, out += 8) {
      // Each tap row's three pixels are adjacent: one three-vector load.
      const float16x8x3_t a = vld1q_f16_x3(r0), b = vld1q_f16_x3(r1), c = vld1q_f16_x3(r2);
      const float16x8_t x[9] = {a.val[0], a.val[1], a.val[2], b.val[0], b.val[1],
                                b.val[2], c.val[0], c.val[1], c.val[2]};
      vst1q_f16(out, PackedPixel<kAct>(bias, x, taps, lo16, hi16, epilogue));
    }
  }
}

}  // namespace

// A whole group's taps and bias as lanes: each channel's first 8 taps
// converted as one vector and the 8 x 8 block transposed, tap 8 and the
// bias 8 lanes at a time (about 60 instructions where converting and
// storing the 81 values one by one took 300, per group of 8 channels).
static void WholeGroupTaps(const DepthwisePackedGroup& g, float16x8_t taps[9],
                           float16x8_t* bias) {
  const float* t = g.taps;
  uint16x8_t rows[8];
  float32x4_t last_lo = vdupq_n_f32(0.f), last_hi = vdupq_n_f32(0.f);
#pragma GCC unroll 8
  for (int c = 0; c < 8; ++c, t += 9) {
    rows[c] = vreinterpretq_u16_f16(
        vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(t)), vld1q_f32(t + 4)));
#if defined(__clang__)
    // clang wants vsetq_lane_f32's lane constant before it unrolls the loop.
    (c < 4 ? last_lo : last_hi)[c & 3] = t[8];
#else
    if (c < 4) {
      last_lo = vsetq_lane_f32(t[8], last_lo, c & 3);
    } else {
      last_hi = vsetq_lane_f32(t[8], last_hi, c & 3);
    }
#endif
  }
  Transpose8x8(rows);
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) taps[k] = vreinterpretq_f16_u16(rows[k]);
  taps[8] = vcvt_high_f16_f32(vcvt_f16_f32(last_lo), last_hi);
  *bias = g.bias == nullptr ? vdupq_n_f16(0)
                            : vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(g.bias)),
                                                vld1q_f32(g.bias + 4));
}

void Fp16Depthwise3x3Packed(const DepthwisePackedGroup& g) {
  const int channels = g.channels;
  float16x8_t taps[9];
  float16x8_t bias;
  if (channels == 8) {
    WholeGroupTaps(g, taps, &bias);
  } else {
    // Taps (k, c) as lane c of vector k, the bias as lane c; lanes past the
    // channels are zero.
    float16_t tap_lanes[9 * 8] = {}, bias_lanes[8] = {};
    const float* const tap_values = g.taps;
    for (int c = 0; c < channels; ++c) {
#pragma GCC unroll 9
      for (int k = 0; k < 9; ++k) {
        tap_lanes[k * 8 + c] = static_cast<float16_t>(tap_values[c * 9 + k]);
      }
    }
    if (g.bias != nullptr) {
      for (int c = 0; c < channels; ++c) bias_lanes[c] = static_cast<float16_t>(g.bias[c]);
    }
    for (int k = 0; k < 9; ++k) taps[k] = vld1q_f16(tap_lanes + k * 8);
    bias = vld1q_f16(bias_lanes);
  }
  // Input pixels in groups of 8 (the last group overlaps the one before):
  // each channel's 8 pixels are one load, transposed to 8 pixels of 8
  // channels. Channels past the group's read the last one's plane again.
  {
    const uint16_t* planes[8];
    for (int c = 0; c < 8; ++c) planes[c] = g.in + std::min(c, channels - 1) * g.in_plane;
    const int64_t pixels = g.in_pixels;
    const int32_t* offsets = g.in_offsets;
    char* const padded = reinterpret_cast<char*>(g.padded);
    uint32_t pixels8[32];
    for (int64_t p0 = 0; p0 < pixels; p0 += 8) {
      const int64_t p = std::min(p0, pixels - 8);
      uint16x8_t r[8];
#pragma GCC unroll 8
      for (int c = 0; c < 8; ++c) r[c] = vld1q_u16(planes[c] + p);
      // Channels zipped in pairs, whose 32-bit lanes st4 interleaves: the
      // 8 pixels of 8 channels in 8 zips and 2 stores (the transpose took
      // 24 permutes). Pixels of one input row inside the read region sit
      // in consecutive padded pixels, and the spare one follows the last
      // padded pixel, so 8 offsets whose ends are 7 pixels apart are
      // consecutive: stored in place, else through `pixels8` one by one.
      uint32x4x4_t front, back;
#pragma GCC unroll 4
      for (int k = 0; k < 4; ++k) {
        front.val[k] = vreinterpretq_u32_u16(vzip1q_u16(r[2 * k], r[2 * k + 1]));
        back.val[k] = vreinterpretq_u32_u16(vzip2q_u16(r[2 * k], r[2 * k + 1]));
      }
      const int32_t first = offsets[p];
      const bool consecutive = offsets[p + 7] - first == 7 * 16;
      uint32_t* const dst = consecutive ? reinterpret_cast<uint32_t*>(padded + first) : pixels8;
      vst4q_u32(dst, front);
      vst4q_u32(dst + 16, back);
      if (consecutive) continue;
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        vst1q_u32(reinterpret_cast<uint32_t*>(padded + offsets[p + j]), vld1q_u32(pixels8 + 4 * j));
      }
    }
  }
  const TileAct act = ActFor(g.epilogue);
  if (g.stride_w == 1) {
    if (act == kActNone) PackedOutputs<1, kActNone>(g, taps, bias);
    else if (act == kActHalf) PackedOutputs<1, kActHalf>(g, taps, bias);
    else PackedOutputs<1, kActFloat>(g, taps, bias);
  } else {
    if (act == kActNone) PackedOutputs<2, kActNone>(g, taps, bias);
    else if (act == kActHalf) PackedOutputs<2, kActHalf>(g, taps, bias);
    else PackedOutputs<2, kActFloat>(g, taps, bias);
  }
  // Output pixels back in groups of 8 (the last overlapping): 8 pixels of
  // 8 channels transposed to 8 halves of each channel's plane.
  // Locals: the stores could alias the group's fields as far as the
  // compiler knows.
  const int64_t pixels = g.out_h * g.out_w;
  const uint16_t* const staging = g.staging;
  uint16_t* planes[8];
  for (int c = 0; c < 8; ++c) planes[c] = g.out + std::min(c, channels - 1) * g.out_plane;
  for (int64_t p0 = 0; p0 < pixels; p0 += 8) {
    const int64_t p = std::min(p0, pixels - 8);
    // ld4 of 32-bit lanes parts pixels p to p + 3 (and p + 4 to p + 7)
    // into channel pairs, unzipped to channels: 2 loads and 8 unzips where
    // the transpose took 2 and 24.
    const uint32x4x4_t front = vld4q_u32(reinterpret_cast<const uint32_t*>(staging + p * 8));
    const uint32x4x4_t back = vld4q_u32(reinterpret_cast<const uint32_t*>(staging + p * 8 + 32));
    uint16x8_t r[8];
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const uint16x8_t x = vreinterpretq_u16_u32(front.val[k]);
      const uint16x8_t y = vreinterpretq_u16_u32(back.val[k]);
      r[2 * k] = vuzp1q_u16(x, y);
      r[2 * k + 1] = vuzp2q_u16(x, y);
    }
    // Lanes past the channels go to the last channel's plane first, and
    // its own values overwrite them.
#pragma GCC unroll 8
    for (int c = 7; c >= 0; --c) vst1q_u16(planes[c] + p, r[c]);
  }
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
