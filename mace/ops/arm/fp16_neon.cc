// Half-precision NEON kernels (FEAT_FP16: fmla on .8h). Built with
// -march=armv8.2-a+fp16 and called only after the HWCAP check, so nothing
// here may be inlined into baseline code: every helper is static.
#include <arm_neon.h>

#include <algorithm>

#include "mace/ops/arm/fp16_neon_kernels.h"
#include "mace/ops/arm/neon_epilogue.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

// Partial sums of the matrix-vector product stay in half precision for at
// most this many steps before they are added in single precision.
constexpr int64_t kDotChunk = 64;

// Adds one half vector (8 columns) to dst in single precision, or stores it,
// with the epilogue on the last block.
static inline void StoreHalf(float16x8_t v, float* dst, bool accumulate, bool last,
                             float32x4_t bias, const TileEpilogue& epilogue) {
  float32x4_t lo = vcvt_f32_f16(vget_low_f16(v));
  float32x4_t hi = vcvt_high_f32_f16(v);
  if (accumulate) {
    lo = vaddq_f32(lo, vld1q_f32(dst));
    hi = vaddq_f32(hi, vld1q_f32(dst + 4));
  }
  if (last) {
    lo = NeonActivate(vaddq_f32(lo, bias), epilogue);
    hi = NeonActivate(vaddq_f32(hi, bias), epilogue);
  }
  vst1q_f32(dst, lo);
  vst1q_f32(dst + 4, hi);
}

static inline void StoreRow(float16x8_t v0, float16x8_t v1, float16x8_t v2, float* dst,
                            const float* row_bias, int row, const TileEpilogue& epilogue) {
  const float32x4_t bias = vdupq_n_f32(row_bias != nullptr ? row_bias[row] : 0.f);
  StoreHalf(v0, dst, epilogue.accumulate, epilogue.last, bias, epilogue);
  StoreHalf(v1, dst + 8, epilogue.accumulate, epilogue.last, bias, epilogue);
  StoreHalf(v2, dst + 16, epilogue.accumulate, epilogue.last, bias, epilogue);
}

