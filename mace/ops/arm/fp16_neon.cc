// Half-precision NEON conversions and packing (FEAT_FP16): floats to and
// from halves, B panels of halves, and sums of half rows. Built with
// -march=armv8.2-a+fp16 and called only after the HWCAP check.
#include <arm_neon.h>

#include "mace/ops/arm/fp16_neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {

void Fp16FromFloat(const float* src, int64_t count, uint16_t* dst_bits) {
  float16_t* dst = reinterpret_cast<float16_t*>(dst_bits);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const float16x4_t a = vcvt_f16_f32(vld1q_f32(src + i));
    const float16x4_t b = vcvt_f16_f32(vld1q_f32(src + i + 8));
    vst1q_f16(dst + i, vcvt_high_f16_f32(a, vld1q_f32(src + i + 4)));
    vst1q_f16(dst + i + 8, vcvt_high_f16_f32(b, vld1q_f32(src + i + 12)));
  }
  if (i + 8 <= count) {
    const float16x4_t lo = vcvt_f16_f32(vld1q_f32(src + i));
    vst1q_f16(dst + i, vcvt_high_f16_f32(lo, vld1q_f32(src + i + 4)));
    i += 8;
  }
  // Rows of depthwise bands are often 4 + 8k wide (28, 14 on 224 inputs).
  if (i + 4 <= count) {
    vst1_f16(dst + i, vcvt_f16_f32(vld1q_f32(src + i)));
    i += 4;
  }
  for (; i < count; ++i) dst[i] = static_cast<float16_t>(src[i]);
}

void Fp16PackColumns(const float* src, int64_t cols, int64_t depth, int64_t depth_stride,
                     uint16_t* dst_bits) {
  float16_t* dst = reinterpret_cast<float16_t*>(dst_bits);
  static_assert(kFp16GemmNr == 24, "three vectors of 8 halves a step");
  const auto convert = [](const float* row, float16_t* out) __attribute__((always_inline)) {
    const float16x4_t a = vcvt_f16_f32(vld1q_f32(row));
    const float16x4_t b = vcvt_f16_f32(vld1q_f32(row + 8));
    const float16x4_t c = vcvt_f16_f32(vld1q_f32(row + 16));
    vst1q_f16(out, vcvt_high_f16_f32(a, vld1q_f32(row + 4)));
    vst1q_f16(out + 8, vcvt_high_f16_f32(b, vld1q_f32(row + 12)));
    vst1q_f16(out + 16, vcvt_high_f16_f32(c, vld1q_f32(row + 20)));
  };
  if (cols == kFp16GemmNr) {
    for (int64_t d = 0; d < depth; ++d, src += depth_stride, dst += kFp16GemmNr) convert(src, dst);
    return;
  }
  // A panel's last columns: through a zero-padded row.
  float row[kFp16GemmNr] = {};
  for (int64_t d = 0; d < depth; ++d, src += depth_stride, dst += kFp16GemmNr) {
    for (int64_t j = 0; j < cols; ++j) row[j] = src[j];
    convert(row, dst);
  }
}

