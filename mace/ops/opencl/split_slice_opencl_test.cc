// The GPU Split and Slice against the CPU reference in both storages:
// along the channel axis with parts that are not multiples of 4 (and do
// not start on a block), along the other axes, steps for Slice, W = 1,
// H = 1, batch > 1.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

// Runs a Split of `shape` into outputs y0, y1, ... on both devices and
// compares every output.
void ExpectSplitMatches(const std::vector<int64_t>& shape, int64_t axis,
                        const std::vector<int64_t>& sizes, int outputs, GPUDataType storage) {
  SCOPED_TRACE("axis " + std::to_string(axis));
  OperatorDef* op = nullptr;
  const ModelBuilder model = MultiOutputModel("Split", shape, outputs, &op);
  ModelBuilder::SetInt(op, "axis", axis);
  if (!sizes.empty()) AddInts(op, "split", sizes);
  ExpectEveryOutputOnGpu(model, shape, outputs, storage);
}

using SplitSliceOpenCLTest = GpuOpTest;

TEST_P(SplitSliceOpenCLTest, Split) {
  ExpectSplitMatches({2, 9, 3, 2}, 1, {3, 6}, 2, GetParam());
  ExpectSplitMatches({1, 10, 1, 5}, 1, {}, 2, GetParam());
  ExpectSplitMatches({1, 7, 2, 1}, 1, {1, 5, 1}, 3, GetParam());
  ExpectSplitMatches({2, 3, 4, 6}, 3, {2, 4}, 2, GetParam());
  ExpectSplitMatches({4, 5, 2, 2}, 0, {}, 2, GetParam());
  ExpectSplitMatches({3, 13}, -1, {6, 7}, 2, GetParam());
}

TEST_P(SplitSliceOpenCLTest, Slice) {
  struct Case {
    std::vector<int64_t> shape, starts, ends, axes, steps;
  };
  const std::vector<Case> cases = {
      {{2, 11, 3, 2}, {3}, {10}, {1}, {}},
      {{1, 9, 4, 5}, {1, 1}, {8, 4}, {1, 3}, {2, 1}},
      {{1, 6, 1, 5}, {5, 4}, {0, 0}, {1, 3}, {-2, -1}},
      {{3, 5, 6, 1}, {1, 2}, {3, 6}, {0, 2}, {}},
      {{2, 10}, {-7}, {100}, {-1}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeName(c.shape) + " starts " + ShapeName(c.starts));
    OpModel m("Slice", c.shape);
    AddInts(m.op, "starts", c.starts);
    AddInts(m.op, "ends", c.ends);
    AddInts(m.op, "axes", c.axes);
    if (!c.steps.empty()) AddInts(m.op, "steps", c.steps);
    ExpectOpOnGpu(m, GetParam());
  }
}

INSTANTIATE_STORAGES(SplitSliceOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
