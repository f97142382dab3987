// The GPU DepthwiseConv2d against the CPU's reference kernel, through whole
// engines, in both storages: channels not a multiple of 4, multipliers 1
// and 3, W = 1, H = 1, batch > 1, stride, dilation, SAME and explicit
// padding, fused bias and activation.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

using testing::ModelBuilder;

struct DepthwiseCase {
  std::string name;
  std::vector<int64_t> input;   // NCHW
  std::vector<int64_t> filter;  // [multiplier, channels, kh, kw]
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;    // explicit, else SAME
  bool bias;
  std::string activation;
};

ModelBuilder DepthwiseModel(const DepthwiseCase& c) {
  ModelBuilder model = testing::ModelWithInput(c.input);
  model.AddWeight("w", c.filter, testing::RandomValues(testing::Count(c.filter), 12));
  std::vector<std::string> inputs = {"x", "w"};
  if (c.bias) {
    const int64_t out_channels = c.filter[0] * c.filter[1];
    model.AddWeight("b", {out_channels}, testing::RandomValues(out_channels, 13));
    inputs.push_back("b");
  }
  OperatorDef* op = model.AddOp("DepthwiseConv2d", "dw", inputs, "y");
  testing::AddInts(op, "strides", c.strides);
  testing::AddInts(op, "dilations", c.dilations);
  if (c.pads.empty()) {
    ModelBuilder::SetInt(op, "padding", 1);
  } else {
    testing::AddInts(op, "pads", c.pads);
  }
  if (c.activation != "NOOP") ModelBuilder::SetString(op, "activation", c.activation);
  return model;
}

class DepthwiseConv2dOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(DepthwiseConv2dOpenCLTest, MatchesTheCpuReference) {
  const std::vector<DepthwiseCase> cases = {
      {"3x3_same_c6_batch2", {2, 6, 5, 7}, {1, 6, 3, 3}, {1, 1}, {1, 1}, {}, true, "RELUX"},
      {"3x3_stride2_c5", {1, 5, 9, 8}, {1, 5, 3, 3}, {2, 2}, {1, 1}, {}, true, "RELU"},
      {"multiplier3_c3", {1, 3, 4, 5}, {3, 3, 3, 3}, {1, 1}, {1, 1}, {}, true, "NOOP"},
      {"w1_dilation2_pads", {1, 4, 7, 1}, {1, 4, 3, 3}, {1, 1}, {2, 1}, {2, 1, 2, 1}, false,
       "TANH"},
      {"h1_5x1", {3, 9, 1, 6}, {2, 9, 1, 5}, {1, 2}, {1, 1}, {0, 2, 0, 2}, true, "SIGMOID"},
  };
  for (const DepthwiseCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> ops;
    testing::ExpectGpuMatchesCpu(DepthwiseModel(c), c.input, GetParam(), &ops);
    EXPECT_EQ(ops, std::vector<std::string>({"BufferToImage", "DepthwiseConv2d", "ImageToBuffer"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Storages, DepthwiseConv2dOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
