// NEON rows of a 3x3 depthwise convolution, 4 outputs per vector. Stride 2
// uses vld2q_f32, which splits 8 inputs into even and odd lanes as it loads.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include "mace/ops/arm/neon_epilogue.h"
#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

float ActivateScalar(float v, const TileEpilogue& epilogue) {
  if (epilogue.activation == kTileActClamp) {
    v = v < epilogue.lo ? epilogue.lo : v;
    return v > epilogue.hi ? epilogue.hi : v;
  }
  if (epilogue.activation == kTileActHardSwish) {
    float gate = v + 3.f;
    gate = gate < 0.f ? 0.f : (gate > 6.f ? 6.f : gate);
    return v * gate * (1.f / 6.f);
  }
  return v;
}

float ScalarOutput(const DepthwiseRow& row, int64_t j, int stride) {
  float sum = row.bias;
  for (int r = 0; r < 3; ++r) {
    if (row.rows[r] == nullptr) continue;
    const float* in = row.rows[r] + j * stride;
    sum += in[0] * row.taps[3 * r] + in[1] * row.taps[3 * r + 1] + in[2] * row.taps[3 * r + 2];
  }
  return ActivateScalar(sum, row.epilogue);
}

inline float32x4_t MulAdd(float32x4_t acc, float32x4_t x, float tap) {
#if defined(__aarch64__)
  return vfmaq_n_f32(acc, x, tap);
#else
  return vmlaq_n_f32(acc, x, tap);
#endif
}

// Copied once per row: the output may alias the taps as far as the compiler
// knows, so taps read inside the loop would be reloaded after every store.
struct Taps {
  float v[9];
  explicit Taps(const float* taps) {
    for (int i = 0; i < 9; ++i) v[i] = taps[i];
  }
};

}  // namespace

void NeonDepthwiseRow3x3S1(const DepthwiseRow& row) {
  const Taps taps(row.taps);
  int64_t j = 0;
  for (; j + 4 <= row.count; j += 4) {
    float32x4_t acc = vdupq_n_f32(row.bias);
    for (int r = 0; r < 3; ++r) {
      if (row.rows[r] == nullptr) continue;
      const float* in = row.rows[r] + j;
      acc = MulAdd(acc, vld1q_f32(in), taps.v[3 * r]);
      acc = MulAdd(acc, vld1q_f32(in + 1), taps.v[3 * r + 1]);
      acc = MulAdd(acc, vld1q_f32(in + 2), taps.v[3 * r + 2]);
    }
    vst1q_f32(row.out + j, NeonActivate(acc, row.epilogue));
  }
  for (; j < row.count; ++j) row.out[j] = ScalarOutput(row, j, 1);
}

void NeonDepthwiseRow3x3S2(const DepthwiseRow& row) {
  const Taps taps(row.taps);
  int64_t j = 0;
  // The loads reach input 2j + 9 while the last valid one is 2 * count.
  for (; j + 5 <= row.count; j += 4) {
    float32x4_t acc = vdupq_n_f32(row.bias);
    for (int r = 0; r < 3; ++r) {
      if (row.rows[r] == nullptr) continue;
      const float* in = row.rows[r] + 2 * j;
      const float32x4x2_t pairs = vld2q_f32(in);
      const float32x4x2_t shifted = vld2q_f32(in + 2);
      acc = MulAdd(acc, pairs.val[0], taps.v[3 * r]);
      acc = MulAdd(acc, pairs.val[1], taps.v[3 * r + 1]);
      acc = MulAdd(acc, shifted.val[0], taps.v[3 * r + 2]);
    }
    vst1q_f32(row.out + j, NeonActivate(acc, row.epilogue));
  }
  for (; j < row.count; ++j) row.out[j] = ScalarOutput(row, j, 2);
}

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // __aarch64__ || __ARM_NEON
