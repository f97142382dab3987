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
#include "mace/proto/mace.pb.h"
#include "test/conv_chain.h"
#include "test/model_builder.h"

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
// A chain whose intermediates include tensors that live inside planned
// ones: a Reshape's output (an in-place alias of its input) and the inputs
// of a channel Concat (slices of its output). x -> conv a -> Reshape
// (flatten) -> Reshape (back) -> conv b; conv c; Concat(b, c) -> conv d -> y.
testing::ModelBuilder AliasedChain(int channels, int size) {
  testing::ModelBuilder b;
  b.net.set_name("aliased");
  InputOutputInfo* input = b.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, channels, size, size}) input->add_dims(d);
  b.net.add_output_info()->set_name("y");
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> uniform(-0.1f, 0.1f);
  auto conv = [&](const std::string& name, const std::string& from, const std::string& to,
                  int in, int out) {
    std::vector<float> w(static_cast<size_t>(in) * out * 9);
    for (float& v : w) v = uniform(rng);
    b.AddWeight("w_" + name, {out, in, 3, 3}, w);
    OperatorDef* op = b.AddOp("Conv2D", name, {from, "w_" + name}, to);
    testing::ModelBuilder::SetInt(op, "padding", 1);
    testing::ModelBuilder::SetString(op, "activation", "RELU");
  };
  auto shape = [](OperatorDef* op, const std::vector<int64_t>& dims) {
    Argument* arg = op->add_arg();
    arg->set_name("shape");
    for (int64_t d : dims) arg->add_ints(d);
  };
  conv("a", "x", "a", channels, channels);
  shape(b.AddOp("Reshape", "flatten", {"a"}, "flat"), {1, channels, size * size});
  shape(b.AddOp("Reshape", "unflatten", {"flat"}, "back"), {1, channels, size, size});
  conv("b", "back", "b", channels, channels);
  conv("c", "a", "c", channels, channels);
  OperatorDef* cat = b.AddOp("Concat", "cat", {"b", "c"}, "cat");
  testing::ModelBuilder::SetInt(cat, "axis", 1);
  conv("d", "cat", "y", 2 * channels, channels);
  return b;
}

// An engine's aliases and slices move with the tensors they live in when
// the shared arena is laid out again: a larger engine joining (and then
// leaving) the context replaces the arena's buffer, and the first engine's
// next runs still give the output of an engine of its own. Under ASan a
// tensor left on the old buffer is a use after free.
TEST(PipelineTest, AliasesAndSlicesMoveWithTheArena) {
  const testing::ModelBuilder model = AliasedChain(8, 12);
  const ConvChain& large = Stages()[1];
  std::map<std::string, MaceTensor> input;
  {
    const int64_t count = 8 * 12 * 12;
    std::shared_ptr<float> x(new float[count], std::default_delete<float[]>());
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    for (int64_t i = 0; i < count; ++i) x.get()[i] = uniform(rng);
    input = {{"x", MaceTensor({1, 8, 12, 12}, x)}};
  }
  auto run = [&](MaceEngine* engine, MaceStatus* status) {
    std::map<std::string, MaceTensor> outputs;
    *status = engine->Run(input, &outputs);
    if (!status->ok()) return std::vector<float>();
    const MaceTensor& y = outputs.at("y");
    return std::vector<float>(y.data().get(), y.data().get() + y.size());
  };
  MaceEngineConfig alone;
  ASSERT_TRUE(alone.SetCPUThreadPolicy(kThreads, CPUAffinityPolicy::AFFINITY_NONE).ok());
  std::shared_ptr<MaceEngine> own;
  ASSERT_TRUE(model.CreateEngine({}, {}, alone, &own).ok());
  MaceStatus status;
  const std::vector<float> expected = run(own.get(), &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(expected.size(), 8u * 12 * 12);
  // The plan aliases the Reshapes and places b and c inside the Concat.
  MemoryReport report;
  ASSERT_TRUE(own->GetMemoryReport(&report).ok());
  int followers = 0;
  for (const auto& tensor : report.tensors) followers += tensor.alias_of.empty() ? 0 : 1;
  EXPECT_GE(followers, 3);

  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(kThreads, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  MaceEngineConfig shared = alone;
  shared.SetContext(context);
  std::shared_ptr<MaceEngine> first;
  ASSERT_TRUE(model.CreateEngine({}, {}, shared, &first).ok());
  EXPECT_TRUE(Same(run(first.get(), &status), expected)) << status.ToString();
  const int64_t before = context->arena_bytes();
  {
    // Outside any group: a region of its own after the first engine's, so
    // the arena grows into a new buffer.
    std::shared_ptr<MaceEngine> second = Create(large, context, -1);
    ASSERT_GT(context->arena_bytes(), before);
    EXPECT_TRUE(Same(run(first.get(), &status), expected)) << status.ToString();
  }
  EXPECT_EQ(context->arena_bytes(), before);
  EXPECT_TRUE(Same(run(first.get(), &status), expected)) << status.ToString();
}

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
