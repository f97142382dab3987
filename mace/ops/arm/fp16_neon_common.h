// What the half-precision NEON kernels (fp16_gemm_neon.cc,
// fp16_depthwise_neon.cc) share: the forms of a tile's or band's activation.
// Included only by files built with -march=armv8.2-a+fp16; everything here
// is internal to each of them (an anonymous namespace).
#ifndef MACE_OPS_ARM_FP16_NEON_COMMON_H_
#define MACE_OPS_ARM_FP16_NEON_COMMON_H_

#include <arm_neon.h>

#include "mace/ops/cpu/micro_kernels.h"

namespace mace {
namespace ops {
namespace arm {
namespace {

// What a tile does around its reduction, fixed per call so that the loops
// hold no branches. The first block of a reduction starts its sums at the
// row bias (in half precision); later blocks add their sums to C, in single
// precision when C holds floats and in half precision when it holds halves.
// The last block applies the activation: kActHalf clamps in half precision
// (bounds that are half values, on half sums: the same as clamping after
// the conversion), kActFloat in single precision.
enum TileAct { kActNone, kActHalf, kActFloat };

// The activation's form for these bounds: clamps whose bounds are half
// values run in half precision (the same as clamping the floats).
inline TileAct ActFor(const TileEpilogue& epilogue) {
  if (epilogue.activation == kTileActNone) return kActNone;
  const bool half_bounds =
      static_cast<float>(static_cast<float16_t>(epilogue.lo)) == epilogue.lo &&
      static_cast<float>(static_cast<float16_t>(epilogue.hi)) == epilogue.hi;
  return epilogue.activation == kTileActClamp && half_bounds ? kActHalf : kActFloat;
}

}  // namespace
}  // namespace arm
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_ARM_FP16_NEON_COMMON_H_
