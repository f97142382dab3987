// Engines created, run and destroyed from several threads at once, each with
// its own model and thread pool: every run gives the answer the same engine
// gives alone. Run under ThreadSanitizer by tools/test.sh (--config=tsan).
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"

namespace mace {
namespace {

// x[1,8,6,7] -> 3x3 Conv2D 8->16 (SAME, RELU) -> 1x1 Conv2D 16->8 -> SUM x -> y
struct ResidualModel : testing::ModelBuilder {
  explicit ResidualModel(uint32_t seed) {
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, 8, 6, 7}) input->add_dims(d);
    net.add_output_info()->set_name("y");
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-0.5f, 0.5f);
    std::vector<float> w1(16 * 8 * 9), w2(8 * 16);
    for (float& v : w1) v = uniform(rng);
    for (float& v : w2) v = uniform(rng);
    AddWeight("w1", {16, 8, 3, 3}, w1);
    AddWeight("w2", {8, 16, 1, 1}, w2);
    OperatorDef* conv = AddOp("Conv2D", "conv1", {"x", "w1"}, "c1");
    SetInt(conv, "padding", 1);
    SetString(conv, "activation", "RELU");
    AddOp("Conv2D", "conv2", {"c1", "w2"}, "c2");
    SetInt(AddOp("Eltwise", "sum", {"c2", "x"}, "y"), "type", 0);
  }
};

std::map<std::string, MaceTensor> Input(uint32_t seed) {
  std::shared_ptr<float> x(new float[336], std::default_delete<float[]>());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (int i = 0; i < 336; ++i) x.get()[i] = uniform(rng);
  return {{"x", MaceTensor({1, 8, 6, 7}, x)}};
}

std::vector<float> RunEngine(MaceEngine* engine, uint32_t seed, MaceStatus* status) {
  std::map<std::string, MaceTensor> outputs;
  *status = engine->Run(Input(seed), &outputs);
  if (!status->ok()) return {};
  const MaceTensor& y = outputs.at("y");
  return std::vector<float>(y.data().get(), y.data().get() + y.size());
}

TEST(ConcurrencyTest, EnginesLiveAndDieOnManyThreadsAtOnce) {
  constexpr int kThreads = 4;
  constexpr int kEnginesPerThread = 3;
  constexpr int kRuns = 3;
  // The answers of each thread's model, computed alone first.
  std::vector<std::vector<float>> expected(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    std::shared_ptr<MaceEngine> engine;
    MaceEngineConfig config;
    config.SetCPUThreadPolicy(1, CPUAffinityPolicy::AFFINITY_NONE);
    ASSERT_TRUE(ResidualModel(t).CreateEngine({}, {}, config, &engine).ok());
    MaceStatus status;
    expected[t] = RunEngine(engine.get(), t, &status);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const ResidualModel model(t);
      for (int e = 0; e < kEnginesPerThread; ++e) {
        MaceEngineConfig config;
        // Engines with two worker threads and one, and both kernel families.
        config.SetCPUThreadPolicy(1 + (e + t) % 2, CPUAffinityPolicy::AFFINITY_NONE);
        config.SetCPUKernelFamily(e == 1 ? "ref" : "auto");
        std::shared_ptr<MaceEngine> engine;
        if (!model.CreateEngine({}, {}, config, &engine).ok()) {
          ++failures;
          continue;
        }
        for (int r = 0; r < kRuns; ++r) {
          MaceStatus status;
          const std::vector<float> y = RunEngine(engine.get(), t, &status);
          bool same = status.ok() && y.size() == expected[t].size();
          for (size_t i = 0; same && i < y.size(); ++i) {
            same = std::abs(y[i] - expected[t][i]) <= 1e-4f * (1.f + std::abs(expected[t][i]));
          }
          if (!same) ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace mace
