// One model split between the CPU and a second runtime (the test-only NHWC
// runtime, standing in for a GPU): placement with CPU fallback, converters
// exactly where storages meet, one memory plan per memory type, and outputs
// equal to the CPU's. Also: engines with different CPU kernel families in one
// process, run from two threads at once.
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"
#include "test/nhwc_test_runtime.h"

namespace mace {
namespace {

// x[1,3,4,5] -> Conv2D 1x1 (CPU only) -> c -> RELU -> r -> SUM with x -> s
//   -> TANH (the test runtime refuses it) -> t -> SUM with r -> y
struct SplitModel : testing::ModelBuilder {
  SplitModel() {
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, 3, 4, 5}) input->add_dims(d);
    net.add_output_info()->set_name("y");
    std::vector<float> w(9), b(3);
    std::mt19937 rng(7767517);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    for (float& v : w) v = uniform(rng);
    for (float& v : b) v = uniform(rng);
    AddWeight("w", {3, 3, 1, 1}, w);
    AddWeight("b", {3}, b);
    AddOp("Conv2D", "conv", {"x", "w", "b"}, "c");
    SetString(AddOp("Activation", "relu", {"c"}, "r"), "activation", "RELU");
    SetInt(AddOp("Eltwise", "sum", {"r", "x"}, "s"), "type", 0);
    SetString(AddOp("Activation", "tanh", {"s"}, "t"), "activation", "TANH");
    SetInt(AddOp("Eltwise", "sum2", {"t", "r"}, "y"), "type", 0);
  }

  MaceStatus Create(const MaceEngineConfig& config, std::shared_ptr<MaceEngine>* engine) const {
    return CreateEngine({}, {}, config, engine);
  }
};

std::map<std::string, MaceTensor> Inputs(uint32_t seed) {
  std::shared_ptr<float> x(new float[60], std::default_delete<float[]>());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-2.f, 2.f);
  for (int i = 0; i < 60; ++i) x.get()[i] = uniform(rng);
  return {{"x", MaceTensor({1, 3, 4, 5}, x)}};
}

struct Result {
  std::vector<float> y;
  std::vector<std::string> op_types;  // in execution order, converters included
};

Result RunOnce(const std::shared_ptr<MaceEngine>& engine, uint32_t seed) {
  std::map<std::string, MaceTensor> outputs;
  RunMetadata metadata;
  const MaceStatus status = engine->Run(Inputs(seed), &outputs, &metadata);
  EXPECT_TRUE(status.ok()) << status.ToString();
  Result result;
  if (!status.ok()) return result;
  const MaceTensor& y = outputs.at("y");
  result.y.assign(y.data().get(), y.data().get() + y.size());
  for (const OperatorStats& stats : metadata.op_stats) result.op_types.push_back(stats.type);
  return result;
}

class SplitRuntimeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::InstallNhwcTestRuntime(); }
};

TEST_F(SplitRuntimeTest, OutputsEqualTheCpuAndConvertersSitWhereRuntimesMeet) {
  SplitModel model;
  std::shared_ptr<MaceEngine> cpu, split;
  ASSERT_TRUE(model.Create(MaceEngineConfig(DeviceType::CPU), &cpu).ok());
  const MaceStatus status = model.Create(MaceEngineConfig(DeviceType::GPU), &split);
  ASSERT_TRUE(status.ok()) << status.ToString();
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Result expected = RunOnce(cpu, seed);
    const Result got = RunOnce(split, seed);
    ASSERT_EQ(got.y.size(), 60u);
    // The same arithmetic on both sides: only the layouts differ.
    for (size_t i = 0; i < got.y.size(); ++i) EXPECT_EQ(got.y[i], expected.y[i]) << i;
    EXPECT_EQ(expected.op_types, std::vector<std::string>(
                                     {"Conv2D", "Activation", "Eltwise", "Activation", "Eltwise"}));
    // conv (CPU) | relu on an image, sum on NHWC buffers (test runtime; r
    // goes image -> CPU -> NHWC, as no converter joins the two directly) |
    // tanh (CPU) | sum2 (test runtime, reusing r's NHWC copy) | output back
    // to CPU NCHW.
    EXPECT_EQ(got.op_types,
              std::vector<std::string>({"Conv2D", "ToImage", "Activation", "FromImage", "ToNhwc",
                                        "ToNhwc", "Eltwise", "ToNchw", "Activation", "ToNhwc",
                                        "Eltwise", "ToNchw"}));
  }
}

