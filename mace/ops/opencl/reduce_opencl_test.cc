// The GPU Reduce against the CPU reference in both storages: every reduce
// type over single and several axes, with and without keepdims, ranks 2
// to 4, channels not a multiple of 4.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

using ReduceOpenCLTest = GpuOpTest;

TEST_P(ReduceOpenCLTest, MatchesTheCpuReference) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{2, 5, 3, 4}, {2, 3}}, {{1, 7, 2, 3}, {1}},      {{3, 6, 1, 2}, {0, 2}},
      {{2, 9}, {-1}},         {{2, 3, 5}, {0, 1, 2}},   {{1, 5, 4, 9}, {3}},
  };
  for (const auto& c : cases) {
    for (int type = 0; type < 5; ++type) {
      for (int keepdims : {1, 0}) {
        SCOPED_TRACE(ShapeName(c.first) + " axes " + ShapeName(c.second) + " type " +
                     std::to_string(type) + " keepdims " + std::to_string(keepdims));
        OpModel m("Reduce", c.first);
        AddInts(m.op, "axis", c.second);
        ModelBuilder::SetInt(m.op, "reduce_type", type);
        ModelBuilder::SetInt(m.op, "keepdims", keepdims);
        ExpectOpOnGpu(m, GetParam());
      }
    }
  }
}

INSTANTIATE_STORAGES(ReduceOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
