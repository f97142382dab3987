// Shared by the tests of single GPU ops: a model of one op between input
// "x" and output "y", run on the reference CPU and on the GPU in both
// storages, and the check that the op ran on the GPU between the two
// converters rather than falling back to the CPU.
#ifndef MACE_RUNTIMES_OPENCL_TESTING_GPU_OP_TEST_H_
#define MACE_RUNTIMES_OPENCL_TESTING_GPU_OP_TEST_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace testing {

// A model with input "x" of `shape` and one op of `type` from "x" (and
// `weights`, already added by the caller) to "y".
struct OpModel {
  OpModel(const std::string& type, const std::vector<int64_t>& shape,
          const std::vector<std::string>& weights = {})
      : input_shape(shape), model(ModelWithInput(shape)) {
    std::vector<std::string> inputs = {"x"};
    inputs.insert(inputs.end(), weights.begin(), weights.end());
    op = model.AddOp(type, type, inputs, "y");
  }
  // Adds a constant input named `name` of `shape` with random values (call
  // before the op reads it: weights may be added in any order).
  void AddWeight(const std::string& name, const std::vector<int64_t>& shape, uint32_t seed) {
    model.AddWeight(name, shape, RandomValues(Count(shape), seed));
  }

  std::vector<int64_t> input_shape;
  ModelBuilder model;
  OperatorDef* op = nullptr;
};

// Checks that the GPU matches the CPU and that op `type` ran on the GPU.
inline void ExpectOpOnGpu(const OpModel& m, GPUDataType storage) {
  std::vector<std::string> ops;
  ExpectGpuMatchesCpu(m.model, m.input_shape, storage, &ops);
  EXPECT_EQ(ops, std::vector<std::string>({"BufferToImage", m.op->type(), "ImageToBuffer"}));
}

inline std::string ShapeName(const std::vector<int64_t>& shape) {
  std::string name;
  for (int64_t d : shape) name += (name.empty() ? "" : "x") + std::to_string(d);
  return name;
}

// A model whose one op of `type` reads input x of `shape` and writes
// outputs y0 .. y<outputs - 1>, each a model output; *op is that op.
inline ModelBuilder MultiOutputModel(const std::string& type, const std::vector<int64_t>& shape,
                                     int outputs, OperatorDef** op) {
  ModelBuilder model = ModelWithInput(shape);
  model.net.clear_output_info();
  *op = model.AddOp(type, type, {"x"}, "y0");
  for (int i = 1; i < outputs; ++i) (*op)->add_output("y" + std::to_string(i));
  for (int i = 0; i < outputs; ++i) model.net.add_output_info()->set_name("y" + std::to_string(i));
  return model;
}

// Runs a MultiOutputModel on both devices, compares every output, and
// checks that its op ran once, on the GPU (beside one converter per input
// and output).
inline void ExpectEveryOutputOnGpu(const ModelBuilder& model, const std::vector<int64_t>& shape,
                                   int outputs, GPUDataType storage) {
  std::shared_ptr<MaceEngine> cpu, gpu;
  MaceStatus status = model.CreateEngine({}, {}, ReferenceCpuConfig(), &cpu);
  ASSERT_TRUE(status.ok()) << status.ToString();
  status = model.CreateEngine({}, {}, GpuConfig(storage), &gpu);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::map<std::string, MaceTensor> inputs = {
      {"x", MakeTensor(shape, RandomValues(Count(shape), 5, 2.f))}};
  RunMetadata metadata;
  for (int i = 0; i < outputs; ++i) {
    const std::string name = "y" + std::to_string(i);
    SCOPED_TRACE(name + " of " + ShapeName(shape));
    ExpectNear(RunEngine(gpu.get(), inputs, name, &metadata), RunEngine(cpu.get(), inputs, name),
               Tolerance(storage));
  }
  const std::string type = model.net.op(0).type();
  int on_gpu = 0;
  for (const OperatorStats& stats : metadata.op_stats) on_gpu += stats.type == type;
  EXPECT_EQ(on_gpu, 1);
  EXPECT_EQ(metadata.op_stats.size(), static_cast<size_t>(outputs + 2));
}

inline void SetFloat(OperatorDef* op, const std::string& name, float value) {
  Argument* arg = op->add_arg();
  arg->set_name(name);
  arg->set_f(value);
}

class GpuOpTest : public ::testing::TestWithParam<GPUDataType> {};

}  // namespace testing
}  // namespace mace

// Runs the tests of `suite` (derived from GpuOpTest) in both storages.
#define INSTANTIATE_STORAGES(suite)                                                        \
  INSTANTIATE_TEST_SUITE_P(                                                                \
      Storages, suite, ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32), \
      [](const ::testing::TestParamInfo<GPUDataType>& info) {                              \
        return std::string(::mace::testing::StorageName(info.param));                     \
      })

#endif  // MACE_RUNTIMES_OPENCL_TESTING_GPU_OP_TEST_H_
