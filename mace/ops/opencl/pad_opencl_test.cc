// The GPU Pad against the CPU reference in both storages: every pad type,
// ranks 2 to 4, padding of the batch and channel dimensions too (channels
// not a multiple of 4), W = 1, H = 1.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

using PadOpenCLTest = GpuOpTest;

TEST_P(PadOpenCLTest, MatchesTheCpuReference) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{1, 3, 4, 5}, {0, 0, 0, 0, 1, 2, 2, 1}},
      {{2, 5, 3, 1}, {1, 0, 2, 1, 0, 2, 0, 0}},
      {{1, 2, 1, 6}, {0, 0, 1, 1, 0, 0, 3, 2}},
      {{3, 7}, {0, 1, 2, 2}},
      {{2, 3, 5}, {0, 0, 1, 3, 2, 2}},
  };
  for (const auto& c : cases) {
    for (int type = 0; type < 4; ++type) {
      SCOPED_TRACE(ShapeName(c.first) + " pads " + ShapeName(c.second) + " type " +
                   std::to_string(type));
      // Reflection needs pads smaller than the dimension.
      bool fits = true;
      for (size_t d = 0; d < c.first.size(); ++d) {
        const int64_t limit = type == 1 ? c.first[d] - 1 : c.first[d];
        fits = fits && c.second[2 * d] <= limit && c.second[2 * d + 1] <= limit;
      }
      if (type != 0 && !fits) continue;
      OpModel m("Pad", c.first);
      AddInts(m.op, "paddings", c.second);
      ModelBuilder::SetInt(m.op, "pad_type", type);
      SetFloat(m.op, "constant_value", 0.75f);
      ExpectOpOnGpu(m, GetParam());
    }
  }
}

INSTANTIATE_STORAGES(PadOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
