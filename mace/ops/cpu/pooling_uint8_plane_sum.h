// The sum of a plane of uint8 values, for the uint8 global average pooling
// (pooling_uint8_fast.cc): a byte at a time (pooling_uint8_plane_sum.cc),
// or with x86-64's SSE2 sums of absolute differences
// (x86/pooling_uint8_plane_sum_x86_64.cc).
#ifndef MACE_OPS_CPU_POOLING_UINT8_PLANE_SUM_H_
#define MACE_OPS_CPU_POOLING_UINT8_PLANE_SUM_H_

#include <cstdint>

namespace mace {
namespace ops {

int64_t Uint8PlaneSum(const uint8_t* data, int64_t count);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_UINT8_PLANE_SUM_H_