// The full 8 x 24 tile into `c` (row stride ldc); row_bias has 8 values.
static void FullTile(int64_t kc, const float16_t* a, const float16_t* b, float* c, int64_t ldc,
                     const float* row_bias, const TileEpilogue& epilogue) {
  const float16x8_t zero = vdupq_n_f16(0);
  float16x8_t c00 = zero, c01 = zero, c02 = zero, c10 = zero, c11 = zero, c12 = zero;
  float16x8_t c20 = zero, c21 = zero, c22 = zero, c30 = zero, c31 = zero, c32 = zero;
  float16x8_t c40 = zero, c41 = zero, c42 = zero, c50 = zero, c51 = zero, c52 = zero;
  float16x8_t c60 = zero, c61 = zero, c62 = zero, c70 = zero, c71 = zero, c72 = zero;
// One reduction step: 24 by-element fmla, in two statements of 12 (an
// asm takes at most 30 operands). Written as assembly because GCC
// turns a lane fmla whose lane feeds three of them into a dup and three
// vector fmla, and then spills accumulators. The A vector must sit in
// v0-v15 (the "x" constraint), as the .h by-element form requires.
#define MACE_FP16_STEP(offset)                                \
  {                                                           \
    const float16x8_t av = vld1q_f16(a + (offset) * 8);       \
    const float16x8_t b0 = vld1q_f16(b + (offset) * 24);      \
    const float16x8_t b1 = vld1q_f16(b + (offset) * 24 + 8);  \
    const float16x8_t b2 = vld1q_f16(b + (offset) * 24 + 16); \
    asm(                                                      \
      "fmla %[c00].8h, %[b0].8h, %[a].h[0]\n"             \
      "fmla %[c01].8h, %[b1].8h, %[a].h[0]\n"             \
      "fmla %[c02].8h, %[b2].8h, %[a].h[0]\n"             \
      "fmla %[c10].8h, %[b0].8h, %[a].h[1]\n"             \
      "fmla %[c11].8h, %[b1].8h, %[a].h[1]\n"             \
      "fmla %[c12].8h, %[b2].8h, %[a].h[1]\n"             \
      "fmla %[c20].8h, %[b0].8h, %[a].h[2]\n"             \
      "fmla %[c21].8h, %[b1].8h, %[a].h[2]\n"             \
      "fmla %[c22].8h, %[b2].8h, %[a].h[2]\n"             \
      "fmla %[c30].8h, %[b0].8h, %[a].h[3]\n"             \
      "fmla %[c31].8h, %[b1].8h, %[a].h[3]\n"             \
      "fmla %[c32].8h, %[b2].8h, %[a].h[3]\n"             \
      : [c00] "+w"(c00), [c01] "+w"(c01), [c02] "+w"(c02),\
        [c10] "+w"(c10), [c11] "+w"(c11), [c12] "+w"(c12),\
        [c20] "+w"(c20), [c21] "+w"(c21), [c22] "+w"(c22),\
        [c30] "+w"(c30), [c31] "+w"(c31), [c32] "+w"(c32)\
      : [a] "x"(av), [b0] "w"(b0), [b1] "w"(b1), [b2] "w"(b2));\
    asm(                                                      \
      "fmla %[c40].8h, %[b0].8h, %[a].h[4]\n"             \
      "fmla %[c41].8h, %[b1].8h, %[a].h[4]\n"             \
      "fmla %[c42].8h, %[b2].8h, %[a].h[4]\n"             \
      "fmla %[c50].8h, %[b0].8h, %[a].h[5]\n"             \
      "fmla %[c51].8h, %[b1].8h, %[a].h[5]\n"             \
      "fmla %[c52].8h, %[b2].8h, %[a].h[5]\n"             \
      "fmla %[c60].8h, %[b0].8h, %[a].h[6]\n"             \
      "fmla %[c61].8h, %[b1].8h, %[a].h[6]\n"             \
      "fmla %[c62].8h, %[b2].8h, %[a].h[6]\n"             \
      "fmla %[c70].8h, %[b0].8h, %[a].h[7]\n"             \
      "fmla %[c71].8h, %[b1].8h, %[a].h[7]\n"             \
      "fmla %[c72].8h, %[b2].8h, %[a].h[7]\n"             \
      : [c40] "+w"(c40), [c41] "+w"(c41), [c42] "+w"(c42),\
        [c50] "+w"(c50), [c51] "+w"(c51), [c52] "+w"(c52),\
        [c60] "+w"(c60), [c61] "+w"(c61), [c62] "+w"(c62),\
        [c70] "+w"(c70), [c71] "+w"(c71), [c72] "+w"(c72)\
      : [a] "x"(av), [b0] "w"(b0), [b1] "w"(b1), [b2] "w"(b2));\
  }
  int64_t k = 0;
  for (; k + 2 <= kc; k += 2, a += 16, b += 48) {
    MACE_FP16_STEP(0)
    MACE_FP16_STEP(1)
  }
  if (k < kc) MACE_FP16_STEP(0)
#undef MACE_FP16_STEP
  StoreRow(c00, c01, c02, c, row_bias, 0, epilogue);
  StoreRow(c10, c11, c12, c + ldc, row_bias, 1, epilogue);
  StoreRow(c20, c21, c22, c + 2 * ldc, row_bias, 2, epilogue);
  StoreRow(c30, c31, c32, c + 3 * ldc, row_bias, 3, epilogue);
  StoreRow(c40, c41, c42, c + 4 * ldc, row_bias, 4, epilogue);
  StoreRow(c50, c51, c52, c + 5 * ldc, row_bias, 5, epilogue);
  StoreRow(c60, c61, c62, c + 6 * ldc, row_bias, 6, epilogue);
  StoreRow(c70, c71, c72, c + 7 * ldc, row_bias, 7, epilogue);
}

