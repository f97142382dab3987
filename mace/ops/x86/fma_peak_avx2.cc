// A loop of independent FMAs that measures the core's peak FMA throughput,
// the yardstick for the GEMM benchmark. Twelve accumulators cover the FMA
// latency (4 cycles) times the two FMA ports, with room to spare.
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

int64_t Avx2FmaPeak(int64_t iterations, float* sink) {
  const __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(1e-4f);
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  for (int64_t it = 0; it < iterations; ++it) {
    acc[0] = _mm256_fmadd_ps(acc[0], x, y);
    acc[1] = _mm256_fmadd_ps(acc[1], x, y);
    acc[2] = _mm256_fmadd_ps(acc[2], x, y);
    acc[3] = _mm256_fmadd_ps(acc[3], x, y);
    acc[4] = _mm256_fmadd_ps(acc[4], x, y);
    acc[5] = _mm256_fmadd_ps(acc[5], x, y);
    acc[6] = _mm256_fmadd_ps(acc[6], x, y);
    acc[7] = _mm256_fmadd_ps(acc[7], x, y);
    acc[8] = _mm256_fmadd_ps(acc[8], x, y);
    acc[9] = _mm256_fmadd_ps(acc[9], x, y);
    acc[10] = _mm256_fmadd_ps(acc[10], x, y);
    acc[11] = _mm256_fmadd_ps(acc[11], x, y);
  }
  __m256 total = acc[0];
  for (int i = 1; i < 12; ++i) total = _mm256_add_ps(total, acc[i]);
  _mm256_storeu_ps(sink, total);  // keeps the loop from being optimized away
  return iterations * 12 * 8 * 2;
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
