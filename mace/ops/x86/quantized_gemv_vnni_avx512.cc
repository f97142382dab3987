// The uint8 matrix-vector product with AVX-512 VNNI (QuantizedGemvKernel):
// each row's int8 weights against the uint8 vector, 64 products per
// vpdpbusd, four rows at a time (the vector's 64 bytes loaded once for
// the four), each row's 16 lanes summed at the end. The sums are exact in
// int32 for depths up to kQuantGemvMaxDepth.
#include "mace/ops/x86/avx512_intrinsics.h"
#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

__attribute__((target("avx512vnni"))) void VnniQuantizedGemv(const int8_t* w, const uint8_t* x,
                                                             int64_t rows, int64_t depth,
                                                             int32_t* sums) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const int8_t* w0 = w + r * depth;
    __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
    __m512i acc2 = _mm512_setzero_si512(), acc3 = _mm512_setzero_si512();
    for (int64_t k = 0; k < depth; k += kQuantGemvDepth) {
      const __m512i xv = _mm512_loadu_si512(x + k);
      acc0 = _mm512_dpbusd_epi32(acc0, xv, _mm512_loadu_si512(w0 + k));
      acc1 = _mm512_dpbusd_epi32(acc1, xv, _mm512_loadu_si512(w0 + depth + k));
      acc2 = _mm512_dpbusd_epi32(acc2, xv, _mm512_loadu_si512(w0 + 2 * depth + k));
      acc3 = _mm512_dpbusd_epi32(acc3, xv, _mm512_loadu_si512(w0 + 3 * depth + k));
    }
    sums[r] = _mm512_reduce_add_epi32(acc0);
    sums[r + 1] = _mm512_reduce_add_epi32(acc1);
    sums[r + 2] = _mm512_reduce_add_epi32(acc2);
    sums[r + 3] = _mm512_reduce_add_epi32(acc3);
  }
  for (; r < rows; ++r) {
    const int8_t* row = w + r * depth;
    __m512i acc = _mm512_setzero_si512();
    for (int64_t k = 0; k < depth; k += kQuantGemvDepth) {
      acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(x + k), _mm512_loadu_si512(row + k));
    }
    sums[r] = _mm512_reduce_add_epi32(acc);
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
