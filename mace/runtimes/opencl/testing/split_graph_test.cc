// A graph split between the GPU and the CPU: the op the GPU lacks falls
// back to the CPU with converters exactly where the storages meet, the
// outputs match the CPU reference in both storages, and the GPU's images
// get their own memory plan.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/split_model.h"

namespace mace {
namespace {

class SplitGraphTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(SplitGraphTest, MatchesTheCpuWithConvertersWhereRuntimesMeet) {
  const testing::ModelBuilder model = testing::SplitModel();
  std::shared_ptr<MaceEngine> cpu, gpu;
  ASSERT_TRUE(model.CreateEngine({}, {}, testing::ReferenceCpuConfig(), &cpu).ok());
  const MaceStatus status = model.CreateEngine({}, {}, testing::GpuConfig(GetParam()), &gpu);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<int64_t>& shape = testing::SplitModelInputShape();
  for (uint32_t seed : {1u, 2u}) {
    const std::map<std::string, MaceTensor> inputs = {
        {"x", testing::MakeTensor(shape, testing::RandomValues(2 * 5 * 6 * 7, seed, 2.f))}};
    RunMetadata metadata;
    const std::vector<float> expected = testing::RunEngine(cpu.get(), inputs, "y");
    const std::vector<float> got = testing::RunEngine(gpu.get(), inputs, "y", &metadata);
    testing::ExpectNear(got, expected, testing::Tolerance(GetParam()));
    std::vector<std::string> types;
    for (const OperatorStats& stats : metadata.op_stats) types.push_back(stats.type);
    EXPECT_EQ(types, std::vector<std::string>({"BufferToImage", "Conv2D", "ImageToBuffer",
                                               "Transpose", "BufferToImage", "Conv2D",
                                               "ImageToBuffer"}));
  }
}

TEST_P(SplitGraphTest, ImagesArePlannedOnTheirOwn) {
  std::shared_ptr<MaceEngine> gpu;
  ASSERT_TRUE(
      testing::SplitModel().CreateEngine({}, {}, testing::GpuConfig(GetParam()), &gpu).ok());
  MemoryReport report;
  ASSERT_TRUE(gpu->GetMemoryReport(&report).ok());
  std::map<std::string, MemoryTypeReport> by_type;
  for (const MemoryTypeReport& type : report.memory_types) by_type[type.memory_type] = type;
  ASSERT_EQ(by_type.count("GPU_IMAGE"), 1u);
  const MemoryTypeReport& images = by_type["GPU_IMAGE"];
  EXPECT_EQ(images.runtime, "GPU");
  const int64_t pixel = GetParam() == GPUDataType::FP16_FP32 ? 8 : 16;
  // x and a live together at conv1 ([2*6, 2*6] and [2*7, 2*6] pixels); b
  // and y at conv2 ([2*7, 12] and [1*7, 12]).
  EXPECT_EQ(images.lower_bound_bytes, (2 * 7 + 2 * 7) * 12 * pixel);
  EXPECT_GE(images.bytes, images.lower_bound_bytes);
  EXPECT_LE(images.bytes, images.naive_bytes);
  EXPECT_EQ(images.naive_bytes, (2 * 7 + 2 * 7 + 2 * 7 + 7) * 12 * pixel);
  // The weight images and the staging buffer of the converters.
  EXPECT_EQ(report.persistent_bytes, (5 * 2 * 9 + 2 + 6 * 1) * pixel);
  EXPECT_GT(report.scratch_bytes, 0);
}

// A small MobileNet-like network of ops the GPU has runs on the GPU from
// the input's conversion to the output's, and matches the CPU.
TEST_P(SplitGraphTest, ANetworkOfGpuOpsNeedsOnlyTheEndConverters) {
  using testing::ModelBuilder;
  ModelBuilder model = testing::ModelWithInput({2, 3, 12, 10});
  model.AddWeight("w1", {8, 3, 3, 3}, testing::RandomValues(8 * 3 * 9, 51));
  model.AddWeight("scale", {8}, testing::RandomValues(8, 52));
  model.AddWeight("offset", {8}, testing::RandomValues(8, 53));
  model.AddWeight("dw", {1, 8, 3, 3}, testing::RandomValues(8 * 9, 54));
  model.AddWeight("w2", {8, 8, 1, 1}, testing::RandomValues(64, 55));
  model.AddWeight("fc", {5, 8}, testing::RandomValues(40, 56));
  OperatorDef* conv = model.AddOp("Conv2D", "conv1", {"x", "w1"}, "c1");
  testing::AddInts(conv, "strides", {2, 2});
  ModelBuilder::SetInt(conv, "padding", 1);
  ModelBuilder::SetString(model.AddOp("BatchNorm", "bn", {"c1", "scale", "offset"}, "b1"),
                          "activation", "RELUX");
  OperatorDef* dw = model.AddOp("DepthwiseConv2d", "dw", {"b1", "dw"}, "d1");
  ModelBuilder::SetInt(dw, "padding", 1);
  ModelBuilder::SetString(dw, "activation", "RELU");
  model.AddOp("Conv2D", "conv2", {"d1", "w2"}, "c2");
  ModelBuilder::SetInt(model.AddOp("Eltwise", "add", {"c2", "b1"}, "s"), "type", 0);
  ModelBuilder::SetInt(model.AddOp("Pooling", "pool", {"s"}, "p"), "global", 1);
  model.AddOp("FullyConnected", "fc", {"p", "fc"}, "f");
  model.AddOp("Softmax", "softmax", {"f"}, "y");
  std::vector<std::string> ops;
  testing::ExpectGpuMatchesCpu(model, {2, 3, 12, 10}, GetParam(), &ops);
  EXPECT_EQ(ops, std::vector<std::string>({"BufferToImage", "Conv2D", "BatchNorm",
                                           "DepthwiseConv2d", "Conv2D", "Eltwise", "Pooling",
                                           "FullyConnected", "Softmax", "ImageToBuffer"}));
}

// Placement sees the shapes: a convolution whose input image would be
// wider than any device allows (2 * 8200 pixels, above 16384) runs on the
// CPU, and the narrower op after it on the GPU, with the CPU's outputs.
TEST_P(SplitGraphTest, AnInputTooWideForAnImageFallsBackToTheCpu) {
  testing::ModelBuilder model = testing::ModelWithInput({1, 8, 2, 8200});
  model.AddWeight("w", {4, 8, 1, 1}, testing::RandomValues(4 * 8, 71));
  OperatorDef* conv = model.AddOp("Conv2D", "conv", {"x", "w"}, "c");
  testing::AddInts(conv, "strides", {2, 2});
  testing::ModelBuilder::SetString(model.AddOp("Activation", "relu", {"c"}, "y"), "activation",
                                   "RELU");
  std::vector<std::string> ops;
  testing::ExpectGpuMatchesCpu(model, {1, 8, 2, 8200}, GetParam(), &ops);
  EXPECT_EQ(ops, std::vector<std::string>(
                     {"Conv2D", "BufferToImage", "Activation", "ImageToBuffer"}));
  // The CPU convolution reads its filter at every run: the host weights stay.
  std::shared_ptr<MaceEngine> gpu;
  ASSERT_TRUE(model.CreateEngine({}, {}, testing::GpuConfig(GetParam()), &gpu).ok());
  MemoryReport report;
  ASSERT_TRUE(gpu->GetMemoryReport(&report).ok());
  EXPECT_EQ(report.weights_bytes, 4 * 8 * static_cast<int64_t>(sizeof(float)));
}

// Weights are arranged and uploaded at Init through buffers that are freed
// right after: what stays is the weight images (persistent) and the
// converters' staging buffer, sized for the largest converted activation,
// not for the largest weight. No CPU kernel reads the weights, so their
// host copy is gone too.
TEST_P(SplitGraphTest, NoUploadCopyOutlivesInit) {
  testing::ModelBuilder model = testing::ModelWithInput({1, 64, 1, 1});
  model.AddWeight("w", {256, 64}, testing::RandomValues(256 * 64, 61));
  model.AddOp("FullyConnected", "fc", {"x", "w"}, "y");
  std::shared_ptr<MaceEngine> gpu;
  const MaceStatus status = model.CreateEngine({}, {}, testing::GpuConfig(GetParam()), &gpu);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const int64_t pixel = GetParam() == GPUDataType::FP16_FP32 ? 8 : 16;
  const int64_t weight_image = (64 / 4) * 256 * pixel;
  const int64_t largest_activation = 256 * static_cast<int64_t>(sizeof(float));
  MemoryReport report;
  ASSERT_TRUE(gpu->GetMemoryReport(&report).ok());
  EXPECT_EQ(report.persistent_bytes, weight_image);
  EXPECT_EQ(report.scratch_bytes, largest_activation);
  EXPECT_EQ(report.weights_bytes, 0);
  testing::ExpectGpuMatchesCpu(model, {1, 64, 1, 1}, GetParam());
}

// Every weight went to the GPU at Init, so the engine keeps no mapping of
// the weights file: the file may then change, and Run neither reads it nor
// checks it.
TEST_P(SplitGraphTest, AGpuEngineDropsTheMappedWeightsFileOnceUploaded) {
  testing::ModelBuilder model = testing::ModelWithInput({1, 64, 1, 1});
  model.AddWeight("w", {256, 64}, testing::RandomValues(256 * 64, 61));
  model.AddOp("FullyConnected", "fc", {"x", "w"}, "y");
  const std::string path =
      ::testing::TempDir() + "/split_graph_fc_" + testing::StorageName(GetParam()) + ".data";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << model.data;
  const std::string graph = model.Graph();
  std::shared_ptr<MaceEngine> cpu, gpu;
  ASSERT_TRUE(model.CreateEngine({}, {}, testing::ReferenceCpuConfig(), &cpu).ok());
  const MaceStatus status =
      CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()), graph.size(),
                                path, {}, {}, testing::GpuConfig(GetParam()), &gpu);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(truncate(path.c_str(), 0), 0);
  const std::map<std::string, MaceTensor> inputs = {
      {"x", testing::MakeTensor({1, 64, 1, 1}, testing::RandomValues(64, 5, 2.f))}};
  testing::ExpectNear(testing::RunEngine(gpu.get(), inputs, "y"),
                      testing::RunEngine(cpu.get(), inputs, "y"), testing::Tolerance(GetParam()));
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Storages, SplitGraphTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
