// Winograd input and output transforms in half precision (FEAT_FP16: fadd
// and fmla on .8h), eight tiles at a time. Built with -march=armv8.2-a+fp16
// in the fp16 kernel library and reached only through the fp16 kernel
// table, after the HWCAP check.
#include "mace/ops/arm/winograd_fp16_neon.h"

#include <arm_neon.h>

#include <type_traits>

#include "mace/ops/arm/neon_epilogue.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

#include "mace/ops/cpu/winograd_common.inc"
#include "mace/ops/arm/winograd_neon_staging.inc"

constexpr int kLanes = 8;

// The activation after the transform: a ReLU (clamp below at a half value,
// no upper bound) in half precision, anything else in single precision.
enum HalfAct { kHalfNone, kHalfRelu, kFloatAct };

// Row i of the outputs of eight tiles (y[j], column j) to dst[u * kTile +
// j], in single precision: tiles 0-3 from the low halves, 4-7 from the
// high ones.
template <int kTile, HalfAct kAct>
inline __attribute__((always_inline)) void StoreRow(const float16x8_t* y, float* dst,
                                                    const TileEpilogue& epilogue) {
  float32x4_t lo[kTile], hi[kTile];
#pragma GCC unroll 8
  for (int j = 0; j < kTile; ++j) {
    lo[j] = vcvt_f32_f16(vget_low_f16(y[j]));
    hi[j] = vcvt_high_f32_f16(y[j]);
    if constexpr (kAct == kFloatAct) {
      lo[j] = NeonActivate(lo[j], epilogue);
      hi[j] = NeonActivate(hi[j], epilogue);
    }
  }
  if constexpr (kTile == 2) {
    vst2q_f32(dst, ((float32x4x2_t){{lo[0], lo[1]}}));
    vst2q_f32(dst + 8, ((float32x4x2_t){{hi[0], hi[1]}}));
  } else if constexpr (kTile == 4) {
    vst4q_f32(dst, ((float32x4x4_t){{lo[0], lo[1], lo[2], lo[3]}}));
    vst4q_f32(dst + 16, ((float32x4x4_t){{hi[0], hi[1], hi[2], hi[3]}}));
  } else {
    // Columns j and j + 3 zipped, then stored with stride 3.
    float32x4x3_t a, b, c, d;
#pragma GCC unroll 8
    for (int k = 0; k < 3; ++k) {
      a.val[k] = vzip1q_f32(lo[k], lo[k + 3]);
      b.val[k] = vzip2q_f32(lo[k], lo[k + 3]);
      c.val[k] = vzip1q_f32(hi[k], hi[k + 3]);
      d.val[k] = vzip2q_f32(hi[k], hi[k + 3]);
    }
    vst3q_f32(dst, a);
    vst3q_f32(dst + 12, b);
    vst3q_f32(dst + 24, c);
    vst3q_f32(dst + 36, d);
  }
}

// The same row to halves at dst: an activation other than a ReLU runs in
// single precision and is rounded back to half.
template <int kTile, HalfAct kAct>
inline __attribute__((always_inline)) void StoreRow(const float16x8_t* y_in, float16_t* dst,
                                                    const TileEpilogue& epilogue) {
  float16x8_t y[kTile];
#pragma GCC unroll 8
  for (int j = 0; j < kTile; ++j) {
    y[j] = y_in[j];
    if constexpr (kAct == kFloatAct) {
      const float32x4_t lo = NeonActivate(vcvt_f32_f16(vget_low_f16(y[j])), epilogue);
      const float32x4_t hi = NeonActivate(vcvt_high_f32_f16(y[j]), epilogue);
      y[j] = vcvt_high_f16_f32(vcvt_f16_f32(lo), hi);
    }
  }
  if constexpr (kTile == 2) {
    vst2q_f16(dst, ((float16x8x2_t){{y[0], y[1]}}));
  } else if constexpr (kTile == 4) {
    vst4q_f16(dst, ((float16x8x4_t){{y[0], y[1], y[2], y[3]}}));
  } else {
    // Columns j and j + 3 zipped (tiles 0-3, then 4-7), stored with stride 3.
    float16x8x3_t front, back;
#pragma GCC unroll 8
    for (int k = 0; k < 3; ++k) {
      front.val[k] = vzip1q_f16(y[k], y[k + 3]);
      back.val[k] = vzip2q_f16(y[k], y[k + 3]);
    }
    vst3q_f16(dst, front);
    vst3q_f16(dst + 24, back);
  }
}

