// The uint8 GEMM on AVX2 (kQuantPairsInt16): vpmaddwd multiplies the int16
// pairs of eight columns by a broadcast pair of a row and adds each pair,
// exactly, into int32 lanes. A tile is 4 rows x 32 columns (16 accumulators).
#include <immintrin.h>

#include "mace/ops/x86/avx2_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

void Avx2QuantizedGemm(const int32_t* a, const int32_t* b, int64_t rows, int64_t groups,
                       int64_t cols, int32_t* c) {
  for (int64_t row = 0; row < rows; row += kQuantGemmRows) {
    const int32_t* a0 = a + row * groups;
    const int32_t* a1 = a0 + groups;
    const int32_t* a2 = a1 + groups;
    const int32_t* a3 = a2 + groups;
    for (int64_t col = 0; col < cols; col += kQuantGemmCols) {
      __m256i acc[4][4];
      for (auto& r : acc)
        for (__m256i& v : r) v = _mm256_setzero_si256();
      const int32_t* panel = b + col;
      for (int64_t g = 0; g < groups; ++g) {
        const int32_t* bg = panel + g * cols;
        __m256i x[4];
        for (int j = 0; j < 4; ++j) {
          x[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bg + 8 * j));
        }
        const __m256i w[4] = {_mm256_set1_epi32(a0[g]), _mm256_set1_epi32(a1[g]),
                              _mm256_set1_epi32(a2[g]), _mm256_set1_epi32(a3[g])};
        for (int r = 0; r < 4; ++r) {
          for (int j = 0; j < 4; ++j) {
            acc[r][j] = _mm256_add_epi32(acc[r][j], _mm256_madd_epi16(w[r], x[j]));
          }
        }
      }
      for (int r = 0; r < 4; ++r) {
        for (int j = 0; j < 4; ++j) {
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(c + (row + r) * cols + col + 8 * j),
                              acc[r][j]);
        }
      }
    }
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace
