// The GPU Reshape, Squeeze and Identity against the CPU reference in both
// storages: changes of rank and of channel count (so the images' layouts
// differ), -1 and 0 in the shape, channels not a multiple of 4.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

using ReshapeOpenCLTest = GpuOpTest;

TEST_P(ReshapeOpenCLTest, Reshape) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{2, 6, 3, 5}, {2, 5, 18}},   {{1, 7, 2, 3}, {-1, 6}}, {{2, 3, 4, 5}, {0, 0, 20, 1}},
      {{3, 10}, {3, 2, 5, 1}},      {{1, 5, 1, 1}, {5}},     {{2, 9, 1, 2}, {2, 2, 9, 1}},
      {{1, 4, 3, 9}, {1, 9, 3, 4}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(ShapeName(c.first) + " to " + ShapeName(c.second));
    OpModel m("Reshape", c.first);
    AddInts(m.op, "shape", c.second);
    ExpectOpOnGpu(m, GetParam());
  }
}

TEST_P(ReshapeOpenCLTest, SqueezeAndIdentity) {
  {
    OpModel m("Squeeze", {2, 1, 5, 1});
    ExpectOpOnGpu(m, GetParam());
  }
  {
    OpModel m("Squeeze", {1, 6, 1, 3});
    AddInts(m.op, "axis", {2});
    ExpectOpOnGpu(m, GetParam());
  }
  {
    OpModel m("Identity", {2, 7, 3, 2});
    ExpectOpOnGpu(m, GetParam());
  }
}

// An output recorded as rank 5 cannot be an image: the op is declined at
// placement and runs on the CPU.
TEST_P(ReshapeOpenCLTest, RankFiveOutputRunsOnTheCpu) {
  OpModel m("Reshape", {2, 6, 3, 5});
  AddInts(m.op, "shape", {2, 3, 2, 3, 5});
  OutputShape* shape = m.op->add_output_shape();
  for (int64_t d : {2, 3, 2, 3, 5}) shape->add_dims(d);
  std::vector<std::string> ops;
  ExpectGpuMatchesCpu(m.model, m.input_shape, GetParam(), &ops);
  EXPECT_EQ(ops, std::vector<std::string>({"Reshape"}));
}

INSTANTIATE_STORAGES(ReshapeOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
