// The GPU Deconv2D against the CPU reference in both storages: strides,
// dilations, SAME/VALID/explicit padding, output padding, channels not a
// multiple of 4, W = 1, H = 1, batch > 1, an output wider than one
// work-group; grouped deconvolutions fall back to the CPU.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

struct DeconvCase {
  std::vector<int64_t> input;   // NCHW
  std::vector<int64_t> filter;  // [I, O, KH, KW]
  std::vector<int64_t> strides = {1, 1};
  int padding = 0;              // 0 VALID, 1 SAME
  std::vector<int64_t> pads;    // explicit [top, left, bottom, right]
  bool bias = true;
  std::string activation = "NOOP";
};

void Build(OpModel* m, const DeconvCase& c) {
  m->AddWeight("w", c.filter, 3);
  if (c.bias) m->AddWeight("b", {c.filter[1]}, 4);
  AddInts(m->op, "strides", c.strides);
  if (!c.pads.empty()) {
    AddInts(m->op, "pads", c.pads);
  } else {
    ModelBuilder::SetInt(m->op, "padding", c.padding);
  }
  if (c.activation != "NOOP") ModelBuilder::SetString(m->op, "activation", c.activation);
}

using Deconv2DOpenCLTest = GpuOpTest;

TEST_P(Deconv2DOpenCLTest, MatchesTheCpuReference) {
  std::vector<DeconvCase> cases;
  cases.push_back({{2, 3, 3, 4}, {3, 5, 3, 3}, {2, 2}});
  cases.push_back({{1, 6, 1, 1}, {6, 4, 2, 2}, {2, 2}});
  cases.back().bias = false;
  cases.push_back({{1, 5, 4, 1}, {5, 7, 3, 1}, {1, 1}, 1});
  cases.back().activation = "RELU";
  cases.push_back({{1, 4, 2, 9}, {4, 9, 4, 4}, {2, 2}});
  cases.back().pads = {1, 1, 1, 1};
  cases.push_back({{1, 2, 3, 3}, {2, 3, 3, 3}, {3, 2}, 1});
  for (const DeconvCase& c : cases) {
    SCOPED_TRACE(ShapeName(c.input) + " filter " + ShapeName(c.filter));
    OpModel m("Deconv2D", c.input, c.bias ? std::vector<std::string>{"w", "b"}
                                          : std::vector<std::string>{"w"});
    Build(&m, c);
    ExpectOpOnGpu(m, GetParam());
  }
}

TEST_P(Deconv2DOpenCLTest, GroupedDeconvolutionRunsOnTheCpu) {
  OpModel m("Deconv2D", {1, 4, 3, 3}, {"w"});
  DeconvCase c{{1, 4, 3, 3}, {4, 3, 3, 3}, {2, 2}};
  c.bias = false;
  Build(&m, c);
  ModelBuilder::SetInt(m.op, "group", 2);
  std::vector<std::string> ops;
  ExpectGpuMatchesCpu(m.model, m.input_shape, GetParam(), &ops);
  EXPECT_EQ(ops, std::vector<std::string>({"Deconv2D"}));
}

INSTANTIATE_STORAGES(Deconv2DOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