void Fp16PackHalfColumns(const uint16_t* src_bits, int64_t cols, int64_t depth,
                         int64_t depth_stride, uint16_t* dst_bits) {
  const float16_t* src = reinterpret_cast<const float16_t*>(src_bits);
  float16_t* dst = reinterpret_cast<float16_t*>(dst_bits);
  if (cols == kFp16GemmNr) {
    // One three-vector load (post-indexed by the row stride) and store a
    // row, two rows a loop trip.
    const int64_t stride_bytes = depth_stride * static_cast<int64_t>(sizeof(float16_t));
    int64_t pairs = depth >> 1;
    if (pairs > 0) {
      asm volatile(
          "1:\n"
          "ld1 {v0.8h, v1.8h, v2.8h}, [%[src]], %[stride]\n"
          "ld1 {v3.8h, v4.8h, v5.8h}, [%[src]], %[stride]\n"
          "st1 {v0.8h, v1.8h, v2.8h, v3.8h}, [%[dst]], #64\n"
          "st1 {v4.8h, v5.8h}, [%[dst]], #32\n"
          "subs %[pairs], %[pairs], #1\n"
          "b.ne 1b\n"
          : [src] "+r"(src), [dst] "+r"(dst), [pairs] "+r"(pairs)
          : [stride] "r"(stride_bytes)
          : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5");
    }
    if (depth & 1) {
      vst1q_f16(dst, vld1q_f16(src));
      vst1q_f16(dst + 8, vld1q_f16(src + 8));
      vst1q_f16(dst + 16, vld1q_f16(src + 16));
    }
    return;
  }
  // A panel's last columns: whole vectors, then the `rem` last columns as
  // one vector with zeros above them, then zero vectors. With 8 columns or
  // more the part vector is the row's last 8 shifted down by a table
  // lookup (whose out-of-range indices give the zeros); with fewer it is
  // the 8 halves from the first column, masked, which may read into the
  // next rows: while they lie inside the panel's last row, else half by
  // half.
  const int64_t whole = cols / 8 * 8, rem = cols - whole;
  uint8_t index_bytes[16], mask_bytes[16];
  for (int i = 0; i < 16; ++i) {
    const int lane = i / 2;
    index_bytes[i] = lane < rem ? static_cast<uint8_t>(i + 2 * (8 - rem)) : 0xff;
    mask_bytes[i] = lane < rem ? 0xff : 0;
  }
  const uint8x16_t index = vld1q_u8(index_bytes), mask = vld1q_u8(mask_bytes);
  const float16x8_t zero = vdupq_n_f16(0);
  for (int64_t d = 0; d < depth; ++d, src += depth_stride, dst += kFp16GemmNr) {
    int64_t j = 0;
    for (; j < whole; j += 8) vst1q_f16(dst + j, vld1q_f16(src + j));
    if (rem > 0) {
      uint8x16_t part;
      if (cols >= 8) {
        part = vqtbl1q_u8(vreinterpretq_u8_f16(vld1q_f16(src + cols - 8)), index);
      } else if ((depth - 1 - d) * depth_stride + cols >= 8) {
        part = vandq_u8(vreinterpretq_u8_f16(vld1q_f16(src)), mask);
      } else {
        float16_t last[8] = {};
        for (int64_t i = 0; i < rem; ++i) last[i] = src[i];
        part = vreinterpretq_u8_f16(vld1q_f16(last));
      }
      vst1q_f16(dst + j, vreinterpretq_f16_u8(part));
      j += 8;
    }
    for (; j < kFp16GemmNr; j += 8) vst1q_f16(dst + j, zero);
  }
}

void Fp16ToFloat(const uint16_t* src_bits, int64_t count, float* dst) {
  const float16_t* src = reinterpret_cast<const float16_t*>(src_bits);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const float16x8_t v = vld1q_f16(src + i);
    vst1q_f32(dst + i, vcvt_f32_f16(vget_low_f16(v)));
    vst1q_f32(dst + i + 4, vcvt_high_f32_f16(v));
  }
  for (; i < count; ++i) dst[i] = static_cast<float>(src[i]);
}

void Fp16Add(const uint16_t* a_bits, const uint16_t* b_bits, int64_t count, uint16_t* dst_bits) {
  const float16_t* a = reinterpret_cast<const float16_t*>(a_bits);
  const float16_t* b = reinterpret_cast<const float16_t*>(b_bits);
  float16_t* dst = reinterpret_cast<float16_t*>(dst_bits);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    vst1q_f16(dst + i, vaddq_f16(vld1q_f16(a + i), vld1q_f16(b + i)));
    vst1q_f16(dst + i + 8, vaddq_f16(vld1q_f16(a + i + 8), vld1q_f16(b + i + 8)));
  }
  for (; i + 8 <= count; i += 8) vst1q_f16(dst + i, vaddq_f16(vld1q_f16(a + i), vld1q_f16(b + i)));
  for (; i < count; ++i) dst[i] = a[i] + b[i];
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
