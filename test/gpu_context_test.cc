// GPU engines in one MaceContext share one OpenCL device state (context,
// queue, program, tuned sizes): the program is made once, outputs are
// bit-identical to engines of their own, engines leave and join, and app
// threads run them at once. Tagged opencl (PoCL's CPU device here).
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "mace/public/mace.h"
#include "mace/public/mace_c.h"
#include "mace/runtimes/opencl/opencl_device.h"
#include "test/conv_chain.h"

namespace mace {
namespace {

using opencl::ProgramCreateCount;
using testing::ConvChain;

const std::vector<ConvChain>& Stages() {
  static const std::vector<ConvChain> stages = {
      ConvChain("detect", 8, 16, 3, 11),
      ConvChain("classify", 12, 12, 2, 12),
      ConvChain("recognize", 4, 20, 2, 13),
  };
  return stages;
}

std::vector<float> RunOnce(MaceEngine* engine, const ConvChain& model, uint32_t seed) {
  std::map<std::string, MaceTensor> outputs;
  const MaceStatus status = engine->Run(model.Input(seed), &outputs);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) return {};
  const MaceTensor& y = outputs.at("y");
  return std::vector<float>(y.data().get(), y.data().get() + y.size());
}

bool Same(const std::vector<float>& a, const std::vector<float>& b) {
  return !a.empty() && a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

MaceEngineConfig GpuConfig(std::shared_ptr<MaceContext> context,
                           GPUDataType type = GPUDataType::FP16_FP32) {
  MaceEngineConfig config(DeviceType::GPU);
  config.SetOpenCLDeviceFallback(true);
  config.SetGPUDataType(type);
  if (context != nullptr) config.SetContext(std::move(context));
  return config;
}

std::shared_ptr<MaceEngine> Create(const ConvChain& model, const MaceEngineConfig& config) {
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = model.CreateEngine({}, {}, config, &engine);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return engine;
}

std::shared_ptr<MaceContext> NewContext() {
  std::shared_ptr<MaceContext> context;
  EXPECT_TRUE(MaceContext::Create(1, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  return context;
}

// Each stage's output from a GPU engine of its own, and the programs the
// three separate engines made.
std::vector<std::vector<float>> Separate(uint32_t seed, int64_t* programs) {
  const int64_t before = ProgramCreateCount();
  std::vector<std::vector<float>> expected;
  for (const ConvChain& model : Stages()) {
    std::shared_ptr<MaceEngine> engine = Create(model, GpuConfig(nullptr));
    expected.push_back(engine != nullptr ? RunOnce(engine.get(), model, seed)
                                       : std::vector<float>());
  }
  *programs = ProgramCreateCount() - before;
  return expected;
}

TEST(GpuContextTest, EnginesShareOneProgramWithTheSameBits) {
  int64_t separate_programs = 0;
  const std::vector<std::vector<float>> expected = Separate(7, &separate_programs);
  EXPECT_EQ(separate_programs, 3);
  std::shared_ptr<MaceContext> context = NewContext();
  const int64_t before = ProgramCreateCount();
  std::vector<std::shared_ptr<MaceEngine>> engines;
  for (const ConvChain& model : Stages()) engines.push_back(Create(model, GpuConfig(context)));
  ASSERT_EQ(ProgramCreateCount() - before, 1);
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < engines.size(); ++i) {
      ASSERT_NE(engines[i], nullptr);
      EXPECT_TRUE(Same(RunOnce(engines[i].get(), Stages()[i], 7), expected[i]))
          << Stages()[i].net.name() << ", round " << round;
    }
  }
  EXPECT_EQ(ProgramCreateCount() - before, 1);
}

TEST(GpuContextTest, OtherSettingsGetADeviceStateOfTheirOwn) {
  std::shared_ptr<MaceContext> context = NewContext();
  const int64_t before = ProgramCreateCount();
  const ConvChain& model = Stages()[0];
  std::shared_ptr<MaceEngine> half = Create(model, GpuConfig(context));
  std::shared_ptr<MaceEngine> full = Create(model, GpuConfig(context, GPUDataType::FP32_FP32));
  std::shared_ptr<MaceEngine> full_too = Create(model, GpuConfig(context, GPUDataType::FP32_FP32));
  // Half and float storage are built apart; the second float engine shares.
  EXPECT_EQ(ProgramCreateCount() - before, 2);
  std::shared_ptr<MaceEngine> alone =
      Create(model, GpuConfig(nullptr, GPUDataType::FP32_FP32));
  ASSERT_TRUE(full != nullptr && full_too != nullptr && alone != nullptr && half != nullptr);
  const std::vector<float> expected = RunOnce(alone.get(), model, 3);
  EXPECT_TRUE(Same(RunOnce(full.get(), model, 3), expected));
  EXPECT_TRUE(Same(RunOnce(full_too.get(), model, 3), expected));
  EXPECT_FALSE(RunOnce(half.get(), model, 3).empty());
}

TEST(GpuContextTest, EnginesLeaveAndJoin) {
  int64_t separate_programs = 0;
  const std::vector<std::vector<float>> expected = Separate(9, &separate_programs);
  std::shared_ptr<MaceContext> context = NewContext();
  const int64_t before = ProgramCreateCount();
  {
    std::shared_ptr<MaceEngine> first = Create(Stages()[0], GpuConfig(context));
    ASSERT_NE(first, nullptr);
    EXPECT_TRUE(Same(RunOnce(first.get(), Stages()[0], 9), expected[0]));
  }
  // The state outlives its engines: the next one finds the program made.
  std::shared_ptr<MaceEngine> second = Create(Stages()[1], GpuConfig(context));
  ASSERT_NE(second, nullptr);
  std::shared_ptr<MaceEngine> third = Create(Stages()[2], GpuConfig(context));
  ASSERT_NE(third, nullptr);
  EXPECT_TRUE(Same(RunOnce(second.get(), Stages()[1], 9), expected[1]));
  second.reset();
  EXPECT_TRUE(Same(RunOnce(third.get(), Stages()[2], 9), expected[2]));
  EXPECT_EQ(ProgramCreateCount() - before, 1);
  // A new context makes its own.
  third.reset();
  context = NewContext();
  std::shared_ptr<MaceEngine> fresh = Create(Stages()[0], GpuConfig(context));
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(ProgramCreateCount() - before, 2);
  EXPECT_TRUE(Same(RunOnce(fresh.get(), Stages()[0], 9), expected[0]));
}

// App threads create engines of a new context at once, then each runs one
// while another thread creates, runs and destroys engines in the context.
TEST(GpuContextTest, AppThreadsRunEnginesAtOnce) {
  int64_t separate_programs = 0;
  const std::vector<std::vector<float>> expected = Separate(5, &separate_programs);
  std::shared_ptr<MaceContext> context = NewContext();
  const int64_t before = ProgramCreateCount();
  // Created at once: the first Init makes the state, the others wait for it.
  std::vector<std::shared_ptr<MaceEngine>> engines(Stages().size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < engines.size(); ++i) {
    threads.emplace_back([&, i] { engines[i] = Create(Stages()[i], GpuConfig(context)); });
  }
  for (std::thread& thread : threads) thread.join();
  threads.clear();
  for (const auto& engine : engines) ASSERT_NE(engine, nullptr);
  EXPECT_EQ(ProgramCreateCount() - before, 1);
  std::atomic<int> wrong{0};
  for (size_t i = 0; i < engines.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int run = 0; run < 6; ++run) {
        if (!Same(RunOnce(engines[i].get(), Stages()[i], 5), expected[i])) ++wrong;
      }
    });
  }
  threads.emplace_back([&] {
    for (int cycle = 0; cycle < 3; ++cycle) {
      const size_t stage = static_cast<size_t>(cycle) % Stages().size();
      std::shared_ptr<MaceEngine> visitor = Create(Stages()[stage], GpuConfig(context));
      if (visitor == nullptr ||
          !Same(RunOnce(visitor.get(), Stages()[stage], 5), expected[stage])) {
        ++wrong;
      }
    }
  });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(ProgramCreateCount() - before, 1);
}

