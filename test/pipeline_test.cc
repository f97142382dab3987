// Three models in one MaceContext: one CPU thread pool and one shared CPU
// arena, with outputs bit-identical to engines of their own. Also run under
// ThreadSanitizer by tools/test.sh, with app threads running engines at
// once, and engines joining and leaving the context meanwhile.
#include <dirent.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "mace/public/mace.h"
#include "test/conv_chain.h"

namespace mace {
namespace {

using testing::ConvChain;

// Three stages of different sizes, as in a detect / classify / recognize
// pipeline: the middle one has the largest plan.
const std::vector<ConvChain>& Stages() {
  static const std::vector<ConvChain> stages = {
      ConvChain("detect", 8, 32, 4, 1),
      ConvChain("classify", 16, 40, 5, 2),
      ConvChain("recognize", 12, 24, 3, 3),
  };
  return stages;
}

std::vector<float> RunOnce(MaceEngine* engine, const ConvChain& model, uint32_t seed,
                           MaceStatus* status) {
  std::map<std::string, MaceTensor> outputs;
  *status = engine->Run(model.Input(seed), &outputs);
  if (!status->ok()) return {};
  const MaceTensor& y = outputs.at("y");
  return std::vector<float>(y.data().get(), y.data().get() + y.size());
}

bool Same(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

int ThreadCount() {
  int count = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* entry = readdir(dir)) count += entry->d_name[0] != '.';
    closedir(dir);
  }
  return count;
}

// The thread count once it has stopped changing. Under qemu-user a joined
// thread's task can stay listed for a moment after join returns, so a count
// taken right after a join may still include it.
int SettledThreadCount() {
  int count = ThreadCount();
  int same = 0;
  for (int poll = 0; poll < 2000 && same < 20; ++poll) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const int now = ThreadCount();
    same = now == count ? same + 1 : 0;
    count = now;
  }
  return count;
}

constexpr int kThreads = 2;

std::shared_ptr<MaceEngine> Create(const ConvChain& model, std::shared_ptr<MaceContext> context,
                                   int group) {
  MaceEngineConfig config;
  EXPECT_TRUE(config.SetCPUThreadPolicy(kThreads, CPUAffinityPolicy::AFFINITY_NONE).ok());
  if (context != nullptr) {
    config.SetContext(std::move(context));
    EXPECT_TRUE(config.SetSequentialGroup(group).ok());
  }
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = model.CreateEngine({}, {}, config, &engine);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return engine;
}

// Each stage's output from an engine of its own.
std::vector<std::vector<float>> Expected(uint32_t seed) {
  std::vector<std::vector<float>> expected;
  for (const ConvChain& model : Stages()) {
    MaceStatus status;
    expected.push_back(RunOnce(Create(model, nullptr, -1).get(), model, seed, &status));
    EXPECT_TRUE(status.ok()) << status.ToString();
  }
  return expected;
}

int64_t ArenaOf(MaceEngine* engine, MemoryReport* report) {
  EXPECT_TRUE(engine->GetMemoryReport(report).ok());
  return report->arena_bytes;
}

