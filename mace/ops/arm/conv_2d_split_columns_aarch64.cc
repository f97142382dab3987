// SplitRowColumns (cpu/conv_2d_split_columns.h) on arm64: ld2 splits four
// pairs in one load, and eight columns of each half go out in one store
// pair: 0.5 instructions a float with the loop's, where the unzips of two
// plain loads took 1.0 (the stride-2 stems' padded image, 0.2 M
// instructions of ShuffleNet v2's 43.7 M). The rest as on every CPU.
#include <arm_neon.h>

#include "mace/ops/cpu/conv_2d_split_columns.h"

namespace mace {
namespace ops {

void SplitRowColumns(const float* src, float* even, int64_t even_count, float* odd,
                     int64_t odd_count) {
  const int64_t both = even_count < odd_count ? even_count : odd_count;
  int64_t x = 0;
  for (; x + 8 <= both; x += 8) {
    const float32x4x2_t lo = vld2q_f32(src + 2 * x);
    const float32x4x2_t hi = vld2q_f32(src + 2 * x + 8);
    vst1q_f32(even + x, lo.val[0]);
    vst1q_f32(even + x + 4, hi.val[0]);
    vst1q_f32(odd + x, lo.val[1]);
    vst1q_f32(odd + x + 4, hi.val[1]);
  }
  x = SplitPairs<float, 4>(src, even, odd, x, both);
  SplitTail(src, even, even_count, odd, odd_count, x);
}

}  // namespace ops
}  // namespace mace
