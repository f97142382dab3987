// PackFloatPanel8 (cpu/conv_2d_panel_runs.h) on armv7, whose NEON panels
// are 8 wide: a segment of 4 to 8 lanes is two overlapping vectors from its
// two ends, one of fewer lanes by lane, with 32-bit offsets and no per-run
// size loop: the generic copy and fill took about 30 instructions a tap for
// a panel in one row (the packing was 3 % of ResNet-18's count).
#include <arm_neon.h>

#include "mace/ops/cpu/conv_2d_panel_runs.h"

namespace mace {
namespace ops {

bool PackFloatPanel8(const PanelSegment<float>* segments, int count, int valid,
                     const int64_t* offsets, int64_t depth, float* dst) {
  const int taps = static_cast<int>(depth);
  float* out = dst;
  if (count == 1 && valid == 8) {
    const float* origin = segments[0].origin;
    for (int d = 0; d < taps; ++d, out += 8) {
      const float* src = origin + static_cast<int>(offsets[d]);
      vst1q_f32(out, vld1q_f32(src));
      vst1q_f32(out + 4, vld1q_f32(src + 4));
    }
    return true;
  }
  const float32x4_t zero = vdupq_n_f32(0.f);
  for (int d = 0; d < taps; ++d, out += 8) {
    const int offset = static_cast<int>(offsets[d]);
    // Lanes past `valid` are zeros: stored first, then runs over them.
    if (valid < 8) {
      vst1q_f32(out, zero);
      vst1q_f32(out + 4, zero);
    }
    for (int i = 0; i < count; ++i) {
      const float* src = segments[i].origin + offset;
      float* run = out + segments[i].lane0;
      const int lanes = segments[i].lanes;
      if (lanes >= 4) {
        vst1q_f32(run, vld1q_f32(src));
        vst1q_f32(run + lanes - 4, vld1q_f32(src + lanes - 4));
      } else {
        for (int k = 0; k < lanes; ++k) run[k] = src[k];
      }
    }
  }
  return true;
}

}  // namespace ops
}  // namespace mace
