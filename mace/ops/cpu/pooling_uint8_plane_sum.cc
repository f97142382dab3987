#include "mace/ops/cpu/pooling_uint8_plane_sum.h"

namespace mace {
namespace ops {

int64_t Uint8PlaneSum(const uint8_t* data, int64_t count) {
  int64_t sum = 0;
  for (int64_t i = 0; i < count; ++i) sum += data[i];
  return sum;
}

}  // namespace ops
}  // namespace mace
