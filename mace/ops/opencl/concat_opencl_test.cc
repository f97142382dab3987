// The GPU Concat against the CPU in both storages: every axis of ranks 1
// to 4, channel counts that are not a multiple of 4 (so one output pixel
// takes lanes from several inputs), more inputs than one launch takes, and
// constant inputs.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

using testing::ModelBuilder;

class ConcatOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

// x [2, 3, 4, 5] -> 1x1 convolutions to 1, 2, 3, 5 and 6 channels, RELU of
// x, and a constant of 3 channels, concatenated along the channels.
TEST_P(ConcatOpenCLTest, ChannelsOfAnyCountFromSevenInputs) {
  const std::vector<int64_t> shape = {2, 3, 4, 5};
  ModelBuilder model = testing::ModelWithInput(shape);
  std::vector<std::string> inputs;
  uint32_t seed = 60;
  for (int64_t channels : {1, 2, 3, 5, 6}) {
    const std::string name = "c" + std::to_string(channels);
    model.AddWeight(name + "_w", {channels, 3, 1, 1}, testing::RandomValues(channels * 3, ++seed));
    model.AddOp("Conv2D", name, {"x", name + "_w"}, name);
    inputs.push_back(name);
  }
  ModelBuilder::SetString(model.AddOp("Activation", "relu", {"x"}, "r"), "activation", "RELU");
  inputs.insert(inputs.begin() + 2, "r");
  model.AddWeight("k", {2, 3, 4, 5}, testing::RandomValues(120, 70));
  inputs.push_back("k");
  model.AddOp("Concat", "concat", inputs, "y");
  std::vector<std::string> ops;
  testing::ExpectGpuMatchesCpu(model, shape, GetParam(), &ops);
  EXPECT_EQ(ops[ops.size() - 2], "Concat");
  EXPECT_EQ(ops.back(), "ImageToBuffer");
}

TEST_P(ConcatOpenCLTest, EveryAxisOfEveryRank) {
  const std::vector<std::vector<int64_t>> shapes = {{6}, {3, 5}, {2, 3, 4}, {2, 5, 3, 2}};
  for (const std::vector<int64_t>& shape : shapes) {
    const int rank = static_cast<int>(shape.size());
    for (int axis = -rank; axis < rank; ++axis) {
      SCOPED_TRACE("rank " + std::to_string(rank) + " axis " + std::to_string(axis));
      ModelBuilder model = testing::ModelWithInput(shape);
      ModelBuilder::SetString(model.AddOp("Activation", "tanh", {"x"}, "t"), "activation",
                              "TANH");
      std::vector<int64_t> constant = shape;
      constant[axis < 0 ? axis + rank : axis] = 3;
      model.AddWeight("k", constant, testing::RandomValues(testing::Count(constant), 71));
      ModelBuilder::SetInt(model.AddOp("Concat", "concat", {"x", "k", "t", "x", "t"}, "y"),
                           "axis", axis);
      std::vector<std::string> ops;
      testing::ExpectGpuMatchesCpu(model, shape, GetParam(), &ops);
      EXPECT_EQ(ops[ops.size() - 2], "Concat");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Storages, ConcatOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
