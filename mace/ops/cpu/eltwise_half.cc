#include "mace/ops/cpu/eltwise_half.h"

#include <algorithm>

namespace mace {
namespace ops {

void ClampHalves(uint16_t* data, int64_t count, uint16_t limit) {
  int16_t* values = reinterpret_cast<int16_t*>(data);
  const int16_t hi = static_cast<int16_t>(limit);
  for (int64_t i = 0; i < count; ++i) values[i] = std::min(std::max<int16_t>(values[i], 0), hi);
}

}  // namespace ops
}  // namespace mace