TEST_F(SplitRuntimeTest, EachMemoryTypeGetsItsOwnPlanFromItsRuntime) {
  SplitModel model;
  std::shared_ptr<MaceEngine> split;
  const int allocations = testing::NhwcCounters().allocations.load();
  const int images = testing::NhwcCounters().images.load();
  ASSERT_TRUE(model.Create(MaceEngineConfig(DeviceType::GPU), &split).ok());
  // One arena for the runtime's buffers, and one image for each of c's image
  // copy and r, which are live together at the RELU.
  EXPECT_EQ(testing::NhwcCounters().allocations.load(), allocations + 3);
  EXPECT_EQ(testing::NhwcCounters().images.load(), images + 2);
  MemoryReport report;
  ASSERT_TRUE(split->GetMemoryReport(&report).ok());
  std::map<std::string, MemoryTypeReport> by_type;
  for (const MemoryTypeReport& type : report.memory_types) by_type[type.memory_type] = type;
  ASSERT_EQ(by_type.size(), 3u);
  const MemoryTypeReport& cpu = by_type.at("CPU_BUFFER");
  const MemoryTypeReport& buffers = by_type.at("GPU_BUFFER");
  const MemoryTypeReport& image = by_type.at("GPU_IMAGE");
  EXPECT_EQ(cpu.runtime, "CPU");
  EXPECT_EQ(buffers.runtime, "NHWC test runtime");
  EXPECT_EQ(image.runtime, "NHWC test runtime");
  EXPECT_EQ(report.arena_bytes, cpu.bytes);
  // Five 240-byte tensors live in the runtime's buffers (the NHWC copies of
  // r, x and t, and s and y) and share them: the plan is below the naive sum
  // and at least the lower bound.
  EXPECT_EQ(buffers.naive_bytes, 5 * 256);
  EXPECT_LT(buffers.bytes, buffers.naive_bytes);
  EXPECT_GE(buffers.bytes, buffers.lower_bound_bytes);
  // [1,3,4,5] is a 5 x 4 image of 16-byte pixels.
  EXPECT_EQ(image.blocks, 2);
  EXPECT_EQ(image.bytes, 2 * 5 * 4 * 16);
  EXPECT_EQ(image.naive_bytes, image.bytes);
  EXPECT_EQ(image.lower_bound_bytes, image.bytes);
  std::map<std::string, int> count;
  for (const TensorPlacement& t : report.tensors) {
    ++count[t.memory_type];
    if (t.memory_type == "GPU_BUFFER") {
      EXPECT_GE(t.offset, 0) << t.name;
      EXPECT_LE(t.offset + t.size, buffers.bytes) << t.name;
    }
    if (t.memory_type == "GPU_IMAGE") {
      EXPECT_EQ(t.offset, -1) << t.name;
      EXPECT_GE(t.image, 0) << t.name;
      EXPECT_LT(t.image, 2) << t.name;
    }
  }
  EXPECT_EQ(count["GPU_BUFFER"], 5);
  EXPECT_EQ(count["GPU_IMAGE"], 2);
}

TEST_F(SplitRuntimeTest, OpsPlacedOnTheCpuByTheModelStayThere) {
  SplitModel model;
  model.Op("sum")->set_device_type(static_cast<int>(DeviceType::CPU));
  std::shared_ptr<MaceEngine> split;
  ASSERT_TRUE(model.Create(MaceEngineConfig(DeviceType::GPU), &split).ok());
  EXPECT_EQ(RunOnce(split, 1).op_types,
            std::vector<std::string>({"Conv2D", "ToImage", "Activation", "FromImage", "Eltwise",
                                      "Activation", "ToNhwc", "ToNhwc", "Eltwise", "ToNchw"}));
  // A CPU engine runs a model annotated for the GPU on the CPU alone.
  SplitModel annotated;
  for (OperatorDef& op : *annotated.net.mutable_op()) {
    op.set_device_type(static_cast<int>(DeviceType::GPU));
  }
  std::shared_ptr<MaceEngine> cpu;
  ASSERT_TRUE(annotated.Create(MaceEngineConfig(DeviceType::CPU), &cpu).ok());
  EXPECT_EQ(RunOnce(cpu, 1).op_types.size(), 5u);
  // A device that is not a DeviceType is refused, naming the op.
  annotated.Op("tanh")->set_device_type(7);
  const MaceStatus status = annotated.Create(MaceEngineConfig(DeviceType::CPU), &cpu);
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("'tanh' asks for device 7"), std::string::npos)
      << status.information();
}

