// A loop of independent multiply-adds that measures peak NEON throughput,
// the yardstick for the GEMM benchmark.
#if defined(__aarch64__) || defined(__ARM_NEON)

#include <arm_neon.h>

#include "mace/ops/arm/neon_kernels.h"

namespace mace {
namespace ops {
namespace arm {

int64_t NeonFmaPeak(int64_t iterations, float* sink) {
  const float32x4_t x = vdupq_n_f32(0.999f), y = vdupq_n_f32(1e-4f);
  float32x4_t a0 = vdupq_n_f32(0.f), a1 = vdupq_n_f32(1.f), a2 = vdupq_n_f32(2.f);
  float32x4_t a3 = vdupq_n_f32(3.f), a4 = vdupq_n_f32(4.f), a5 = vdupq_n_f32(5.f);
  float32x4_t a6 = vdupq_n_f32(6.f), a7 = vdupq_n_f32(7.f);
  for (int64_t it = 0; it < iterations; ++it) {
#if defined(__aarch64__)
    a0 = vfmaq_f32(y, a0, x);
    a1 = vfmaq_f32(y, a1, x);
    a2 = vfmaq_f32(y, a2, x);
    a3 = vfmaq_f32(y, a3, x);
    a4 = vfmaq_f32(y, a4, x);
    a5 = vfmaq_f32(y, a5, x);
    a6 = vfmaq_f32(y, a6, x);
    a7 = vfmaq_f32(y, a7, x);
#else
    a0 = vmlaq_f32(y, a0, x);
    a1 = vmlaq_f32(y, a1, x);
    a2 = vmlaq_f32(y, a2, x);
    a3 = vmlaq_f32(y, a3, x);
    a4 = vmlaq_f32(y, a4, x);
    a5 = vmlaq_f32(y, a5, x);
    a6 = vmlaq_f32(y, a6, x);
    a7 = vmlaq_f32(y, a7, x);
#endif
  }
  float32x4_t total = vaddq_f32(vaddq_f32(vaddq_f32(a0, a1), vaddq_f32(a2, a3)),
                                vaddq_f32(vaddq_f32(a4, a5), vaddq_f32(a6, a7)));
  vst1q_f32(sink, total);
  return iterations * 8 * 4 * 2;
}

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // __aarch64__ || __ARM_NEON
