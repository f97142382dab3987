// The GPU Softmax against the CPU's reference kernel in both storages:
// every axis of ranks 1 to 4 (negative axes too), log-softmax, channels
// not a multiple of 4, batch > 1.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

class SoftmaxOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(SoftmaxOpenCLTest, MatchesTheCpuReference) {
  const std::vector<std::vector<int64_t>> shapes = {{7}, {3, 10}, {2, 5, 3}, {2, 6, 3, 5}};
  for (const std::vector<int64_t>& shape : shapes) {
    const int64_t rank = static_cast<int64_t>(shape.size());
    for (int64_t axis = -rank; axis < rank; ++axis) {
      for (int64_t use_log : {0, 1}) {
        SCOPED_TRACE("rank " + std::to_string(rank) + " axis " + std::to_string(axis) +
                     " use_log " + std::to_string(use_log));
        testing::ModelBuilder model = testing::ModelWithInput(shape);
        OperatorDef* op = model.AddOp("Softmax", "softmax", {"x"}, "y");
        testing::ModelBuilder::SetInt(op, "axis", axis);
        testing::ModelBuilder::SetInt(op, "use_log", use_log);
        std::vector<std::string> ops;
        testing::ExpectGpuMatchesCpu(model, shape, GetParam(), &ops);
        EXPECT_EQ(ops, std::vector<std::string>({"BufferToImage", "Softmax", "ImageToBuffer"}));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Storages, SoftmaxOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