// x[1,19,9,11] -> 3x3 Conv2D 19->21 -> RELU -> 1x1 Conv2D 21->13 -> y: big
// enough that the fast kernel families take paths of their own.
struct ConvModel : SplitModel {
  ConvModel() {
    net = NetDef();
    data.clear();
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, 19, 9, 11}) input->add_dims(d);
    net.add_output_info()->set_name("y");
    std::mt19937 rng(7767517);
    std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
    std::vector<float> w1(21 * 19 * 9), b1(21), w2(13 * 21);
    for (std::vector<float>* v : {&w1, &b1, &w2}) {
      for (float& f : *v) f = uniform(rng);
    }
    AddWeight("w1", {21, 19, 3, 3}, w1);
    AddWeight("b1", {21}, b1);
    AddWeight("w2", {13, 21, 1, 1}, w2);
    OperatorDef* conv = AddOp("Conv2D", "conv1", {"x", "w1", "b1"}, "c");
    Argument* padding = conv->add_arg();
    padding->set_name("padding");
    padding->set_i(1);  // SAME
    SetString(conv, "activation", "RELU");
    AddOp("Conv2D", "conv2", {"c", "w2"}, "y");
  }
};

std::vector<float> RunConv(const std::shared_ptr<MaceEngine>& engine, uint32_t seed) {
  std::shared_ptr<float> x(new float[19 * 9 * 11], std::default_delete<float[]>());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (int i = 0; i < 19 * 9 * 11; ++i) x.get()[i] = uniform(rng);
  std::map<std::string, MaceTensor> outputs;
  const MaceStatus status = engine->Run({{"x", MaceTensor({1, 19, 9, 11}, x)}}, &outputs);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) return {};
  const MaceTensor& y = outputs.at("y");
  return std::vector<float>(y.data().get(), y.data().get() + y.size());
}

TEST(KernelFamilyTest, EnginesWithDifferentFamiliesRunTogether) {
  ConvModel model;
  MaceEngineConfig reference_config;
  reference_config.SetCPUKernelFamily("ref");
  MaceEngineConfig fast_config;  // "auto": the best this CPU has
  std::shared_ptr<MaceEngine> reference, fast;
  ASSERT_TRUE(model.Create(reference_config, &reference).ok());
  ASSERT_TRUE(model.Create(fast_config, &fast).ok());
  // Each engine's answer, alone.
  std::vector<std::vector<float>> alone_ref, alone_fast;
  for (uint32_t seed = 0; seed < 4; ++seed) {
    alone_ref.push_back(RunConv(reference, seed));
    alone_fast.push_back(RunConv(fast, seed));
  }
  // Both at once, from two threads, many times: each keeps its own answer.
  std::vector<int> mismatches(2, 0);
  auto hammer = [&](int which) {
    const std::shared_ptr<MaceEngine>& engine = which == 0 ? reference : fast;
    const auto& alone = which == 0 ? alone_ref : alone_fast;
    for (int round = 0; round < 40; ++round) {
      if (RunConv(engine, round % 4) != alone[round % 4]) ++mismatches[which];
    }
  };
  std::thread a(hammer, 0), b(hammer, 1);
  a.join();
  b.join();
  EXPECT_EQ(mismatches[0], 0);
  EXPECT_EQ(mismatches[1], 0);
  // The families agree to rounding (float sums in another order).
  for (size_t s = 0; s < alone_ref.size(); ++s) {
    ASSERT_EQ(alone_ref[s].size(), 13u * 9 * 11);
    for (size_t i = 0; i < alone_ref[s].size(); ++i) {
      EXPECT_NEAR(alone_fast[s][i], alone_ref[s][i], 1e-4f * (1 + std::fabs(alone_ref[s][i])));
    }
  }
}

TEST(KernelFamilyTest, UnknownOrMissingFamiliesAreRefused) {
  ConvModel model;
  std::shared_ptr<MaceEngine> engine;
  MaceEngineConfig config;
  config.SetCPUKernelFamily("sse9");
  MaceStatus status = model.Create(config, &engine);
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("unknown CPU kernel family 'sse9'"), std::string::npos);
#if defined(__x86_64__)
  config.SetCPUKernelFamily("neon");
#else
  config.SetCPUKernelFamily("avx2");
#endif
  status = model.Create(config, &engine);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED) << status.ToString();
}

}  // namespace
}  // namespace mace
