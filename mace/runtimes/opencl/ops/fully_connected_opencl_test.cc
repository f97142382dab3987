// The GPU FullyConnected against the CPU's reference kernel in both
// storages: rank-4 and rank-2 inputs, features not a multiple of 4,
// batch > 1, with and without bias and activation.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

using testing::ModelBuilder;

class FullyConnectedOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(FullyConnectedOpenCLTest, MatchesTheCpuReference) {
  const std::vector<std::vector<int64_t>> inputs = {{2, 5, 3, 2}, {3, 13}, {1, 4, 1, 1}};
  for (const std::vector<int64_t>& shape : inputs) {
    for (bool bias : {false, true}) {
      SCOPED_TRACE("rank " + std::to_string(shape.size()) + (bias ? " bias" : ""));
      const int64_t features = testing::Count(shape) / shape[0];
      const int64_t out = 7;
      ModelBuilder model = testing::ModelWithInput(shape);
      model.AddWeight("w", {out, features}, testing::RandomValues(out * features, 41));
      std::vector<std::string> operands = {"x", "w"};
      if (bias) {
        model.AddWeight("b", {out}, testing::RandomValues(out, 42));
        operands.push_back("b");
      }
      OperatorDef* op = model.AddOp("FullyConnected", "fc", operands, "y");
      if (bias) ModelBuilder::SetString(op, "activation", "RELU");
      std::vector<std::string> ops;
      testing::ExpectGpuMatchesCpu(model, shape, GetParam(), &ops);
      EXPECT_EQ(ops,
                std::vector<std::string>({"BufferToImage", "FullyConnected", "ImageToBuffer"}));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Storages, FullyConnectedOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
