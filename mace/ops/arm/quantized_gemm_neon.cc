// The uint8 GEMM with NEON widening multiply-accumulate (kQuantPairsInt16).
// A broadcast weight word is the int16 pattern (w0, w1, w0, w1); multiplied
// lane by lane with four columns' pairs (c0k0, c0k1, c1k0, c1k1, ...) it
// leaves per-k partial sums, which are added pairwise once at the end (exact:
// all integer). A tile is 4 rows x 8 columns.
#include <arm_neon.h>

#include "mace/ops/arm/quantized_neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

// (a0 + a1, a2 + a3, b0 + b1, b2 + b3).
inline int32x4_t PairwiseAdd(int32x4_t a, int32x4_t b) {
  return vcombine_s32(vpadd_s32(vget_low_s32(a), vget_high_s32(a)),
                      vpadd_s32(vget_low_s32(b), vget_high_s32(b)));
}

}  // namespace

void NeonQuantizedGemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                       int64_t cols, int32_t* c) {
  for (int64_t row = 0; row < rows; row += kQuantGemmRows) {
    for (int64_t col = 0; col < cols; col += 8) {
      // acc[r][q]: columns 2q and 2q + 1, each as two per-k partial sums.
      int32x4_t acc[4][4];
      for (auto& r : acc)
        for (int32x4_t& v : r) v = vdupq_n_s32(0);
      for (int64_t g = 0; g < groups; ++g) {
        const int32_t* bg = b + g * cols + col;
        const int16x8_t x0 = vreinterpretq_s16_s32(vld1q_s32(bg));
        const int16x8_t x1 = vreinterpretq_s16_s32(vld1q_s32(bg + 4));
        for (int r = 0; r < 4; ++r) {
          const int16x4_t w = vreinterpret_s16_s32(vdup_n_s32(a[(row + r) * groups + g]));
          acc[r][0] = vmlal_s16(acc[r][0], vget_low_s16(x0), w);
          acc[r][1] = vmlal_s16(acc[r][1], vget_high_s16(x0), w);
          acc[r][2] = vmlal_s16(acc[r][2], vget_low_s16(x1), w);
          acc[r][3] = vmlal_s16(acc[r][3], vget_high_s16(x1), w);
        }
      }
      for (int r = 0; r < 4; ++r) {
        int32_t* out = c + (row + r) * cols + col;
        vst1q_s32(out, PairwiseAdd(acc[r][0], acc[r][1]));
        vst1q_s32(out + 4, PairwiseAdd(acc[r][2], acc[r][3]));
      }
    }
  }
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
