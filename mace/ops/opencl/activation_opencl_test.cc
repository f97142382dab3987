// The GPU Activation against the CPU's reference kernel, through whole
// engines, in both storages: every kind (PRELU with per-channel slopes),
// channels not a multiple of 4, ranks 2, 3 and 4, batch > 1.
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

using testing::ModelBuilder;

ModelBuilder ActivationModel(const std::vector<int64_t>& shape, const std::string& kind) {
  ModelBuilder model = testing::ModelWithInput(shape);
  std::vector<std::string> inputs = {"x"};
  if (kind == "PRELU") {
    model.AddWeight("alpha", {shape[1]}, testing::RandomValues(shape[1], 9));
    inputs.push_back("alpha");
  }
  OperatorDef* op = model.AddOp("Activation", "act", inputs, "y");
  ModelBuilder::SetString(op, "activation", kind);
  if (kind == "RELUX") {
    Argument* arg = op->add_arg();
    arg->set_name("activation_max_limit");
    arg->set_f(0.75f);
  }
  if (kind == "LEAKYRELU") {
    Argument* arg = op->add_arg();
    arg->set_name("activation_coefficient");
    arg->set_f(0.1f);
  }
  return model;
}

class ActivationOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(ActivationOpenCLTest, MatchesTheCpuReference) {
  const std::vector<std::vector<int64_t>> shapes = {{2, 5, 3, 7}, {1, 3, 1, 1}, {3, 6}, {2, 5, 4}};
  for (const std::string kind : {"RELU", "RELUX", "LEAKYRELU", "PRELU", "SIGMOID", "TANH",
                                 "HARDSWISH", "HARDSIGMOID"}) {
    for (const std::vector<int64_t>& shape : shapes) {
      SCOPED_TRACE(kind + " rank " + std::to_string(shape.size()));
      const ModelBuilder model = ActivationModel(shape, kind);
      std::shared_ptr<MaceEngine> cpu, gpu;
      ASSERT_TRUE(model.CreateEngine({}, {}, testing::ReferenceCpuConfig(), &cpu).ok());
      const MaceStatus status = model.CreateEngine({}, {}, testing::GpuConfig(GetParam()), &gpu);
      ASSERT_TRUE(status.ok()) << status.ToString();
      const std::map<std::string, MaceTensor> inputs = {
          {"x", testing::MakeTensor(shape, testing::RandomValues(testing::Count(shape), 4, 3.f))}};
      RunMetadata metadata;
      const std::vector<float> expected = testing::RunEngine(cpu.get(), inputs, "y");
      const std::vector<float> got = testing::RunEngine(gpu.get(), inputs, "y", &metadata);
      testing::ExpectNear(got, expected, testing::Tolerance(GetParam()));
      ASSERT_EQ(metadata.op_stats.size(), 3u);
      EXPECT_EQ(metadata.op_stats[1].type, "Activation");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Storages, ActivationOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