// The C API hands its context to the engine config, so its GPU engines
// share too.
TEST(GpuContextTest, CApiEnginesShareTheProgram) {
  const ConvChain& model = Stages()[0];
  const std::string graph = model.Graph();
  MaceCContext* context = nullptr;
  ASSERT_EQ(mace_c_context_create(1, 0, &context), MACE_C_OK);
  MaceCConfig* config = nullptr;
  ASSERT_EQ(mace_c_config_create(MACE_C_GPU, &config), MACE_C_OK);
  ASSERT_EQ(mace_c_config_set_opencl_device_fallback(config, 1), MACE_C_OK);
  ASSERT_EQ(mace_c_config_set_context(config, context), MACE_C_OK);
  const int64_t before = ProgramCreateCount();
  MaceCEngine* engines[2] = {nullptr, nullptr};
  for (MaceCEngine*& engine : engines) {
    ASSERT_EQ(mace_c_engine_create_from_buffers(graph.data(), graph.size(), model.data.data(),
                                                model.data.size(), config, &engine),
              MACE_C_OK)
        << mace_c_last_error();
  }
  EXPECT_EQ(ProgramCreateCount() - before, 1);
  for (MaceCEngine* engine : engines) mace_c_engine_destroy(engine);
  mace_c_config_destroy(config);
  mace_c_context_destroy(context);
}

}  // namespace
}  // namespace mace