// Stores eight lanes of one position that cross a B panel's end, lane 0 at
// dst: the first kHere (1 to 7) to the end of this panel row, the rest, if
// the run has them (`spill`), as a whole vector at the start of the next
// panel's row (panel_stride halves on from the row's start). Its lanes past
// the group's are tiles of later groups or padding, which the caller
// writes after, or lanes the GEMM does not read.
template <int kHere>
inline __attribute__((always_inline)) void StoreAcross(float16_t* dst, int64_t panel_stride,
                                                       int64_t nr, bool spill, float16x8_t v) {
  static_assert(kHere >= 1 && kHere <= 7, "a group crossing a panel's end");
  constexpr int kPairAt = kHere & 4, kLastAt = kHere & 6;
  if constexpr ((kHere & 4) != 0) vst1_f16(dst, vget_low_f16(v));
  if constexpr ((kHere & 2) != 0) {
    vst1q_lane_f16(dst + kPairAt, v, kPairAt);
    vst1q_lane_f16(dst + kPairAt + 1, v, kPairAt + 1);
  }
  if constexpr ((kHere & 1) != 0) vst1q_lane_f16(dst + kLastAt, v, kLastAt);
  if (spill) vst1q_f16(dst + kHere - nr + panel_stride, vextq_f16(v, v, kHere));
}

// Eight floats at src to halves.
inline __attribute__((always_inline)) float16x8_t LoadHalves(const float* src) {
  return vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(src)), vld1q_f32(src + 4));
}
inline __attribute__((always_inline)) float16x8_t LoadHalves(const float16_t* src) {
  return vld1q_f16(src);
}

// WgStageRow for a row of halves: dst[x] = row[col0 + x] for x < count
// inside [0, in_w), zero for the rest of the first `span` (a multiple of 8)
// and for a null row.
MACE_WG_NO_LIBC_CALLS inline void StageHalfRow(const float16_t* row, int64_t in_w, int64_t col0,
                                               int64_t count, int64_t span, float16_t* dst) {
  const float16x8_t zero = vdupq_n_f16(0);
  for (int64_t x = 0; x < span; x += 8) vst1q_f16(dst + x, zero);
  if (row == nullptr) return;
  const int64_t lo = WgMin(count, WgMax(0, -col0));
  const int64_t hi = WgMax(lo, WgMin(count, in_w - col0));
  const float16_t* src = row + col0;
  int64_t x = lo;
  for (; x + 8 <= hi; x += 8) vst1q_f16(dst + x, vld1q_f16(src + x));
  if (x + 4 <= hi) {
    vst1_f16(dst + x, vld1_f16(src + x));
    x += 4;
  }
  for (; x < hi; ++x) dst[x] = src[x];
}

