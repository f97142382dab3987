// The GPU FullyConnected against the CPU reference in both storages: rank-2
// and rank-4 inputs, features not a multiple of 4, batch > 1, with and
// without bias, fused activations.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

struct FcCase {
  std::vector<int64_t> input;
  int64_t out_features;
  bool bias;
  std::string activation;
};

using FullyConnectedOpenCLTest = GpuOpTest;

TEST_P(FullyConnectedOpenCLTest, MatchesTheCpuReference) {
  const std::vector<FcCase> cases = {
      {{1, 7}, 5, true, "NOOP"},         {{3, 10}, 18, false, "RELU"},
      {{2, 3, 2, 5}, 9, true, "TANH"},   {{1, 8, 1, 1}, 4, true, "RELUX"},
      {{2, 5, 3, 1}, 70, true, "NOOP"},  {{1, 1, 1, 1}, 1, false, "NOOP"},
      // A weight of 4 x 9000: wider than any Conv2D-filter layout allows
      // (PoCL's largest image here is 8192 pixels).
      {{1, 9000}, 4, true, "NOOP"},
  };
  for (const FcCase& c : cases) {
    SCOPED_TRACE(ShapeName(c.input) + " to " + std::to_string(c.out_features));
    const int64_t features = Count(c.input) / c.input[0];
    std::vector<std::string> weights = {"w"};
    if (c.bias) weights.push_back("b");
    OpModel m("FullyConnected", c.input, weights);
    m.AddWeight("w", {c.out_features, features}, 3);
    if (c.bias) m.AddWeight("b", {c.out_features}, 4);
    if (c.activation != "NOOP") ModelBuilder::SetString(m.op, "activation", c.activation);
    ExpectOpOnGpu(m, GetParam());
  }
}

INSTANTIATE_STORAGES(FullyConnectedOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
