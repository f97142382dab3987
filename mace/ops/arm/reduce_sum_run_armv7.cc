// SumRun (cpu/reduce_sum_run.h) on armv7: the same adds in the same order,
// with four values in one vld1, each widened and added in its register: 11
// instructions per 4 values. GCC kept the four sums in memory across a
// 64-bit loop, about 10 instructions a value (ShuffleNet v2's global
// average pooling, 1024 runs of 49, took 0.48 M).
#include "mace/ops/cpu/reduce_sum_run.h"

namespace mace {
namespace ops {

double SumRun(const float* values, int64_t run) {
  double sums[4] = {0.0, 0.0, 0.0, 0.0};
  int quads = static_cast<int>(run >> 2);
  if (quads > 0) {
    __asm__ volatile(
        "vmov.i64 d16, #0\n"
        "vmov.i64 d17, #0\n"
        "vmov.i64 d18, #0\n"
        "vmov.i64 d19, #0\n"
        "1:\n"
        "vld1.32 {d0-d1}, [%[p]]!\n"
        "vcvt.f64.f32 d4, s0\n"
        "vcvt.f64.f32 d5, s1\n"
        "vcvt.f64.f32 d6, s2\n"
        "vcvt.f64.f32 d7, s3\n"
        "vadd.f64 d16, d16, d4\n"
        "vadd.f64 d17, d17, d5\n"
        "vadd.f64 d18, d18, d6\n"
        "vadd.f64 d19, d19, d7\n"
        "subs %[n], %[n], #1\n"
        "bne 1b\n"
        "vst1.64 {d16-d19}, [%[sums]]\n"
        : [p] "+r"(values), [n] "+r"(quads)
        : [sums] "r"(sums)
        : "cc", "memory", "d0", "d1", "d4", "d5", "d6", "d7", "d16", "d17", "d18", "d19");
  }
  for (int r = static_cast<int>(run & 3); r > 0; --r) sums[0] += *values++;
  return (sums[0] + sums[1]) + (sums[2] + sums[3]);
}

}  // namespace ops
}  // namespace mace
