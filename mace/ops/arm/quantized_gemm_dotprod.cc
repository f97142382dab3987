// The uint8 GEMM with the ARMv8.2 dot product (kQuantQuadsUint8Unsigned):
// udot multiplies four uint8 inputs by four uint8 weights and adds them into
// a 32-bit lane, four columns per vector. A tile is 4 rows x 16 columns.
// Built with +dotprod; called only where HWCAP reports ASIMDDP.
#include <arm_neon.h>

#include "mace/ops/arm/quantized_neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {

void DotprodQuantizedGemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                          int64_t cols, int32_t* c) {
  for (int64_t row = 0; row < rows; row += kQuantGemmRows) {
    for (int64_t col = 0; col < cols; col += 16) {
      uint32x4_t acc[4][4];
      for (auto& r : acc)
        for (uint32x4_t& v : r) v = vdupq_n_u32(0);
      for (int64_t g = 0; g < groups; ++g) {
        const int32_t* bg = b + g * cols + col;
        uint8x16_t x[4];
        for (int j = 0; j < 4; ++j) x[j] = vreinterpretq_u8_s32(vld1q_s32(bg + 4 * j));
        for (int r = 0; r < 4; ++r) {
          const uint8x16_t w = vreinterpretq_u8_s32(vdupq_n_s32(a[(row + r) * groups + g]));
          for (int j = 0; j < 4; ++j) acc[r][j] = vdotq_u32(acc[r][j], x[j], w);
        }
      }
      // The sums are below 2^31 (the driver bounds the depth), so the
      // unsigned lanes hold the int32 values.
      for (int r = 0; r < 4; ++r) {
        for (int j = 0; j < 4; ++j) {
          vst1q_s32(c + (row + r) * cols + col + 4 * j, vreinterpretq_s32_u32(acc[r][j]));
        }
      }
    }
  }
}

}  // namespace arm
}  // namespace ops
}  // namespace mace