// WgInput1D on half vectors with every multiply-add fused by hand: GCC
// would otherwise choose which products to fuse by the code around each
// use, and the float and half paths, which must give the same V, could
// round differently. The same operation counts (26 for F(6x6), 14 for
// F(4x4)).
template <int kTile>
inline __attribute__((always_inline)) void Input1D(const float16x8_t* x, float16x8_t* y) {
  if constexpr (kTile == 2) {
    WgInput1D<2>(x, y);  // adds only
  } else if constexpr (kTile == 4) {
    const float16x8_t sum12 = vaddq_f16(x[1], x[2]), sum34 = vaddq_f16(x[3], x[4]);
    const float16x8_t diff12 = vsubq_f16(x[1], x[2]), diff43 = vsubq_f16(x[4], x[3]);
    const float16x8_t diff42 = vsubq_f16(x[4], x[2]), diff31 = vsubq_f16(x[3], x[1]);
    y[0] = vfmaq_n_f16(vfmsq_n_f16(x[4], x[2], 5.f), x[0], 4.f);
    y[1] = vfmsq_n_f16(sum34, sum12, 4.f);
    y[2] = vfmaq_n_f16(diff43, diff12, 4.f);
    y[3] = vfmaq_n_f16(diff42, diff31, 2.f);
    y[4] = vfmsq_n_f16(diff42, diff31, 2.f);
    y[5] = vfmaq_n_f16(vfmsq_n_f16(x[5], x[3], 5.f), x[1], 4.f);
  } else {
    y[0] = vfmaq_n_f16(vsubq_f16(x[0], x[6]), vsubq_f16(x[4], x[2]), 5.25f);
    y[7] = vfmaq_n_f16(vsubq_f16(x[7], x[1]), vsubq_f16(x[3], x[5]), 5.25f);
    const float16x8_t even1 = vfmsq_n_f16(vaddq_f16(x[2], x[6]), x[4], 4.25f);
    const float16x8_t odd1 = vfmsq_n_f16(vaddq_f16(x[1], x[5]), x[3], 4.25f);
    y[1] = vaddq_f16(even1, odd1);
    y[2] = vsubq_f16(even1, odd1);
    const float16x8_t even2 = vfmsq_n_f16(vfmaq_n_f16(x[6], x[2], .25f), x[4], 1.25f);
    const float16x8_t odd2 =
        vfmaq_n_f16(vfmsq_n_f16(vmulq_n_f16(x[1], .5f), x[3], 2.5f), x[5], 2.f);
    y[3] = vaddq_f16(even2, odd2);
    y[4] = vsubq_f16(even2, odd2);
    const float16x8_t even3 = vfmsq_n_f16(vfmaq_n_f16(x[6], x[2], 4.f), x[4], 5.f);
    const float16x8_t odd3 =
        vfmaq_n_f16(vfmsq_n_f16(vmulq_n_f16(x[1], 2.f), x[3], 2.5f), x[5], .5f);
    y[5] = vaddq_f16(even3, odd3);
    y[6] = vsubq_f16(even3, odd3);
  }
}

// taps[j][u] = src[u * kTile + j] for eight tiles u and j < alpha.
template <int kTile>
inline __attribute__((always_inline)) void Taps8(const float16_t* src, float16x8_t* taps) {
  if constexpr (kTile == 2) {
    const float16x8x2_t pair = vld2q_f16(src);
    taps[0] = pair.val[0];
    taps[1] = pair.val[1];
  } else if constexpr (kTile == 4) {
    const float16x8x4_t quad = vld4q_f16(src);
#pragma GCC unroll 8
    for (int q = 0; q < 4; ++q) taps[q] = quad.val[q];
  } else {
    // Stride 6 as two stride-3 loads of four tiles each: lane 2u of a
    // load's val[j] is tap j of its tile u, lane 2u + 1 tap j + 3.
    const float16x8x3_t front = vld3q_f16(src), back = vld3q_f16(src + 24);
#pragma GCC unroll 8
    for (int j = 0; j < 3; ++j) {
      taps[j] = vuzp1q_f16(front.val[j], back.val[j]);
      taps[j + 3] = vuzp2q_f16(front.val[j], back.val[j]);
    }
  }
  // Taps kTile and kTile + 1 are taps 0 and 1 one tile on.
  taps[kTile] = vextq_f16(taps[0], vdupq_n_f16(src[8 * kTile]), 1);
  taps[kTile + 1] = vextq_f16(taps[1], vdupq_n_f16(src[8 * kTile + 1]), 1);
}

// The taps of four tiles of two rows at once: taps[j] holds tap j of tiles
// 0-3 of row `a` (a[u * kTile + j]) in lanes 0-3 and of row `b` in lanes
// 4-7. A group of at most four tiles transforms two rows per vector, half
// the arithmetic of one row per vector.
template <int kTile>
inline __attribute__((always_inline)) void PairTaps4(const float16_t* a, const float16_t* b,
                                                     float16x8_t* taps) {
  if constexpr (kTile == 2) {
    // Four tiles of 2 are 8 halves: even lanes tap 0, odd lanes tap 1.
#pragma GCC unroll 2
    for (int j = 0; j < 4; j += 2) {
      const float16x8_t x = vld1q_f16(a + j), y = vld1q_f16(b + j);
      taps[j] = vuzp1q_f16(x, y);
      taps[j + 1] = vuzp2q_f16(x, y);
    }
  } else if constexpr (kTile == 4) {
    const float16x4x4_t x = vld4_f16(a), y = vld4_f16(b);
    const float16x4x4_t x4 = vld4_f16(a + 4), y4 = vld4_f16(b + 4);
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) taps[j] = vcombine_f16(x.val[j], y.val[j]);
    taps[4] = vcombine_f16(x4.val[0], y4.val[0]);
    taps[5] = vcombine_f16(x4.val[1], y4.val[1]);
  } else {
    // As Taps8, with the second load from the other row; taps 6 and 7
    // are taps 0 and 1 of loads one tile on.
    const float16x8x3_t x = vld3q_f16(a), y = vld3q_f16(b);
    const float16x8x3_t x6 = vld3q_f16(a + 6), y6 = vld3q_f16(b + 6);
#pragma GCC unroll 3
    for (int j = 0; j < 3; ++j) {
      taps[j] = vuzp1q_f16(x.val[j], y.val[j]);
      taps[j + 3] = vuzp2q_f16(x.val[j], y.val[j]);
    }
    taps[6] = vuzp1q_f16(x6.val[0], y6.val[0]);
    taps[7] = vuzp1q_f16(x6.val[1], y6.val[1]);
  }
}

