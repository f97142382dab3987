// The kernels written once in portable C++ (cpu/gemv_kernels.inc,
// cpu/blocked_kernels.inc) and NEON's Winograd transforms
// (winograd_neon.inc), built here with this library's NEON flags so
// the compiler vectorizes them for this instruction set.
#include <arm_neon.h>

#include <type_traits>

#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {
#include "mace/ops/cpu/gemv_kernels.inc"
#include "mace/ops/arm/winograd_neon.inc"
// Channel blocks of 4 lanes (one quad register). arm64 keeps 8 x 3
// accumulators, three weight vectors and a broadcast input value in its 32
// vector registers; armv7 has 16 and keeps 4 x 2.
constexpr int kBkLanes = 4;
#if defined(__aarch64__)
constexpr int kBkPos = 8;
constexpr int kBkBlocks = 3;
#else
constexpr int kBkPos = 4;
constexpr int kBkBlocks = 2;
#endif
constexpr int kBkAccumulators = kBkPos * kBkBlocks;
// Unrolled channel blocks executed more instructions (SqueezeNet 1.1 blocked:
// 132.6 M on arm64, 257.9 M on armv7, against 118.6 M and 204.8 M looped).
constexpr bool kBkUnrollBlocks = false;
#include "mace/ops/cpu/blocked_kernels.inc"

// NEON has no masked store: the tail goes lane by lane.
inline void WgStorePartial(const float* src, int64_t count, float* dst) {
  for (int64_t i = 0; i < count; ++i) dst[i] = src[i];
}

// vmaxq_f32 and vminq_f32 return NaN when either operand is NaN.
inline BkVec BkAtLeast(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(vmaxq_f32(reinterpret_cast<float32x4_t>(x), vdupq_n_f32(bound)));
}
inline BkVec BkAtMost(const BkVec& x, float bound) {
  return reinterpret_cast<BkVec>(vminq_f32(reinterpret_cast<float32x4_t>(x), vdupq_n_f32(bound)));
}
inline BkVec BkMaxOf(const BkVec& a, const BkVec& b) {
  return reinterpret_cast<BkVec>(
      vmaxq_f32(reinterpret_cast<float32x4_t>(a), reinterpret_cast<float32x4_t>(b)));
}
// An empty asm statement holding v in a NEON register.
inline void BkInRegister(BkVec& v) { __asm__("" : "+w"(v)); }

// 1x1 runs over a blocked input: a position's four channels of a block are
// one quad register, and each weight vector multiplies one of its lanes
// (multiply-add by element), so four reduction steps load each position
// once instead of broadcasting four values.
#if defined(__aarch64__)
// 4 x 3 accumulators, 4 inputs and four weight vectors of the 32 registers.
// 6 x 3 and 8 x 2 fit on paper, but GCC then spills and moves registers to
// satisfy the multi-register loads (more instructions per inference).
constexpr int kLanePos = 4;
template <int kLane>
inline float32x4_t FmaLane(float32x4_t acc, float32x4_t w, float32x4_t x) {
  return vfmaq_laneq_f32(acc, w, x, kLane);
}
inline float32x4_t FmaScalar(float32x4_t acc, float32x4_t w, float x) {
  return vfmaq_n_f32(acc, w, x);
}
#else
// 3 x 2 accumulators, 3 inputs and a weight vector of the 16 registers.
constexpr int kLanePos = 3;
template <int kLane>
inline float32x4_t FmaLane(float32x4_t acc, float32x4_t w, float32x4_t x) {
  return vmlaq_lane_f32(acc, w, kLane < 2 ? vget_low_f32(x) : vget_high_f32(x), kLane & 1);
}
inline float32x4_t FmaScalar(float32x4_t acc, float32x4_t w, float x) {
  return vmlaq_n_f32(acc, w, x);
}
#endif

template <int kLane, int kPos, int kBlocks>
inline void LaneStep(float32x4_t (&acc)[kPos][kBlocks], const float32x4_t (&x)[kPos],
                     const float* w, int64_t block_stride) {
#pragma GCC unroll 4
  for (int o = 0; o < kBlocks; ++o) {
    const float32x4_t wv = vld1q_f32(w + o * block_stride);
#pragma GCC unroll 8
    for (int j = 0; j < kPos; ++j) acc[j][o] = FmaLane<kLane>(acc[j][o], wv, x[j]);
  }
}

