// Bias-free activation of one 16-lane vector, shared by the AVX-512 kernels.
// Only included by files built with AVX-512 flags, after
// avx512_intrinsics.h; the function is static so each file keeps its own
// copy and none can leak into baseline code.
#ifndef MACE_OPS_X86_AVX512_EPILOGUE_H_
#define MACE_OPS_X86_AVX512_EPILOGUE_H_

#include "mace/ops/cpu/micro_kernels.h"
#include "mace/ops/x86/avx512_intrinsics.h"

namespace mace {
namespace ops {
namespace x86 {

static inline __m512 Avx512Activate(__m512 v, const TileEpilogue& epilogue) {
  switch (epilogue.activation) {
    case kTileActClamp:
      return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(epilogue.lo)),
                           _mm512_set1_ps(epilogue.hi));
    case kTileActHardSwish: {
      const __m512 gate =
          _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, _mm512_set1_ps(3.f)), _mm512_setzero_ps()),
                        _mm512_set1_ps(6.f));
      return _mm512_div_ps(_mm512_mul_ps(v, gate), _mm512_set1_ps(6.f));
    }
    default:
      return v;
  }
}

}  // namespace x86
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_X86_AVX512_EPILOGUE_H_