TEST(PipelineTest, OnePoolForEveryEngine) {
  // A sanitizer starts a thread of its own with the first one created.
  std::thread([] {}).join();
  const int before = SettledThreadCount();
  std::vector<std::shared_ptr<MaceEngine>> own;
  for (const ConvChain& model : Stages()) own.push_back(Create(model, nullptr, -1));
  const int with_own_pools = SettledThreadCount() - before;
  own.clear();
  ASSERT_EQ(SettledThreadCount(), before);
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(kThreads, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  const int with_context = SettledThreadCount();
  std::vector<std::shared_ptr<MaceEngine>> shared;
  for (const ConvChain& model : Stages()) shared.push_back(Create(model, context, 0));
  std::printf("worker threads: %d with a pool per engine, %d with one context\n",
              with_own_pools, with_context - before);
  EXPECT_EQ(context->num_threads(), kThreads);
  EXPECT_EQ(with_own_pools, 3 * (kThreads - 1));
  EXPECT_EQ(with_context - before, kThreads - 1);
  EXPECT_EQ(SettledThreadCount(), with_context);  // the engines started none
}

TEST(PipelineTest, SequentialGroupSharesTheLargestPlan) {
  const std::vector<std::vector<float>> expected = Expected(5);
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(kThreads, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  std::vector<std::shared_ptr<MaceEngine>> engines;
  int64_t largest = 0, sum = 0;
  for (const ConvChain& model : Stages()) {
    engines.push_back(Create(model, context, 0));
    MemoryReport report;
    const int64_t plan = ArenaOf(engines.back().get(), &report);
    largest = std::max(largest, plan);
    sum += plan;
  }
  std::printf("arena: largest plan %lld, sum %lld, shared %lld bytes\n",
              static_cast<long long>(largest), static_cast<long long>(sum),
              static_cast<long long>(context->arena_bytes()));
  EXPECT_GE(context->arena_bytes(), largest);
  EXPECT_LE(context->arena_bytes(), largest + largest / 20);
  for (const auto& engine : engines) {
    MemoryReport report;
    ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
    EXPECT_EQ(report.shared_arena_bytes, context->arena_bytes());
    EXPECT_EQ(report.shared_arena_offset, 0);
  }
  // The pipeline, twice over: each stage in turn, all on the shared arena.
  for (int round = 0; round < 2; ++round) {
    for (size_t s = 0; s < engines.size(); ++s) {
      MaceStatus status;
      EXPECT_TRUE(Same(RunOnce(engines[s].get(), Stages()[s], 5, &status), expected[s]))
          << Stages()[s].net.name() << " " << status.ToString();
    }
  }
  // The largest leaves: the arena is planned again for the other two.
  int64_t rest = 0;
  for (size_t s : {0, 2}) {
    MemoryReport report;
    rest = std::max(rest, ArenaOf(engines[s].get(), &report));
  }
  engines[1].reset();
  EXPECT_LE(context->arena_bytes(), rest + rest / 20);
  for (size_t s : {0, 2}) {
    MaceStatus status;
    EXPECT_TRUE(Same(RunOnce(engines[s].get(), Stages()[s], 5, &status), expected[s]));
  }
}

TEST(PipelineTest, ConcurrentEnginesGetDisjointRegions) {
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(kThreads, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  std::vector<std::shared_ptr<MaceEngine>> engines;
  for (const ConvChain& model : Stages()) engines.push_back(Create(model, context, -1));
  std::vector<std::pair<int64_t, int64_t>> regions;
  int64_t sum = 0;
  for (const auto& engine : engines) {
    MemoryReport report;
    ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
    regions.push_back({report.shared_arena_offset, report.shared_arena_offset + report.arena_bytes});
    sum += report.arena_bytes;
  }
  std::sort(regions.begin(), regions.end());
  for (size_t r = 1; r < regions.size(); ++r) EXPECT_LE(regions[r - 1].second, regions[r].first);
  EXPECT_GE(context->arena_bytes(), sum);
  EXPECT_LE(context->arena_bytes(), sum + 64 * 3);
}

// Engine b runs while engine a of the same group is inside its Run (held
// there by a's output observer): b's Run is refused, a's completes.
TEST(PipelineTest, SequentialEnginesRunningAtOnceAreRefused) {
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(kThreads, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  std::mutex mutex;
  std::condition_variable changed;
  bool a_inside = false, b_done = false;
  MaceEngineConfig config;
  config.SetContext(context);
  ASSERT_TRUE(config.SetSequentialGroup(3).ok());
  config.SetOutputObserver([&](const std::string&, const std::vector<int64_t>&, const float*) {
    std::unique_lock<std::mutex> lock(mutex);
    if (a_inside) return;
    a_inside = true;
    changed.notify_all();
    changed.wait(lock, [&] { return b_done; });
  });
  std::shared_ptr<MaceEngine> a;
  ASSERT_TRUE(Stages()[0].CreateEngine({}, {}, config, &a).ok());
  std::shared_ptr<MaceEngine> b = Create(Stages()[1], context, 3);
  MaceStatus a_status;
  std::thread runner([&] { RunOnce(a.get(), Stages()[0], 1, &a_status); });
  MaceStatus b_status;
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return a_inside; });
  }
  RunOnce(b.get(), Stages()[1], 1, &b_status);
  {
    std::lock_guard<std::mutex> lock(mutex);
    b_done = true;
  }
  changed.notify_all();
  runner.join();
  EXPECT_TRUE(a_status.ok()) << a_status.ToString();
  EXPECT_EQ(b_status.code(), MaceStatus::MACE_RUNTIME_ERROR);
  EXPECT_NE(b_status.information().find("sequential group 3"), std::string::npos)
      << b_status.information();
  // One after the other, both run.
  RunOnce(b.get(), Stages()[1], 1, &b_status);
  EXPECT_TRUE(b_status.ok()) << b_status.ToString();
}

// App threads, each running its own engine (group -1) on the shared pool
// and arena, while another thread creates and destroys engines in the
// context: every answer is the one the model gives alone.
TEST(PipelineTest, AppThreadsRunAndJoinAtOnce) {
  const std::vector<std::vector<float>> expected = Expected(9);
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(kThreads, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  std::atomic<int> wrong{0};
  std::atomic<bool> running{true};
  std::vector<std::thread> threads;
  for (size_t s = 0; s < Stages().size(); ++s) {
    threads.emplace_back([&, s] {
      std::shared_ptr<MaceEngine> engine = Create(Stages()[s], context, -1);
      for (int run = 0; run < 6; ++run) {
        MaceStatus status;
        if (!Same(RunOnce(engine.get(), Stages()[s], 9, &status), expected[s])) ++wrong;
      }
    });
  }
  std::thread churn([&] {
    for (int round = 0; round < 4 && running.load(); ++round) {
      std::shared_ptr<MaceEngine> engine = Create(Stages()[round % 3], context, 7);
      MaceStatus status;
      if (!Same(RunOnce(engine.get(), Stages()[round % 3], 9, &status), expected[round % 3])) {
        ++wrong;
      }
    }
  });
  for (std::thread& thread : threads) thread.join();
  running = false;
  churn.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace mace
