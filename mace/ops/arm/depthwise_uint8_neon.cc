// NEON rows of a 3x3 uint8 depthwise convolution (DepthwiseUint8RowKernel),
// on arm64 and armv7: int16 inputs times int16 taps with widening
// multiply-accumulate into int32 (vmlal.s16 / smlal), 8 outputs per step
// in two int32 vectors. Every product and sum is exact.
//
// Stride 2 loads 16 inputs with vld2q_s16, which splits them into even and
// odd lanes; the third tap is the even lanes of the load two inputs on.
#include <arm_neon.h>

#include "mace/ops/arm/quantized_neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

struct Acc {
  int32x4_t lo, hi;
};

inline void MulAdd(int16x8_t x, int16_t tap, Acc* acc) {
  acc->lo = vmlal_n_s16(acc->lo, vget_low_s16(x), tap);
  acc->hi = vmlal_n_s16(acc->hi, vget_high_s16(x), tap);
}

inline void Store(const Acc& acc, int32_t* out) {
  vst1q_s32(out, acc.lo);
  vst1q_s32(out + 4, acc.hi);
}

}  // namespace

void NeonDepthwiseUint8S1(const DepthwiseUint8Row& row) {
  for (int64_t x = 0; x < row.count; x += kDepthwiseUint8Lanes) {
    Acc acc = {vdupq_n_s32(0), vdupq_n_s32(0)};
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + x;
      MulAdd(vld1q_s16(in), row.taps[3 * i], &acc);
      MulAdd(vld1q_s16(in + 1), row.taps[3 * i + 1], &acc);
      MulAdd(vld1q_s16(in + 2), row.taps[3 * i + 2], &acc);
    }
    Store(acc, row.sums + x);
  }
}

void NeonDepthwiseUint8S2(const DepthwiseUint8Row& row) {
  for (int64_t x = 0; x < row.count; x += kDepthwiseUint8Lanes) {
    Acc acc = {vdupq_n_s32(0), vdupq_n_s32(0)};
    for (int i = 0; i < 3; ++i) {
      const int16_t* in = row.rows[i] + 2 * x;
      const int16x8x2_t pairs = vld2q_s16(in);
      MulAdd(pairs.val[0], row.taps[3 * i], &acc);
      MulAdd(pairs.val[1], row.taps[3 * i + 1], &acc);
      MulAdd(vld2q_s16(in + 2).val[0], row.taps[3 * i + 2], &acc);
    }
    Store(acc, row.sums + x);
  }
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
