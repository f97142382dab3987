// Bias-free activation of one vector, shared by the AVX2 kernels. Only
// included by files built with -mavx2; the functions are static so each file
// keeps its own copy and none can leak into baseline code.
#ifndef MACE_OPS_X86_AVX2_EPILOGUE_H_
#define MACE_OPS_X86_AVX2_EPILOGUE_H_

#include <immintrin.h>

#include "mace/ops/cpu/micro_kernels.h"

namespace mace {
namespace ops {
namespace x86 {

static inline __m256 Avx2Activate(__m256 v, const TileEpilogue& epilogue) {
  switch (epilogue.activation) {
    case kTileActClamp:
      return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(epilogue.lo)),
                           _mm256_set1_ps(epilogue.hi));
    case kTileActHardSwish: {
      const __m256 gate =
          _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, _mm256_set1_ps(3.f)), _mm256_setzero_ps()),
                        _mm256_set1_ps(6.f));
      return _mm256_div_ps(_mm256_mul_ps(v, gate), _mm256_set1_ps(6.f));
    }
    default:
      return v;
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_AVX2_EPILOGUE_H_
