// ClampHalves (cpu/eltwise_half.h) on arm64: eight halves per NEON int16
// max and min, the rest one by one.
#include <arm_neon.h>

#include <algorithm>

#include "mace/ops/cpu/eltwise_half.h"

namespace mace {
namespace ops {

void ClampHalves(uint16_t* data, int64_t count, uint16_t limit) {
  int16_t* values = reinterpret_cast<int16_t*>(data);
  const int16_t hi = static_cast<int16_t>(limit);
  int64_t i = 0;
  const int16x8_t zero = vdupq_n_s16(0), top = vdupq_n_s16(hi);
  for (; i + 8 <= count; i += 8) {
    vst1q_s16(values + i, vminq_s16(vmaxq_s16(vld1q_s16(values + i), zero), top));
  }
  for (; i < count; ++i) values[i] = std::min(std::max<int16_t>(values[i], 0), hi);
}

}  // namespace ops
}  // namespace mace
