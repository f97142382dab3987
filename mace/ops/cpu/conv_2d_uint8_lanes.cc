#include "mace/ops/cpu/conv_2d_uint8_lanes.h"

namespace mace {
namespace ops {

int64_t InterleavePairVectors(const uint8_t*, const uint8_t*, int64_t, uint8_t, int32_t*) {
  return 0;
}

int64_t InterleaveQuadVectors(const uint8_t* const*, int64_t, int32_t*) { return 0; }

int64_t AddQuadSumVectors(const uint8_t*, int64_t, int32_t*) { return 0; }

int64_t CopyEvenBytesVectors(const uint8_t*, int64_t first, int64_t, uint8_t*) { return first; }

}  // namespace ops
}  // namespace mace
