// Helpers of the OpenCL tests: engines on this machine's OpenCL device
// (PoCL's CPU device here, hence the device fallback) in either storage,
// and comparison against the CPU's reference kernels.
#ifndef MACE_RUNTIMES_OPENCL_TESTING_GPU_ENGINE_H_
#define MACE_RUNTIMES_OPENCL_TESTING_GPU_ENGINE_H_

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"

namespace mace {
namespace testing {

inline MaceEngineConfig GpuConfig(GPUDataType type) {
  MaceEngineConfig config(DeviceType::GPU);
  config.SetOpenCLDeviceFallback(true);
  config.SetGPUDataType(type);
  return config;
}

inline MaceEngineConfig ReferenceCpuConfig() {
  MaceEngineConfig config(DeviceType::CPU);
  config.SetCPUKernelFamily("ref");
  return config;
}

inline std::vector<float> RandomValues(int64_t count, uint32_t seed, float range = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-range, range);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = uniform(rng);
  return values;
}

inline MaceTensor MakeTensor(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  std::shared_ptr<float> data(new float[values.size()], std::default_delete<float[]>());
  std::copy(values.begin(), values.end(), data.get());
  return MaceTensor(shape, data);
}

// Runs `engine` on `inputs` and returns output `name`.
inline std::vector<float> RunEngine(MaceEngine* engine,
                                    const std::map<std::string, MaceTensor>& inputs,
                                    const std::string& name, RunMetadata* metadata = nullptr) {
  std::map<std::string, MaceTensor> outputs;
  const MaceStatus status = engine->Run(inputs, &outputs, metadata);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok() || outputs.count(name) == 0) return {};
  const MaceTensor& out = outputs.at(name);
  return std::vector<float>(out.data().get(), out.data().get() + out.size());
}

// Half storage rounds inputs, weights and outputs to 11 significant bits.
inline float Tolerance(GPUDataType type) {
  return type == GPUDataType::FP16_FP32 ? 1e-2f : 1e-4f;
}

inline void ExpectNear(const std::vector<float>& got, const std::vector<float>& expected,
                       float tolerance) {
  ASSERT_EQ(got.size(), expected.size());
  float scale = 1.f;
  for (float v : expected) {
    if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
  }
  int shown = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    // Equal infinities and NaN on both sides match too.
    const bool ok = got[i] == expected[i] || (std::isnan(got[i]) && std::isnan(expected[i])) ||
                    std::fabs(got[i] - expected[i]) <= tolerance * scale;
    if (!ok && shown++ < 10) {
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", expected " << expected[i];
    }
  }
}

inline int64_t Count(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

inline void AddInts(OperatorDef* op, const std::string& name, const std::vector<int64_t>& values) {
  Argument* arg = op->add_arg();
  arg->set_name(name);
  for (int64_t v : values) arg->add_ints(v);
}

// Runs `model` (input "x" of `input_shape`, output "y") on the reference
// CPU and on the GPU in `type` storage and compares; `gpu_ops` gets the op
// types the GPU engine ran, converters included.
inline void ExpectGpuMatchesCpu(const ModelBuilder& model, const std::vector<int64_t>& input_shape,
                                GPUDataType type, std::vector<std::string>* gpu_ops = nullptr) {
  std::shared_ptr<MaceEngine> cpu, gpu;
  MaceStatus status = model.CreateEngine({}, {}, ReferenceCpuConfig(), &cpu);
  ASSERT_TRUE(status.ok()) << status.ToString();
  status = model.CreateEngine({}, {}, GpuConfig(type), &gpu);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::map<std::string, MaceTensor> inputs = {
      {"x", MakeTensor(input_shape, RandomValues(Count(input_shape), 5, 2.f))}};
  RunMetadata metadata;
  const std::vector<float> expected = RunEngine(cpu.get(), inputs, "y");
  const std::vector<float> got = RunEngine(gpu.get(), inputs, "y", &metadata);
  ExpectNear(got, expected, Tolerance(type));
  if (gpu_ops != nullptr) {
    for (const OperatorStats& stats : metadata.op_stats) gpu_ops->push_back(stats.type);
  }
}

// A model with input "x" of `shape` and output "y".
inline ModelBuilder ModelWithInput(const std::vector<int64_t>& shape) {
  ModelBuilder model;
  InputOutputInfo* input = model.net.add_input_info();
  input->set_name("x");
  for (int64_t d : shape) input->add_dims(d);
  model.net.add_output_info()->set_name("y");
  return model;
}

inline const char* StorageName(GPUDataType type) {
  return type == GPUDataType::FP16_FP32 ? "fp16_fp32" : "fp32_fp32";
}

}  // namespace testing
}  // namespace mace

#endif  // MACE_RUNTIMES_OPENCL_TESTING_GPU_ENGINE_H_