// A band of a 3x3 depthwise plane, `in` holding half values (in_pitch of
// them per row, 8 * ceil(out_w / 8) * stride + 2 readable), summed in half
// precision; bias and activation in single precision.
template <int kStride>
static void DepthwiseBand3x3(const DepthwiseBand& band) {
  // Locals: the output stores could alias the band's fields as far as the
  // compiler knows, and reloading them cost a third of the loop.
  const float16_t* in = reinterpret_cast<const float16_t*>(band.in);
  const int64_t pitch = band.in_pitch, out_w = band.out_w, rows = band.rows;
  const int64_t row_step = band.stride_h * pitch;
  float* out = band.out;
  TileEpilogue epilogue;
  epilogue.activation = band.epilogue.activation;
  epilogue.lo = band.epilogue.lo;
  epilogue.hi = band.epilogue.hi;
  float16x8_t taps[9];
  for (int t = 0; t < 9; ++t) taps[t] = vdupq_n_f16(static_cast<float16_t>(band.taps[t]));
  const float32x4_t bias = vdupq_n_f32(band.bias);
  for (int64_t r = 0; r < rows; ++r, out += out_w) {
    const float16_t* row0 = in + r * row_step;
    const float16_t* row1 = row0 + pitch;
    const float16_t* row2 = row1 + pitch;
    for (int64_t j = 0; j < out_w; j += 8) {
      const int64_t x = j * kStride;
      float16x8_t acc;
      if (kStride == 1) {
        acc = vmulq_f16(vld1q_f16(row0 + x), taps[0]);
        acc = vfmaq_f16(acc, vld1q_f16(row0 + x + 1), taps[1]);
        acc = vfmaq_f16(acc, vld1q_f16(row0 + x + 2), taps[2]);
        acc = vfmaq_f16(acc, vld1q_f16(row1 + x), taps[3]);
        acc = vfmaq_f16(acc, vld1q_f16(row1 + x + 1), taps[4]);
        acc = vfmaq_f16(acc, vld1q_f16(row1 + x + 2), taps[5]);
        acc = vfmaq_f16(acc, vld1q_f16(row2 + x), taps[6]);
        acc = vfmaq_f16(acc, vld1q_f16(row2 + x + 1), taps[7]);
        acc = vfmaq_f16(acc, vld1q_f16(row2 + x + 2), taps[8]);
      } else {
        const float16x8x2_t p0 = vld2q_f16(row0 + x), p1 = vld2q_f16(row1 + x),
                            p2 = vld2q_f16(row2 + x);
        acc = vmulq_f16(p0.val[0], taps[0]);
        acc = vfmaq_f16(acc, p0.val[1], taps[1]);
        acc = vfmaq_f16(acc, vld2q_f16(row0 + x + 2).val[0], taps[2]);
        acc = vfmaq_f16(acc, p1.val[0], taps[3]);
        acc = vfmaq_f16(acc, p1.val[1], taps[4]);
        acc = vfmaq_f16(acc, vld2q_f16(row1 + x + 2).val[0], taps[5]);
        acc = vfmaq_f16(acc, p2.val[0], taps[6]);
        acc = vfmaq_f16(acc, p2.val[1], taps[7]);
        acc = vfmaq_f16(acc, vld2q_f16(row2 + x + 2).val[0], taps[8]);
      }
      const float32x4_t lo =
          NeonActivate(vaddq_f32(vcvt_f32_f16(vget_low_f16(acc)), bias), epilogue);
      const float32x4_t hi = NeonActivate(vaddq_f32(vcvt_high_f32_f16(acc), bias), epilogue);
      if (j + 8 <= out_w) {
        vst1q_f32(out + j, lo);
        vst1q_f32(out + j + 4, hi);
      } else {
        float tail[8];
        vst1q_f32(tail, lo);
        vst1q_f32(tail + 4, hi);
        std::copy(tail, tail + (out_w - j), out + j);
      }
    }
  }
}

}  // namespace

void Fp16Depthwise3x3S1(const DepthwiseBand& band) { DepthwiseBand3x3<1>(band); }
void Fp16Depthwise3x3S2(const DepthwiseBand& band) { DepthwiseBand3x3<2>(band); }

