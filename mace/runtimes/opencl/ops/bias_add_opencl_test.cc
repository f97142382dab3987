// The GPU BiasAdd against the CPU reference in both storages: ranks 2 to
// 4, channels not a multiple of 4, W = 1, H = 1, batch > 1, an image wider
// than one work-group, with and without a fused activation.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_op_test.h"

namespace mace {
namespace testing {
namespace {

using BiasAddOpenCLTest = GpuOpTest;

TEST_P(BiasAddOpenCLTest, MatchesTheCpuReference) {
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 5, 3, 4}, {1, 3, 1, 9}, {3, 6, 4, 1}, {2, 7}, {1, 9, 2}, {1, 8, 2, 11}};
  for (const std::vector<int64_t>& shape : shapes) {
    for (const char* activation : {"NOOP", "SIGMOID"}) {
      SCOPED_TRACE(ShapeName(shape) + " " + activation);
      OpModel m("BiasAdd", shape, {"bias"});
      m.AddWeight("bias", {shape[1]}, 6);
      ModelBuilder::SetString(m.op, "activation", activation);
      ExpectOpOnGpu(m, GetParam());
    }
  }
}

// BiasAdd then BatchNorm, image to image: the intermediate dies at the
// BatchNorm, which still writes a separate image.
TEST_P(BiasAddOpenCLTest, ChainedWithBatchNorm) {
  const std::vector<int64_t> shape = {2, 6, 3, 5};
  ModelBuilder model = ModelWithInput(shape);
  model.AddWeight("bias", {6}, RandomValues(6, 1));
  model.AddWeight("scale", {6}, RandomValues(6, 2));
  model.AddWeight("offset", {6}, RandomValues(6, 3));
  OperatorDef* bias_add = model.AddOp("BiasAdd", "bias_add", {"x", "bias"}, "h");
  ModelBuilder::SetString(bias_add, "activation", "RELU");
  model.AddOp("BatchNorm", "batch_norm", {"h", "scale", "offset"}, "y");
  std::vector<std::string> ops;
  ExpectGpuMatchesCpu(model, shape, GetParam(), &ops);
  EXPECT_EQ(ops, std::vector<std::string>(
                     {"BufferToImage", "BiasAdd", "BatchNorm", "ImageToBuffer"}));
}

INSTANTIATE_STORAGES(BiasAddOpenCLTest);

}  // namespace
}  // namespace testing
}  // namespace mace
