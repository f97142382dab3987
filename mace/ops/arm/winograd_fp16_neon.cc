// Winograd output transform on half-precision products (FEAT_FP16: fadd
// and fmla on .8h), eight tiles at a time. Built with -march=armv8.2-a+fp16
// in the fp16 kernel library and reached only through the fp16 kernel
// table, after the HWCAP check.
#include "mace/ops/arm/winograd_fp16_neon.h"

#include <arm_neon.h>

#include "mace/ops/arm/neon_epilogue.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

#include "mace/ops/cpu/winograd_common.inc"

constexpr int kLanes = 8;

// The activation after the transform: a ReLU (clamp below at a half value,
// no upper bound) in half precision, anything else in single precision.
enum HalfAct { kHalfNone, kHalfRelu, kFloatAct };

// dst[x] = src[x] for x < count: a segment of an output row.
inline void CopySegment(const float* src, int64_t count, float* dst) {
  int64_t x = 0;
  for (; x + 4 <= count; x += 4) vst1q_f32(dst + x, vld1q_f32(src + x));
  for (; x < count; ++x) dst[x] = src[x];
}

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
    vst2q_f32(dst, (float32x4x2_t){{lo[0], lo[1]}});
    vst2q_f32(dst + 8, (float32x4x2_t){{hi[0], hi[1]}});
  } else if constexpr (kTile == 4) {
    vst4q_f32(dst, (float32x4x4_t){{lo[0], lo[1], lo[2], lo[3]}});
    vst4q_f32(dst + 16, (float32x4x4_t){{hi[0], hi[1], hi[2], hi[3]}});
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

template <int kTile, HalfAct kAct>
void OutputRun(const WinogradOutputRun& run_arg, const uint16_t* m_bits) {
  // A copy whose address does not escape: the stores to the output (NEON
  // stores may alias anything) cannot change it, so its fields are read once.
  const WinogradOutputRun run = run_arg;
  const float16_t* m = reinterpret_cast<const float16_t*>(m_bits);
  constexpr int kAlpha = kTile + 2;
  alignas(16) float line[kTile][kLanes * kTile];
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
      for (int r = 0; r < kAlpha; ++r) x[r] = vld1q_f16(m + (r * kAlpha + c) * run.in_pitch + l0);
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
      StoreRow<kTile, kAct>(y, direct ? run.plane + oh * run.out_w + col * kTile : line[i],
                            run.epilogue);
    }
    if (!direct) {
      WgStoreSegments<kTile>(run, row, col, lanes, line[0], kLanes * kTile, CopySegment);
    }
    WgAdvanceTile(run.tiles_w, lanes, &row, &col);
  }
}

template <int kTile>
void OutputRun(const WinogradOutputRun& run, const uint16_t* m) {
  const TileEpilogue& e = run.epilogue;
  if (e.activation == kTileActNone) return OutputRun<kTile, kHalfNone>(run, m);
  // vmaxq_f16 returns NaN for a NaN lane, as the float epilogue does.
  if (e.activation == kTileActClamp && e.hi == __builtin_inff() &&
      static_cast<float>(static_cast<float16_t>(e.lo)) == e.lo) {
    return OutputRun<kTile, kHalfRelu>(run, m);
  }
  OutputRun<kTile, kFloatAct>(run, m);
}

}  // namespace

void Fp16WinogradOutput(const WinogradOutputRun& run, const uint16_t* m) {
  if (run.tile == 2) {
    OutputRun<2>(run, m);
  } else if (run.tile == 4) {
    OutputRun<4>(run, m);
  } else {
    OutputRun<6>(run, m);
  }
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
