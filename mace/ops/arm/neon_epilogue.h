// Activation of one NEON vector, shared by the NEON kernels.
#ifndef MACE_OPS_ARM_NEON_EPILOGUE_H_
#define MACE_OPS_ARM_NEON_EPILOGUE_H_

#include <arm_neon.h>

#include "mace/ops/cpu/micro_kernels.h"

namespace mace {
namespace ops {
namespace arm {

static inline float32x4_t NeonActivate(float32x4_t v, const TileEpilogue& epilogue) {
  switch (epilogue.activation) {
    case kTileActClamp:
      return vminq_f32(vmaxq_f32(v, vdupq_n_f32(epilogue.lo)), vdupq_n_f32(epilogue.hi));
    case kTileActHardSwish: {
      const float32x4_t gate =
          vminq_f32(vmaxq_f32(vaddq_f32(v, vdupq_n_f32(3.f)), vdupq_n_f32(0.f)), vdupq_n_f32(6.f));
      // armv7 NEON has no vector divide; x / 6 and x * (1 / 6) differ by an ulp.
      return vmulq_f32(vmulq_f32(v, gate), vdupq_n_f32(1.f / 6.f));
    }
    default:
      return v;
  }
}

}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ARM_NEON_EPILOGUE_H_