template <int kPos, int kBlocks>
void NeonLaneTile(const BlockedConvRun& run, int64_t j0) {
  float32x4_t acc[kPos][kBlocks];
#pragma GCC unroll 4
  for (int o = 0; o < kBlocks; ++o) {
    const float* out = run.out + o * run.out_block_stride + j0 * 4;
    const float32x4_t b = run.bias != nullptr ? vld1q_f32(run.bias + o * 4) : vdupq_n_f32(0.f);
#pragma GCC unroll 8
    for (int j = 0; j < kPos; ++j) acc[j][o] = run.epilogue.accumulate ? vld1q_f32(out + 4 * j) : b;
  }
  const float* in = run.in + run.tap_offsets[0] + j0 * 4;
  const float* w = run.weights;
  const int64_t wbs = run.weight_block_stride;
  int64_t c = 0;
  // A block's weights for four channels are 16 consecutive floats.
#if defined(__aarch64__)
  // The tile's inputs for them are kPos x 4: multi-register loads take
  // them in a few instructions.
  for (; c + 4 <= run.channels; c += 4) {
    const float* x = in + run.channel_offsets[c];
    float32x4_t xv[kPos];
    if constexpr (kPos == 4) {
      const float32x4x4_t all = vld1q_f32_x4(x);
      xv[0] = all.val[0];
      xv[1] = all.val[1];
      xv[2] = all.val[2];
      xv[3] = all.val[3];
    } else {
#pragma GCC unroll 8
      for (int j = 0; j < kPos; ++j) xv[j] = vld1q_f32(x + 4 * j);
    }
#pragma GCC unroll 4
    for (int o = 0; o < kBlocks; ++o) {
      const float32x4x4_t wv = vld1q_f32_x4(w + o * wbs);
#pragma GCC unroll 8
      for (int j = 0; j < kPos; ++j) {
        acc[j][o] = vfmaq_laneq_f32(acc[j][o], wv.val[0], xv[j], 0);
        acc[j][o] = vfmaq_laneq_f32(acc[j][o], wv.val[1], xv[j], 1);
        acc[j][o] = vfmaq_laneq_f32(acc[j][o], wv.val[2], xv[j], 2);
        acc[j][o] = vfmaq_laneq_f32(acc[j][o], wv.val[3], xv[j], 3);
      }
    }
    w += 16;
  }
#endif
  for (; c + 4 <= run.channels; c += 4) {
    const float* x = in + run.channel_offsets[c];
    float32x4_t xv[kPos];
#pragma GCC unroll 8
    for (int j = 0; j < kPos; ++j) xv[j] = vld1q_f32(x + 4 * j);
    LaneStep<0>(acc, xv, w, wbs);
    LaneStep<1>(acc, xv, w + 4, wbs);
    LaneStep<2>(acc, xv, w + 8, wbs);
    LaneStep<3>(acc, xv, w + 12, wbs);
    w += 16;
  }
  for (; c < run.channels; ++c) {
    const float* x = in + run.channel_offsets[c];
#pragma GCC unroll 4
    for (int o = 0; o < kBlocks; ++o) {
      const float32x4_t wv = vld1q_f32(w + o * wbs);
#pragma GCC unroll 8
      for (int j = 0; j < kPos; ++j) acc[j][o] = FmaScalar(acc[j][o], wv, x[4 * j]);
    }
    w += 4;
  }
  // The epilogue is read into locals first: the stores may alias anything,
  // so GCC would read it again after each one.
  const int32_t activation = run.epilogue.last ? run.epilogue.activation : kTileActNone;
  const float lo = run.epilogue.lo, hi = run.epilogue.hi;
  float* const out0 = run.out + j0 * 4;
  const int64_t obs = run.out_block_stride;
  if (activation == kTileActClamp) {
    const float32x4_t lo_v = vdupq_n_f32(lo), hi_v = vdupq_n_f32(hi);
#pragma GCC unroll 4
    for (int o = 0; o < kBlocks; ++o) {
#pragma GCC unroll 8
      for (int j = 0; j < kPos; ++j) {
        vst1q_f32(out0 + o * obs + 4 * j, vminq_f32(vmaxq_f32(acc[j][o], lo_v), hi_v));
      }
    }
    return;
  }
#pragma GCC unroll 4
  for (int o = 0; o < kBlocks; ++o) {
#pragma GCC unroll 8
    for (int j = 0; j < kPos; ++j) {
      BkVec v = reinterpret_cast<BkVec>(acc[j][o]);
      if (activation == kTileActHardSwish) v = BkActivate<kTileActHardSwish>(v, lo, hi);
      BkStore(out0 + o * obs + 4 * j, v);
    }
  }
}

template <int kBlocks, int kRest = kLanePos - 1>
void NeonLaneRest(const BlockedConvRun& run, int64_t j, int64_t rest) {
  if constexpr (kRest > 0) {
    if (rest == kRest) return NeonLaneTile<kRest, kBlocks>(run, j);
    NeonLaneRest<kBlocks, kRest - 1>(run, j, rest);
  }
}

// Whole tiles, then one tile of the positions left.
template <int kBlocks>
void NeonLaneRunBlocks(const BlockedConvRun& run) {
  const int64_t n = run.positions;
  int64_t j = 0;
  for (; j + kLanePos <= n; j += kLanePos) NeonLaneTile<kLanePos, kBlocks>(run, j);
  if (j < n) NeonLaneRest<kBlocks>(run, j, n - j);
}