void Fp16FromFloat(const float* src, int64_t count, uint16_t* dst_bits) {
  float16_t* dst = reinterpret_cast<float16_t*>(dst_bits);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const float16x4_t lo = vcvt_f16_f32(vld1q_f32(src + i));
    vst1q_f16(dst + i, vcvt_high_f16_f32(lo, vld1q_f32(src + i + 4)));
  }
  for (; i < count; ++i) dst[i] = static_cast<float16_t>(src[i]);
}

void Fp16GemmTile(int64_t kc, const uint16_t* a_bits, const uint16_t* b_bits, float* c,
                  int64_t ldc, int rows, int cols, const TileEpilogue& epilogue) {
  const float16_t* a = reinterpret_cast<const float16_t*>(a_bits);
  const float16_t* b = reinterpret_cast<const float16_t*>(b_bits);
  if (rows == kFp16GemmMr && cols == kFp16GemmNr) {
    FullTile(kc, a, b, c, ldc, epilogue.row_bias, epilogue);
    return;
  }
  // A tile that sticks out of C: computed into a staging tile (holding C's
  // values when accumulating), whose inside part is copied back.
  float staging[kFp16GemmMr * kFp16GemmNr];
  float bias[kFp16GemmMr] = {};
  for (int r = 0; r < rows; ++r) {
    if (epilogue.row_bias != nullptr) bias[r] = epilogue.row_bias[r];
    if (epilogue.accumulate) std::copy(c + r * ldc, c + r * ldc + cols, staging + r * kFp16GemmNr);
  }
  FullTile(kc, a, b, staging, kFp16GemmNr, bias, epilogue);
  for (int r = 0; r < rows; ++r) {
    std::copy(staging + r * kFp16GemmNr, staging + r * kFp16GemmNr + cols, c + r * ldc);
  }
}

void Fp16PanelDot(const uint16_t* panel_bits, int64_t depth, const uint16_t* x_bits, float* out) {
  const float16_t* panel = reinterpret_cast<const float16_t*>(panel_bits);
  const float16_t* x = reinterpret_cast<const float16_t*>(x_bits);
  float32x4_t lo = vdupq_n_f32(0.f), hi = vdupq_n_f32(0.f);
  for (int64_t d0 = 0; d0 < depth; d0 += kDotChunk) {
    const int64_t end = std::min(depth, d0 + kDotChunk);
    float16x8_t s0 = vdupq_n_f16(0), s1 = vdupq_n_f16(0);
    int64_t d = d0;
    for (; d + 8 <= end; d += 8) {
      const float16x8_t xv = vld1q_f16(x + d);
      const float16_t* p = panel + d * 8;
      s0 = vfmaq_laneq_f16(s0, vld1q_f16(p), xv, 0);
      s1 = vfmaq_laneq_f16(s1, vld1q_f16(p + 8), xv, 1);
      s0 = vfmaq_laneq_f16(s0, vld1q_f16(p + 16), xv, 2);
      s1 = vfmaq_laneq_f16(s1, vld1q_f16(p + 24), xv, 3);
      s0 = vfmaq_laneq_f16(s0, vld1q_f16(p + 32), xv, 4);
      s1 = vfmaq_laneq_f16(s1, vld1q_f16(p + 40), xv, 5);
      s0 = vfmaq_laneq_f16(s0, vld1q_f16(p + 48), xv, 6);
      s1 = vfmaq_laneq_f16(s1, vld1q_f16(p + 56), xv, 7);
    }
    for (; d < end; ++d) s0 = vfmaq_f16(s0, vld1q_f16(panel + d * 8), vdupq_n_f16(x[d]));
    lo = vaddq_f32(lo, vaddq_f32(vcvt_f32_f16(vget_low_f16(s0)), vcvt_f32_f16(vget_low_f16(s1))));
    hi = vaddq_f32(hi, vaddq_f32(vcvt_high_f32_f16(s0), vcvt_high_f32_f16(s1)));
  }
  vst1q_f32(out, lo);
  vst1q_f32(out + 4, hi);
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
