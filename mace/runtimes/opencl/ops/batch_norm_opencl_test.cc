// The GPU BatchNorm against the CPU reference in both storages: with the
// statistics and folded, ranks 2 to 4, channels not a multiple of 4,
// W = 1, H = 1, batch > 1, an image wider than one work-group.
#include <cmath>
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

using BatchNormOpenCLTest = GpuOpTest;

TEST_P(BatchNormOpenCLTest, MatchesTheCpuReference) {
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 5, 3, 4}, {1, 3, 1, 9}, {3, 6, 4, 1}, {2, 7}, {1, 9, 2}, {1, 8, 2, 11}};
  for (const std::vector<int64_t>& shape : shapes) {
    for (bool folded : {false, true}) {
      SCOPED_TRACE(ShapeName(shape) + (folded ? " folded" : " with statistics"));
      const int64_t channels = shape[1];
      std::vector<std::string> weights = {"scale", "offset"};
      if (!folded) weights.insert(weights.end(), {"mean", "var"});
      OpModel m("BatchNorm", shape, weights);
      m.AddWeight("scale", {channels}, 1);
      m.AddWeight("offset", {channels}, 2);
      if (!folded) {
        m.AddWeight("mean", {channels}, 3);
        std::vector<float> var = RandomValues(channels, 4);
        for (float& v : var) v = std::fabs(v) + 0.1f;
        m.model.AddWeight("var", {channels}, var);
        SetFloat(m.op, "epsilon", 1e-3f);
      }
      ModelBuilder::SetString(m.op, "activation", folded ? "RELU" : "LEAKYRELU");
      SetFloat(m.op, "activation_coefficient", 0.1f);
      ExpectOpOnGpu(m, GetParam());
    }
  }
}

INSTANTIATE_STORAGES(BatchNormOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
