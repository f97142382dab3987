#include "mace/ops/cpu/conv_2d_zero_floats.h"

#include <algorithm>

namespace mace {
namespace ops {

void ZeroFloatRun(float* values, int64_t count) { std::fill(values, values + count, 0.f); }

}  // namespace ops
}  // namespace mace
