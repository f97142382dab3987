// A loop of independent 512-bit FMAs that measures the core's peak FMA
// throughput with AVX-512, the yardstick for the AVX-512 GEMM. Sixteen
// accumulators cover the FMA latency (4 cycles) times two FMA ports twice
// over, so the loop also saturates cores with a single 512-bit FMA unit.
#include "mace/ops/x86/avx512_intrinsics.h"

#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

int64_t Avx512FmaPeak(int64_t iterations, float* sink) {
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-4f);
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  for (int64_t it = 0; it < iterations; ++it) {
    acc[0] = _mm512_fmadd_ps(acc[0], x, y);
    acc[1] = _mm512_fmadd_ps(acc[1], x, y);
    acc[2] = _mm512_fmadd_ps(acc[2], x, y);
    acc[3] = _mm512_fmadd_ps(acc[3], x, y);
    acc[4] = _mm512_fmadd_ps(acc[4], x, y);
    acc[5] = _mm512_fmadd_ps(acc[5], x, y);
    acc[6] = _mm512_fmadd_ps(acc[6], x, y);
    acc[7] = _mm512_fmadd_ps(acc[7], x, y);
    acc[8] = _mm512_fmadd_ps(acc[8], x, y);
    acc[9] = _mm512_fmadd_ps(acc[9], x, y);
    acc[10] = _mm512_fmadd_ps(acc[10], x, y);
    acc[11] = _mm512_fmadd_ps(acc[11], x, y);
    acc[12] = _mm512_fmadd_ps(acc[12], x, y);
    acc[13] = _mm512_fmadd_ps(acc[13], x, y);
    acc[14] = _mm512_fmadd_ps(acc[14], x, y);
    acc[15] = _mm512_fmadd_ps(acc[15], x, y);
  }
  __m512 total = acc[0];
  for (int i = 1; i < 16; ++i) total = _mm512_add_ps(total, acc[i]);
  // One 8-float result, like the AVX2 loop, so callers size `sink` alike.
  const __m256 half =
      _mm256_add_ps(_mm512_castps512_ps256(total), _mm512_extractf32x8_ps(total, 1));
  _mm256_storeu_ps(sink, half);
  return iterations * 16 * 16 * 2;
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