// Halves that rows in the padding read in place: the widest chunk span.
alignas(16) constexpr float16_t kZeroHalves[7 * 16] = {};

// The vqtbl1q_u8 byte indices that move lane k + d of a loaded vector to
// lane k, and zero the lanes whose k + d falls outside [0, 8): d is the
// vector's first column less the column it was loaded from (clamped to
// [-8, 8], all zero past that). Lane k + d's bytes are 2(k + d) and
// 2(k + d) + 1; for k + d in [-8, 15] each is at least 16 (zero in a
// table lookup) exactly when k + d is outside [0, 8).
inline __attribute__((always_inline)) uint8x16_t EdgeIndex(int64_t d) {
  d = WgMin(WgMax(d, -8), 8);
  const int16x8_t lane_bytes = {256, 770, 1284, 1798, 2312, 2826, 3340, 3854};  // 514 k + 256
  return vreinterpretq_u8_s16(vaddq_s16(lane_bytes, vdupq_n_s16(static_cast<int16_t>(d * 514))));
}

// The same for rows of 4 to 7 halves, loaded as their first four and last
// four (lanes 0-3 and 4-7): column c + k is lane c + k of that vector
// below 4 and lane c + k + 8 - in_w from 4 on.
inline __attribute__((always_inline)) uint8x16_t NarrowEdgeIndex(int64_t c, int64_t in_w) {
  c = WgMin(WgMax(c, -8), 8);  // past 8 columns out every lane is zero
  const int16x8_t lane = {0, 1, 2, 3, 4, 5, 6, 7};
  const int16x8_t column = vaddq_s16(lane, vdupq_n_s16(static_cast<int16_t>(c)));
  const int16x8_t at = vbslq_s16(vcltq_s16(column, vdupq_n_s16(4)), column,
                                 vaddq_s16(column, vdupq_n_s16(static_cast<int16_t>(8 - in_w))));
  const uint16x8_t inside =
      vandq_u16(vcgezq_s16(column), vcltq_s16(column, vdupq_n_s16(static_cast<int16_t>(in_w))));
  const int16x8_t bytes = vmlaq_n_s16(vdupq_n_s16(256), at, 514);
  return vreinterpretq_u8_u16(vornq_u16(vreinterpretq_u16_s16(bytes), inside));
}

// EdgeLoads for rows of 4 to 7 halves.
template <int kAlpha>
inline __attribute__((always_inline)) void NarrowEdgeLoads(const float16_t* const* rows, int64_t c,
                                                           int64_t in_w, float16x8_t* x) {
  const uint8x16_t index = NarrowEdgeIndex(c, in_w);
#pragma GCC unroll 8
  for (int i = 0; i < kAlpha; ++i) {
    x[i] = vdupq_n_f16(0);
    if (rows[i] == nullptr) continue;
    const float16x8_t ends = vcombine_f16(vld1_f16(rows[i]), vld1_f16(rows[i] + in_w - 4));
    x[i] = vreinterpretq_f16_u8(vqtbl1q_u8(vreinterpretq_u8_f16(ends), index));
  }
}

