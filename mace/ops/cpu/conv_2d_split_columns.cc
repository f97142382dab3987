#include "mace/ops/cpu/conv_2d_split_columns.h"

namespace mace {
namespace ops {

void SplitRowColumns(const float* src, float* even, int64_t even_count, float* odd,
                     int64_t odd_count) {
  const int64_t both = even_count < odd_count ? even_count : odd_count;
  const int64_t x = SplitPairs<float, 4>(src, even, odd, 0, both);
  SplitTail(src, even, even_count, odd, odd_count, x);
}

}  // namespace ops
}  // namespace mace
