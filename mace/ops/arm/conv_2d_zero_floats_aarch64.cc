// ZeroFloatRun (cpu/conv_2d_zero_floats.h) on arm64: a few vectors stored
// in a loop, since memset's call and size dispatch cost more than the
// stores of these short ranges.
#include <algorithm>

#include "mace/ops/cpu/conv_2d_zero_floats.h"

namespace mace {
namespace ops {

void ZeroFloatRun(float* values, int64_t count) {
  if (count % 4 != 0) {
    std::fill(values, values + count, 0.f);
    return;
  }
  if (count == 0) return;
  __asm__ volatile(
      "movi v0.16b, #0\n"
      "1:\n"
      "str q0, [%[p]], #16\n"
      "subs %[n], %[n], #4\n"
      "b.ne 1b\n"
      : [p] "+r"(values), [n] "+r"(count)
      :
      : "cc", "memory", "v0");
}

}  // namespace ops
}  // namespace mace