// The eight columns from c of each of the alpha rows (null: in the
// padding), zero outside [0, in_w), for a vector that is not inside the
// image: from the nearest whole vector inside (rows of at least 8) or from
// the row's first and last four, shifted by a table lookup that also
// zeroes the padding lanes. kNarrow: rows of 4 to 7 halves.
template <int kAlpha, bool kNarrow>
inline __attribute__((always_inline)) void EdgeLoads(const float16_t* const* rows, int64_t c,
                                                     int64_t in_w, float16x8_t* x) {
  if constexpr (kNarrow) {
    return NarrowEdgeLoads<kAlpha>(rows, c, in_w, x);
  } else if constexpr (kAlpha == 4) {
    if (in_w < 8) return NarrowEdgeLoads<kAlpha>(rows, c, in_w, x);
  }
  const int64_t p = WgMin(WgMax(c, 0), in_w - 8);
  const uint8x16_t index = EdgeIndex(c - p);
#pragma GCC unroll 8
  for (int i = 0; i < kAlpha; ++i) {
    x[i] =
        rows[i] == nullptr
            ? vdupq_n_f16(0)
            : vreinterpretq_f16_u8(vqtbl1q_u8(vreinterpretq_u8_f16(vld1q_f16(rows[i] + p)), index));
  }
}

// The row pass of eight tiles: row r of their column-transformed input at
// src + r * pitch, V to dst on, whole vectors (kHere 0) or across a panel's
// end (StoreAcross<kHere>).
template <int kTile, int kHere>
inline __attribute__((always_inline)) void RowPass(const float16_t* src, int64_t pitch,
                                                   float16_t* dst, int64_t position_stride,
                                                   int64_t panel_stride, int64_t nr, bool spill) {
  constexpr int kAlpha = kTile + 2;
  for (int r = 0; r < kAlpha; ++r) {
    float16x8_t taps[kAlpha], y[kAlpha];
    Taps8<kTile>(src + r * pitch, taps);
    Input1D<kTile>(taps, y);
#pragma GCC unroll 8
    for (int c = 0; c < kAlpha; ++c) {
      if constexpr (kHere == 0) {
        vst1q_f16(dst, y[c]);
      } else {
        StoreAcross<kHere>(dst, panel_stride, nr, spill, y[c]);
      }
      dst += position_stride;
    }
  }
}

// RowPass for a group crossing a panel's end, `here` (1 to 7) of its lanes
// in this panel. Out of line: its seven forms would otherwise keep their
// addresses live through the whole run.
template <int kTile>
__attribute__((noinline)) void RowPassAcross(int here, const float16_t* src, int64_t pitch,
                                             float16_t* dst, int64_t position_stride,
                                             int64_t panel_stride, int64_t nr, bool spill) {
  switch (here) {
    case 1:
      return RowPass<kTile, 1>(src, pitch, dst, position_stride, panel_stride, nr, spill);
    case 2:
      return RowPass<kTile, 2>(src, pitch, dst, position_stride, panel_stride, nr, spill);
    case 3:
      return RowPass<kTile, 3>(src, pitch, dst, position_stride, panel_stride, nr, spill);
    case 4:
      return RowPass<kTile, 4>(src, pitch, dst, position_stride, panel_stride, nr, spill);
    case 5:
      return RowPass<kTile, 5>(src, pitch, dst, position_stride, panel_stride, nr, spill);
    case 6:
      return RowPass<kTile, 6>(src, pitch, dst, position_stride, panel_stride, nr, spill);
    default:
      return RowPass<kTile, 7>(src, pitch, dst, position_stride, panel_stride, nr, spill);
  }
}

