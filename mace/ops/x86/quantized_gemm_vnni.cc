// The uint8 GEMM with AVX-512 VNNI (kQuantQuadsUint8): vpdpbusd multiplies
// four uint8 input values by four int8 weights and adds the four products
// into an int32 lane, sixteen lanes at a time. A tile is 4 rows x 32 columns.
// The function is compiled for AVX-512 F and VNNI by its target attribute,
// so the rest of this library keeps the AVX2 flags; it is called only where
// cpu_features.h found VNNI (kernel_table.cc).
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

__attribute__((target("avx512f,avx512vnni"))) void VnniQuantizedGemm(
    const int32_t* a, const int32_t* b, int64_t rows, int64_t groups, int64_t cols, int32_t* c) {
  for (int64_t row = 0; row < rows; row += kQuantGemmRows) {
    const int32_t* a0 = a + row * groups;
    for (int64_t col = 0; col < cols; col += kQuantGemmCols) {
      __m512i acc[4][2];
      for (auto& r : acc)
        for (__m512i& v : r) v = _mm512_setzero_si512();
      const int32_t* panel = b + col;
      for (int64_t g = 0; g < groups; ++g) {
        const int32_t* bg = panel + g * cols;
        const __m512i x0 = _mm512_loadu_si512(bg);
        const __m512i x1 = _mm512_loadu_si512(bg + 16);
        for (int r = 0; r < 4; ++r) {
          const __m512i w = _mm512_set1_epi32(a0[r * groups + g]);
          acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], x0, w);
          acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], x1, w);
        }
      }
      for (int r = 0; r < 4; ++r) {
        _mm512_storeu_si512(c + (row + r) * cols + col, acc[r][0]);
        _mm512_storeu_si512(c + (row + r) * cols + col + 16, acc[r][1]);
      }
    }
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
