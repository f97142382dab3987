#include "mace/ops/cpu/attention_exp_panels.h"

#include <algorithm>

#include "mace/ops/cpu/gemm.h"

namespace mace {
namespace ops {

void PackExpPanels(const void* context, int64_t row0, int64_t rows, int64_t depth0,
                   int64_t depth, int width, float* dst) {
  const ExpPanels& e = *static_cast<const ExpPanels*>(context);
  const float* first = e.scores + row0 * e.stride + depth0;
  if (rows * depth > e.capacity) {
    // Deeper than the blocks the buffer was sized for: row by row into
    // PackPanels' layout, the rows past the last panel's end zeroed.
    const int64_t padded = (rows + width - 1) / width * width;
    for (int64_t i = 0; i < padded; ++i) {
      float* panel = dst + (i / width) * width * depth + i % width;
      if (i < rows) {
        e.exp(first + i * e.stride, 1, depth, e.stride, e.shift + row0 + i, e.buffer, depth,
              e.row_sums);
      }
      for (int64_t d = 0; d < depth; ++d) panel[d * width] = i < rows ? e.buffer[d] : 0.f;
    }
    *e.mismatch = true;
    return;
  }
  e.exp(first, rows, depth, e.stride, e.shift + row0, e.buffer, depth, e.row_sums);
  PackPanels(e.buffer, rows, depth, depth, 1, width, dst);
  const bool whole_row = depth0 == 0 && depth == e.stride;
  if (!whole_row && (depth0 % e.depth != 0 || depth != std::min(e.depth, e.stride - depth0))) {
    *e.mismatch = true;
    return;
  }
  const int64_t block = depth0 / e.depth;
  for (int64_t i = 0; i < rows; ++i) e.sums[(row0 + i) * e.blocks + block] = e.row_sums[i];
}

}  // namespace ops
}  // namespace mace
