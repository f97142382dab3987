// The GPU BatchNorm (folded and with statistics) and BiasAdd against the
// CPU's reference kernels in both storages, at ranks 2, 3 and 4 with
// channels not a multiple of 4, with and without a fused activation.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

using testing::ModelBuilder;

class ChannelAffineOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(ChannelAffineOpenCLTest, BatchNormAndBiasAddMatchTheCpu) {
  const std::vector<std::vector<int64_t>> shapes = {{2, 5, 3, 4}, {3, 6}, {2, 7, 5}};
  for (const std::vector<int64_t>& shape : shapes) {
    const int64_t channels = shape[1];
    for (const std::string op_type : {"BatchNorm", "FoldedBatchNorm", "BiasAdd"}) {
      SCOPED_TRACE(op_type + " rank " + std::to_string(shape.size()));
      ModelBuilder model = testing::ModelWithInput(shape);
      model.AddWeight("scale", {channels}, testing::RandomValues(channels, 31));
      model.AddWeight("offset", {channels}, testing::RandomValues(channels, 32));
      std::vector<float> var = testing::RandomValues(channels, 34);
      for (float& v : var) v = v * v + 0.1f;
      model.AddWeight("mean", {channels}, testing::RandomValues(channels, 33));
      model.AddWeight("var", {channels}, var);
      OperatorDef* op = nullptr;
      if (op_type == "BiasAdd") {
        op = model.AddOp("BiasAdd", "op", {"x", "offset"}, "y");
      } else if (op_type == "FoldedBatchNorm") {
        op = model.AddOp("BatchNorm", "op", {"x", "scale", "offset"}, "y");
      } else {
        op = model.AddOp("BatchNorm", "op", {"x", "scale", "offset", "mean", "var"}, "y");
      }
      ModelBuilder::SetString(op, "activation", "RELU");
      std::vector<std::string> ops;
      testing::ExpectGpuMatchesCpu(model, shape, GetParam(), &ops);
      EXPECT_EQ(ops, std::vector<std::string>(
                         {"BufferToImage", op == nullptr ? "" : op->type(), "ImageToBuffer"}));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Storages, ChannelAffineOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
