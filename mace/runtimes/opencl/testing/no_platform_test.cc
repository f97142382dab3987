// With no OpenCL platform installed (the ICD loader pointed at an empty
// vendor directory, as on a machine without OpenCL drivers), or no OpenCL
// library at all (an arm64 build under qemu), creating a GPU engine fails
// with a status naming the problem, and CPU engines are unaffected.
#include <cstdlib>

#include "gtest/gtest.h"
#include "mace/runtimes/opencl/testing/gpu_engine.h"
#include "test/model_builder.h"

namespace mace {
namespace {

TEST(NoOpenCLPlatformTest, GpuEngineFailsClearlyAndCpuStillRuns) {
  // Before the first OpenCL call of the process.
  setenv("OCL_ICD_VENDORS", "/nonexistent-opencl-vendors", 1);
  testing::ModelBuilder model;
  InputOutputInfo* input = model.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 2, 2, 2}) input->add_dims(d);
  model.net.add_output_info()->set_name("y");
  testing::ModelBuilder::SetString(model.AddOp("Activation", "relu", {"x"}, "y"), "activation",
                                   "RELU");
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status =
      model.CreateEngine({}, {}, testing::GpuConfig(GPUDataType::FP16_FP32), &engine);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED);
  const std::string& message = status.information();
  EXPECT_TRUE(message.find("no OpenCL platform") != std::string::npos ||
              message.find("no OpenCL library") != std::string::npos)
      << status.ToString();
  ASSERT_TRUE(model.CreateEngine({}, {}, MaceEngineConfig(DeviceType::CPU), &engine).ok());
  const std::vector<float> y = testing::RunEngine(
      engine.get(), {{"x", testing::MakeTensor({1, 2, 2, 2}, {-1, 2, -3, 4, 5, -6, 7, -8})}}, "y");
  EXPECT_EQ(y, std::vector<float>({0, 2, 0, 4, 5, 0, 7, 0}));
}

}  // namespace
}  // namespace mace