void NeonLaneRun(const BlockedConvRun& run) {
  switch (run.blocks) {
    case 1:
      return NeonLaneRunBlocks<1>(run);
    case 2:
      return NeonLaneRunBlocks<2>(run);
    default:
      if constexpr (kBkBlocks >= 3) return NeonLaneRunBlocks<3>(run);
  }
}
}  // namespace

#if defined(__aarch64__)
namespace {

// An 8-wide panel (arm64's A panels: a classifier's weights) times x, with
// intrinsics: GCC kept GemvPanel<8>'s 4 x 8 partial sums in memory, about
// 2.7 instructions per multiply-add. Here four depths are one load of x,
// two four-register loads of the panel and 8 fmla by lane, into two
// pairs of accumulators (even and odd depths).
void NeonGemvPanel8(const float* panel, int64_t depth, const float* x, float* out) {
  float32x4_t even0 = vdupq_n_f32(0.f), even1 = even0, odd0 = even0, odd1 = even0;
  int64_t d = 0;
  for (; d + 4 <= depth; d += 4, panel += 32) {
    const char* ahead = reinterpret_cast<const char*>(panel) + kGemvAhead;
    __builtin_prefetch(ahead);
    __builtin_prefetch(ahead + 64);
    const float32x4_t xv = vld1q_f32(x + d);
    const float32x4x4_t p = vld1q_f32_x4(panel);
    const float32x4x4_t q = vld1q_f32_x4(panel + 16);
    even0 = vfmaq_laneq_f32(even0, p.val[0], xv, 0);
    even1 = vfmaq_laneq_f32(even1, p.val[1], xv, 0);
    odd0 = vfmaq_laneq_f32(odd0, p.val[2], xv, 1);
    odd1 = vfmaq_laneq_f32(odd1, p.val[3], xv, 1);
    even0 = vfmaq_laneq_f32(even0, q.val[0], xv, 2);
    even1 = vfmaq_laneq_f32(even1, q.val[1], xv, 2);
    odd0 = vfmaq_laneq_f32(odd0, q.val[2], xv, 3);
    odd1 = vfmaq_laneq_f32(odd1, q.val[3], xv, 3);
  }
  for (; d < depth; ++d, panel += 8) {
    const float32x4_t xd = vdupq_n_f32(x[d]);
    even0 = vfmaq_f32(even0, vld1q_f32(panel), xd);
    even1 = vfmaq_f32(even1, vld1q_f32(panel + 4), xd);
  }
  vst1q_f32(out, vaddq_f32(even0, odd0));
  vst1q_f32(out + 4, vaddq_f32(even1, odd1));
}

// The same for a 12-wide panel (arm64's B panels: a classifier run as one
// row times the weights), in assembly: eight depths a loop are six
// four-register loads of the panel, one two-register load of x, 24 fmla,
// the six lines of prefetch and the loop's subs and b.ne, 39 instructions,
// where GCC's loop of the intrinsics took 26 for four depths (its address
// arithmetic for the prefetches; ShuffleNet v2's 1000 x 1024 classifier
// spent 0.56 M here). Depth d accumulates in v16-v18 if d % 4 is 0 or 2,
// else in v19-v21, summed at the end, as before.
// clang-format off
#define MACE_GEMV12_PREFETCH(offset) "prfm pldl1keep, [%[p], #" #offset "]\n"
// Four depths, x's in lanes 0-3 of xv.
#define MACE_GEMV12_FOUR(xv)                                     \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[p]], #64\n"              \
  "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[p]], #64\n"          \
  "ld1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[p]], #64\n"          \
  "fmla v16.4s, v4.4s, " xv ".s[0]\n"                            \
  "fmla v17.4s, v5.4s, " xv ".s[0]\n"                            \
  "fmla v18.4s, v6.4s, " xv ".s[0]\n"                            \
  "fmla v19.4s, v7.4s, " xv ".s[1]\n"                            \
  "fmla v20.4s, v24.4s, " xv ".s[1]\n"                           \
  "fmla v21.4s, v25.4s, " xv ".s[1]\n"                           \
  "fmla v16.4s, v26.4s, " xv ".s[2]\n"                           \
  "fmla v17.4s, v27.4s, " xv ".s[2]\n"                           \
  "fmla v18.4s, v28.4s, " xv ".s[2]\n"                           \
  "fmla v19.4s, v29.4s, " xv ".s[3]\n"                           \
  "fmla v20.4s, v30.4s, " xv ".s[3]\n"                           \
  "fmla v21.4s, v31.4s, " xv ".s[3]\n"
void NeonGemvPanel12(const float* panel, int64_t depth, const float* x, float* out) {
  static_assert(kGemvAhead == 8192, "the prefetch offsets below");
  int64_t octs = depth >> 3;
  int64_t rest = depth & 3;
  __asm__ volatile(
      "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n"
      "movi v19.16b, #0\n movi v20.16b, #0\n movi v21.16b, #0\n"
      "cbz %[octs], 2f\n"
      "1:\n"
      MACE_GEMV12_PREFETCH(8192) MACE_GEMV12_PREFETCH(8256) MACE_GEMV12_PREFETCH(8320)
      MACE_GEMV12_PREFETCH(8384) MACE_GEMV12_PREFETCH(8448) MACE_GEMV12_PREFETCH(8512)
      "ld1 {v0.4s, v1.4s}, [%[x]], #32\n"
      MACE_GEMV12_FOUR("v0")
      MACE_GEMV12_FOUR("v1")
      "subs %[octs], %[octs], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "tbz %[depth], #2, 3f\n"
      MACE_GEMV12_PREFETCH(8192) MACE_GEMV12_PREFETCH(8256) MACE_GEMV12_PREFETCH(8320)
      "ld1 {v0.4s}, [%[x]], #16\n"
      MACE_GEMV12_FOUR("v0")
      "3:\n"
      "cbz %[rest], 5f\n"
      "4:\n"
      "ld1r {v0.4s}, [%[x]], #4\n"
      "ld1 {v4.4s, v5.4s, v6.4s}, [%[p]], #48\n"
      "fmla v16.4s, v4.4s, v0.4s\n"
      "fmla v17.4s, v5.4s, v0.4s\n"
      "fmla v18.4s, v6.4s, v0.4s\n"
      "subs %[rest], %[rest], #1\n"
      "b.ne 4b\n"
      "5:\n"
      "fadd v16.4s, v16.4s, v19.4s\n"
      "fadd v17.4s, v17.4s, v20.4s\n"
      "fadd v18.4s, v18.4s, v21.4s\n"
      "st1 {v16.4s, v17.4s, v18.4s}, [%[out]]\n"
      : [p] "+r"(panel), [x] "+r"(x), [octs] "+r"(octs), [rest] "+r"(rest)
      : [depth] "r"(depth), [out] "r"(out)
      : "cc", "memory", "v0", "v1", "v4", "v5", "v6", "v7", "v16", "v17", "v18", "v19", "v20",
        "v21", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31");
}
#undef MACE_GEMV12_PREFETCH
#undef MACE_GEMV12_FOUR
// clang-format on

}  // namespace
#endif

bool NeonPanelDot(const float* panel, int64_t depth, int32_t width, const float* x, float* out) {
#if defined(__aarch64__)
  if (width == 8) {
    NeonGemvPanel8(panel, depth, x, out);
    return true;
  }
  if (width == 12) {
    NeonGemvPanel12(panel, depth, x, out);
    return true;
  }
#endif
  return GemvDot(panel, depth, width, x, out);
}

void NeonBlockedConv(const BlockedConvRun& run) {
  if (!(run.blocked_input && run.taps == 1 && run.pos_step == kBkLanes &&
        run.pos_offsets == nullptr)) {
    return BkConv(run);
  }
  BlockedConvRun row = run;
  for (int64_t r = 0; r < run.rows; ++r) {
    row.in = run.in + r * run.in_row_step;
    row.out = run.out + r * run.out_row_step;
    NeonLaneRun(row);
  }
}
void NeonBlockedWindow(const BlockedWindowRun& run) { BkWindow(run); }
void NeonBlockedWinogradInput(const BlockedWinogradInputRun& run) { BkWinogradInput(run); }
void NeonBlockedWinogradOutput(const BlockedWinogradOutputRun& run) { BkWinogradOutput(run); }

void NeonWinogradInput(const WinogradInputRun& run) { WgInput(run); }
void NeonWinogradOutput(const WinogradOutputRun& run) { WgOutput(run); }
void NeonWinogradInputChannels(const WinogradInputRun& run, int64_t channels,
                               int64_t channel_stride, int64_t out_stride) {
#if defined(__aarch64__)
  // arm64's transform takes a channel a call; the run's set-up is all the
  // channels share.
  WinogradInputRun one = run;
  for (int64_t k = 0; k < channels; ++k) {
    WgInput(one);
    for (const float*& row : one.rows) {
      if (row != nullptr) row += channel_stride;
    }
    one.out += out_stride;
  }
#else
  WgInput(run, WgInputChannels{channels, channel_stride, out_stride});
#endif
}
void NeonWinogradOutputChannels(const WinogradOutputRun& run, int64_t channels,
                                int64_t channel_pitch, int64_t plane_stride, const float* biases) {
  WgOutput(run, WgChannels{channels, channel_pitch, plane_stride, biases});
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
