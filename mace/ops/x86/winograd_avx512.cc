// The Winograd F(2x2) and F(4x4) transforms built with the AVX512 flags of
// this file's library: the portable code of cpu/winograd_kernels.inc, which
// the compiler vectorizes for this instruction set.
#include "mace/ops/x86/avx512_intrinsics.h"

#include "mace/ops/x86/avx512_kernels.h"

namespace mace {
namespace ops {
namespace x86 {
namespace {
#include "mace/ops/cpu/winograd_kernels.inc"

// AVX-512 stores under a lane mask.
inline void WgStorePartial(const float* src, int64_t count, float* dst) {
  _mm512_mask_storeu_ps(dst, static_cast<__mmask16>((1u << count) - 1), _mm512_loadu_ps(src));
}
}  // namespace

void Avx512WinogradInput(const WinogradInputRun& run) { WgInput(run); }
void Avx512WinogradOutput(const WinogradOutputRun& run) { WgOutput(run); }

}  // namespace x86
}  // namespace ops
}  // namespace mace