// `in_rows` are the alpha input rows (run.rows, or rows of halves).
// kNarrow: F(4x4) or F(6x6) on half rows of 4 to 7 (ResNet-18's 7x7 maps),
// read in place as their two ends, in instances of their own: inlined in
// the wide rows' runs that code cost them registers.
template <int kTile, typename T, bool kNarrow = false>
MACE_WG_NO_LIBC_CALLS void InputRun(const WinogradInputRun& run, const T* const* in_rows,
                                    uint16_t* out_bits) {
  constexpr int kAlpha = kTile + 2;
  constexpr int kChunk = 16;
  // A chunk's tiles span 16 * kTile + 2 input columns, read in vectors of 8.
  constexpr int kSpan = (kTile + 1) * kChunk;
  alignas(16) T staged[kAlpha][kSpan];
  alignas(16) float16_t rows[kAlpha][kSpan];
  float16_t* const out = reinterpret_cast<float16_t*>(out_bits);
  // The run's fields in locals: NEON stores may alias anything.
  const int64_t nr = run.nr, position_stride = run.position_stride;
  const int64_t panel_stride = run.panel_stride;
  for (int64_t l0 = 0; l0 < run.lanes; l0 += kChunk) {
    const int64_t col0 = run.col0 + l0 * kTile;
    const int64_t chunk_lanes = WgMin(run.lanes - l0, kChunk);
    // The run's columns in whole vectors of 8. The row pass reads whole
    // groups of 8 tiles: the columns of a group's tiles past the run are
    // left as they are in `rows` (garbage lanes the caller overwrites), so
    // a run of 10 tiles of 6 transforms 8 column vectors, not 13.
    const int64_t span = (chunk_lanes * kTile + 2 + 7) & ~int64_t{7};
    const int64_t in_w = run.in_w;
    // Halves are read in place: vectors inside the image straight from
    // the row (or from zeros for a row in the padding), the ones crossing
    // its left or right edge by EdgeLoads: rows of at least 8, or of 4
    // for F(2x2) and the kNarrow instances. Floats, and rows of fewer
    // than 4 halves, are staged.
    constexpr bool kHalves = std::is_same_v<T, float16_t>;
    const bool in_place = kHalves && (kNarrow || in_w >= (kTile == 2 ? 4 : 8));
    bool inside = col0 >= 0 && col0 + span <= in_w;
    for (int i = 0; i < kAlpha; ++i) inside = inside && in_rows[i] != nullptr;
    const T* source[kAlpha];
#pragma GCC unroll 8
    for (int i = 0; i < kAlpha; ++i) {
      if (inside) {
        source[i] = in_rows[i] + col0;
      } else if constexpr (kHalves) {
        if (in_place) {
          source[i] = in_rows[i] != nullptr ? in_rows[i] + col0 : kZeroHalves;
        } else {
          StageHalfRow(in_rows[i], in_w, col0, chunk_lanes * kTile + 2, span, staged[i]);
          source[i] = staged[i];
        }
      } else {
        WgStageRow(in_rows[i], in_w, col0, chunk_lanes * kTile + 2, span, staged[i]);
        source[i] = staged[i];
      }
    }
    // Down the columns (B^T d), eight columns at a time, in half precision.
    for (int64_t v = 0; v < span; v += 8) {
      float16x8_t x[kAlpha], y[kAlpha];
      const int64_t c = col0 + v;
      if (in_place && !inside && (c < 0 || c + 8 > in_w)) {
        if constexpr (kHalves) EdgeLoads<kAlpha, kNarrow>(in_rows, c, in_w, x);
      } else {
#pragma GCC unroll 8
        for (int i = 0; i < kAlpha; ++i) x[i] = LoadHalves(source[i] + v);
      }
      Input1D<kTile>(x, y);
#pragma GCC unroll 8
      for (int i = 0; i < kAlpha; ++i) vst1q_f16(rows[i] + v, y[i]);
    }
    // Along each row (. B), eight tiles at a time, into the B panels.
    int64_t panel = (run.first_lane + l0) / nr, offset = (run.first_lane + l0) % nr;
    for (int64_t u0 = 0; u0 < chunk_lanes; u0 += 8) {
      const int64_t count = WgMin(chunk_lanes - u0, 8);
      float16_t* dst = out + panel * panel_stride + offset;
      const bool spill = count > nr - offset;
      if (count <= 4 && offset + 4 <= nr) {
        // Rows r and r + 1 share a vector: each half stores four lanes.
        const int64_t row_stride = kAlpha * position_stride;
#pragma GCC unroll 4
        for (int r = 0; r < kAlpha; r += 2) {
          float16x8_t taps[kAlpha], y[kAlpha];
          PairTaps4<kTile>(rows[r] + u0 * kTile, rows[r + 1] + u0 * kTile, taps);
          Input1D<kTile>(taps, y);
#pragma GCC unroll 8
          for (int c = 0; c < kAlpha; ++c) {
            vst1_f16(dst, vget_low_f16(y[c]));
            vst1_f16(dst + row_stride, vget_high_f16(y[c]));
            dst += position_stride;
          }
          dst += row_stride;
        }
        continue;  // a group of at most four tiles is the chunk's last
      }
      if (offset + 8 <= nr) {
        RowPass<kTile, 0>(rows[0] + u0 * kTile, kSpan, dst, position_stride, panel_stride, nr,
                          spill);
      } else {
        RowPassAcross<kTile>(static_cast<int>(nr - offset), rows[0] + u0 * kTile, kSpan, dst,
                             position_stride, panel_stride, nr, spill);
      }
      offset += 8;
      if (offset >= nr) {
        offset -= nr;
        ++panel;
      }
    }
  }
}

