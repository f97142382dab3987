// The GPU LocalResponseNorm against the CPU reference in both storages:
// radii from 0 past the channel count, channels not a multiple of 4,
// W = 1, H = 1, batch > 1.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

using LocalResponseNormOpenCLTest = GpuOpTest;

TEST_P(LocalResponseNormOpenCLTest, MatchesTheCpuReference) {
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{2, 7, 3, 4}, 2}, {{1, 5, 1, 9}, 0}, {{1, 9, 4, 1}, 12}, {{1, 16, 2, 5}, 5}};
  for (const auto& c : cases) {
    SCOPED_TRACE(ShapeName(c.first) + " radius " + std::to_string(c.second));
    OpModel m("LocalResponseNorm", c.first);
    ModelBuilder::SetInt(m.op, "depth_radius", c.second);
    SetFloat(m.op, "bias", 1.5f);
    SetFloat(m.op, "alpha", 0.3f);
    SetFloat(m.op, "beta", 0.75f);
    ExpectOpOnGpu(m, GetParam());
  }
}

INSTANTIATE_STORAGES(LocalResponseNormOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
