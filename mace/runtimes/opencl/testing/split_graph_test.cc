// A graph split between the GPU and the CPU: the op the GPU lacks falls
// back to the CPU with converters exactly where the storages meet, the
// outputs match the CPU reference in both storages, and the GPU's images
// get their own memory plan.
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

INSTANTIATE_TEST_SUITE_P(Storages, SplitGraphTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