// `width` (at least 1) halves from src to dst: whole vectors, then the
// last part as one vector, or two half vectors or pairs, that ends at the
// segment's end and overlaps what is already stored (the same values). The
// value-by-value tail of 27-, 13- and 7-wide rows cost more than the rest.
inline __attribute__((always_inline)) void CopyHalfSegment(const float16_t* src, int64_t width,
                                                           float16_t* dst) {
  if (width >= 8) {
    int64_t x = 0;
    for (; x + 8 < width; x += 8) vst1q_f16(dst + x, vld1q_f16(src + x));
    vst1q_f16(dst + width - 8, vld1q_f16(src + width - 8));
  } else if (width >= 4) {
    vst1_f16(dst, vld1_f16(src));
    vst1_f16(dst + width - 4, vld1_f16(src + width - 4));
  } else if (width >= 2) {
    uint32_t front, back;
    __builtin_memcpy(&front, src, 4);
    __builtin_memcpy(&back, src + width - 2, 4);
    __builtin_memcpy(dst, &front, 4);
    __builtin_memcpy(dst + width - 2, &back, 4);
  } else {
    dst[0] = src[0];
  }
}

// Lanes of `line` (as in WgStoreSegments) to a plane of halves.
template <int kTile>
MACE_WG_NO_LIBC_CALLS void StoreHalfSegments(const WinogradOutputRun& run, float16_t* plane,
                                             int64_t row, int64_t col, int64_t lanes,
                                             const float16_t* line, int64_t pitch) {
  for (int64_t u = 0; u < lanes;) {
    const int64_t count = WgMin(lanes - u, run.tiles_w - col);
    const int64_t x0 = col * kTile;
    const int64_t width = WgMin(count * kTile, run.out_w - x0);
    for (int i = 0; i < kTile && row * kTile + i < run.out_h; ++i) {
      const float16_t* src = line + i * pitch + u * kTile;
      float16_t* dst = plane + (row * kTile + i) * run.out_w + x0;
      CopyHalfSegment(src, width, dst);
    }
    u += count;
    WgAdvanceTile(run.tiles_w, count, &row, &col);
  }
}

