// The uint8 output step on NEON (RequantizeRowKernel), bit-exact with
// Requantize in mace/ops/common/quantize.h: |x| times the multiplier as
// 64-bit products (umull), plus half, shifted right, sign restored, clamped
// around the zero point, and narrowed to bytes. arm64 and armv7.
#include <arm_neon.h>

#include "mace/ops/arm/quantized_neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

// The tail's scalar rule, a copy of RequantizeToUint8 (common/quantize.h),
// kept in this file as the x86 one is (see cpu/micro_kernels.h).
inline uint8_t ScalarRequantize(const RequantizeRow& row, int64_t i) {
  uint32_t sum = static_cast<uint32_t>(row.sums[i]) + static_cast<uint32_t>(row.row_term);
  if (row.column_terms != nullptr) sum += static_cast<uint32_t>(row.column_terms[i]);
  const int32_t x = static_cast<int32_t>(sum);
  const uint64_t magnitude = x < 0 ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(x))
                                   : static_cast<uint64_t>(x);
  const uint64_t product = magnitude * static_cast<uint32_t>(row.multiplier);
  const int64_t rounded = static_cast<int64_t>(
      (product + (uint64_t{1} << (row.right_shift - 1))) >> row.right_shift);
  int64_t value = row.zero_point + (x < 0 ? -rounded : rounded);
  if (value < row.lo) value = row.lo;
  if (value > row.hi) value = row.hi;
  return static_cast<uint8_t>(value);
}

// 4 lanes of |x| * multiplier, rounded and shifted (results below 2^31).
inline uint32x4_t ScaleMagnitude(uint32x4_t magnitude, uint32x2_t multiplier, uint64x2_t half,
                                 int64x2_t shift) {
  const uint64x2_t low = vshlq_u64(vaddq_u64(vmull_u32(vget_low_u32(magnitude), multiplier), half),
                                   shift);
  const uint64x2_t high = vshlq_u64(
      vaddq_u64(vmull_u32(vget_high_u32(magnitude), multiplier), half), shift);
  return vcombine_u32(vmovn_u64(low), vmovn_u64(high));
}

}  // namespace

void NeonRequantizeRow(const RequantizeRow& row) {
  const int32x4_t row_term = vdupq_n_s32(row.row_term);
  const uint32x2_t multiplier = vdup_n_u32(static_cast<uint32_t>(row.multiplier));
  const uint64x2_t half = vdupq_n_u64(uint64_t{1} << (row.right_shift - 1));
  const int64x2_t shift = vdupq_n_s64(-row.right_shift);  // negative: right
  // Clamped before the zero point is added, so that nothing wraps.
  const int32x4_t lo = vdupq_n_s32(row.lo - row.zero_point);
  const int32x4_t hi = vdupq_n_s32(row.hi - row.zero_point);
  const int32x4_t zero_point = vdupq_n_s32(row.zero_point);
  int64_t i = 0;
  for (; i + 8 <= row.count; i += 8) {
    int32x4_t values[2];
    for (int half_index = 0; half_index < 2; ++half_index) {
      const int64_t at = i + 4 * half_index;
      int32x4_t x = vaddq_s32(vld1q_s32(row.sums + at), row_term);
      if (row.column_terms != nullptr) x = vaddq_s32(x, vld1q_s32(row.column_terms + at));
      // vabsq of INT32_MIN stays 0x80000000: as unsigned, the right magnitude.
      const uint32x4_t magnitude = vreinterpretq_u32_s32(vabsq_s32(x));
      const int32x4_t scaled =
          vreinterpretq_s32_u32(ScaleMagnitude(magnitude, multiplier, half, shift));
      const uint32x4_t negative = vcltq_s32(x, vdupq_n_s32(0));
      const int32x4_t signed_value = vbslq_s32(negative, vnegq_s32(scaled), scaled);
      values[half_index] =
          vaddq_s32(vminq_s32(vmaxq_s32(signed_value, lo), hi), zero_point);
    }
    const uint16x8_t words = vcombine_u16(vqmovun_s32(values[0]), vqmovun_s32(values[1]));
    vst1_u8(row.out + i, vqmovn_u16(words));
  }
  for (; i < row.count; ++i) row.out[i] = ScalarRequantize(row, i);
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
