// The GPU Pooling against the CPU's reference kernel in both storages: max
// and average, global, SAME and explicit padding with ceil_mode and
// count_include_pad, stride, dilation, channels not a multiple of 4, W = 1,
// H = 1, batch > 1; LP pooling, which the GPU kernel refuses, on the CPU.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

using testing::ModelBuilder;

struct PoolCase {
  std::string name;
  std::vector<int64_t> input;
  bool global;
  std::vector<int64_t> kernels, strides, dilations, pads;  // pads empty: SAME
  int ceil_mode, count_include_pad;
};

class PoolingOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(PoolingOpenCLTest, MatchesTheCpuReference) {
  const std::vector<PoolCase> cases = {
      {"3x3_s2_same_c5", {2, 5, 7, 9}, false, {3, 3}, {2, 2}, {1, 1}, {}, 0, 0},
      {"2x2_s2_valid_ceil", {1, 6, 5, 5}, false, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, 1, 0},
      {"3x3_pads_include", {1, 3, 4, 6}, false, {3, 3}, {1, 2}, {1, 1}, {1, 1, 1, 1}, 1, 1},
      {"dilated_w1", {3, 4, 7, 1}, false, {3, 1}, {1, 1}, {2, 1}, {2, 0, 2, 0}, 0, 0},
      {"global_h1", {2, 9, 1, 6}, true, {}, {}, {}, {}, 0, 0},
      {"global_7x7", {1, 8, 7, 7}, true, {}, {}, {}, {}, 0, 0},
  };
  for (const PoolCase& c : cases) {
    for (int type : {1, 2}) {
      SCOPED_TRACE(c.name + (type == 1 ? " AVG" : " MAX"));
      ModelBuilder model = testing::ModelWithInput(c.input);
      OperatorDef* op = model.AddOp("Pooling", "pool", {"x"}, "y");
      ModelBuilder::SetInt(op, "pooling_type", type);
      if (c.global) {
        ModelBuilder::SetInt(op, "global", 1);
      } else {
        testing::AddInts(op, "kernels", c.kernels);
        testing::AddInts(op, "strides", c.strides);
        testing::AddInts(op, "dilations", c.dilations);
        if (c.pads.empty()) {
          ModelBuilder::SetInt(op, "padding", 1);
        } else {
          testing::AddInts(op, "pads", c.pads);
        }
        ModelBuilder::SetInt(op, "ceil_mode", c.ceil_mode);
        ModelBuilder::SetInt(op, "count_include_pad", c.count_include_pad);
      }
      std::vector<std::string> ops;
      testing::ExpectGpuMatchesCpu(model, c.input, GetParam(), &ops);
      EXPECT_EQ(ops, std::vector<std::string>({"BufferToImage", "Pooling", "ImageToBuffer"}));
    }
  }
}

// The GPU kernel refuses LP pooling when prepared: the op runs on the CPU
// with the reference result, and no converter is left behind.
TEST_P(PoolingOpenCLTest, RefusedLpPoolingRunsOnTheCpu) {
  ModelBuilder model = testing::ModelWithInput({1, 3, 4, 4});
  OperatorDef* op = model.AddOp("Pooling", "pool", {"x"}, "y");
  ModelBuilder::SetInt(op, "pooling_type", 3);
  ModelBuilder::SetInt(op, "p", 2);
  testing::AddInts(op, "kernels", {2, 2});
  testing::AddInts(op, "strides", {2, 2});
  std::vector<std::string> ops;
  testing::ExpectGpuMatchesCpu(model, {1, 3, 4, 4}, GetParam(), &ops);
  EXPECT_EQ(ops, std::vector<std::string>({"Pooling"}));
}

INSTANTIATE_TEST_SUITE_P(Storages, PoolingOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