// `m` is M of halves, or of floats rounded to half as they are loaded;
// `plane` is run.plane, or a plane of halves.
template <int kTile, HalfAct kAct, typename TM, typename T>
MACE_WG_NO_LIBC_CALLS void OutputRun(const WinogradOutputRun& run_arg, const TM* m, T* plane) {
  // A copy whose address does not escape: the stores to the output (NEON
  // stores may alias anything) cannot change it, so its fields are read once.
  const WinogradOutputRun run = run_arg;
  constexpr int kAlpha = kTile + 2;
  alignas(16) T line[kTile][kLanes * kTile];
  // Row 1 and column 1 of A^T (the point 1) are all ones, so the bias
  // added to M[1][1] reaches every output.
  const float16x8_t bias = vdupq_n_f16(static_cast<float16_t>(run.bias));
  const float16x8_t lo = vdupq_n_f16(static_cast<float16_t>(run.epilogue.lo));
  int64_t row = run.row0, col = run.col0;  // the group's first tile
  for (int64_t l0 = 0; l0 < run.lanes; l0 += kLanes) {
    // Down the columns first: down[i][c] = sum_r A^T[i][r] M[r][c].
    float16x8_t down[kTile][kAlpha];
#pragma GCC unroll 8
    for (int c = 0; c < kAlpha; ++c) {
      float16x8_t x[kAlpha], y[kTile];
#pragma GCC unroll 8
      for (int r = 0; r < kAlpha; ++r) {
        x[r] = LoadHalves(m + (r * kAlpha + c) * run.in_pitch + l0);
      }
      if (c == 1) x[1] = x[1] + bias;
      WgOutput1D<kTile>(x, y);
#pragma GCC unroll 8
      for (int i = 0; i < kTile; ++i) down[i][c] = y[i];
    }
    const int64_t lanes = WgMin(run.lanes - l0, kLanes);
    // Straight out when the group is in one tile row and inside the image,
    // else through `line`, segment by segment.
    const bool direct =
        lanes == kLanes && col + kLanes <= run.tiles_w && (col + kLanes) * kTile <= run.out_w;
#pragma GCC unroll 8
    for (int i = 0; i < kTile; ++i) {
      const int64_t oh = row * kTile + i;
      if (direct && oh >= run.out_h) break;
      float16x8_t y[kTile];
      WgOutput1D<kTile>(down[i], y);
      if constexpr (kAct == kHalfRelu) {
#pragma GCC unroll 8
        for (int j = 0; j < kTile; ++j) y[j] = vmaxq_f16(y[j], lo);
      }
      StoreRow<kTile, kAct>(y, direct ? plane + oh * run.out_w + col * kTile : line[i],
                            run.epilogue);
    }
    if (!direct) {
      if constexpr (std::is_same_v<T, float>) {
        WgStoreSegments<kTile>(run, row, col, lanes, line[0], kLanes * kTile, WgCopySegment);
      } else {
        StoreHalfSegments<kTile>(run, plane, row, col, lanes, line[0], kLanes * kTile);
      }
    }
    WgAdvanceTile(run.tiles_w, lanes, &row, &col);
  }
}

template <int kTile, typename TM, typename T>
void OutputRun(const WinogradOutputRun& run, const TM* m, T* plane) {
  const TileEpilogue& e = run.epilogue;
  if (e.activation == kTileActNone) return OutputRun<kTile, kHalfNone>(run, m, plane);
  // vmaxq_f16 returns NaN for a NaN lane, as the float epilogue does.
  if (e.activation == kTileActClamp && e.hi == __builtin_inff() &&
      static_cast<float>(static_cast<float16_t>(e.lo)) == e.lo) {
    return OutputRun<kTile, kHalfRelu>(run, m, plane);
  }
  OutputRun<kTile, kFloatAct>(run, m, plane);
}

template <typename T>
void Input(const WinogradInputRun& run, const T* const* rows, uint16_t* out) {
  if constexpr (std::is_same_v<T, float16_t>) {
    if (run.tile != 2 && run.in_w >= 4 && run.in_w < 8) {
      return run.tile == 4 ? InputRun<4, T, true>(run, rows, out)
                           : InputRun<6, T, true>(run, rows, out);
    }
  }
  if (run.tile == 2) {
    InputRun<2>(run, rows, out);
  } else if (run.tile == 4) {
    InputRun<4>(run, rows, out);
  } else {
    InputRun<6>(run, rows, out);
  }
}

template <typename TM, typename T>
void Output(const WinogradOutputRun& run, const TM* m, T* plane) {
  if (run.tile == 2) {
    OutputRun<2>(run, m, plane);
  } else if (run.tile == 4) {
    OutputRun<4>(run, m, plane);
  } else {
    OutputRun<6>(run, m, plane);
  }
}

}  // namespace

void Fp16WinogradInput(const WinogradInputRun& run, uint16_t* out) { Input(run, run.rows, out); }

void Fp16WinogradOutput(const WinogradOutputRun& run, const uint16_t* m) {
  Output(run, reinterpret_cast<const float16_t*>(m), run.plane);
}

void Fp16WinogradHalfInput(const WinogradInputRun& run, const uint16_t* const* rows,
                           uint16_t* out) {
  Input(run, reinterpret_cast<const float16_t* const*>(rows), out);
}

void Fp16WinogradHalfOutput(const WinogradOutputRun& run, const uint16_t* m, uint16_t* plane) {
  Output(run, reinterpret_cast<const float16_t*>(m), reinterpret_cast<float16_t*>(plane));
}

void Fp16WinogradHalfOutputFromFloats(const WinogradOutputRun& run, uint16_t* plane) {
  Output(run, run.in, reinterpret_cast<float16_t*>(plane));
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
