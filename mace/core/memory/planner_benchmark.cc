// Planning speed. The engine plans every graph at init with the default
// strategy, so a 1,000-tensor graph must plan in well under 5 ms.
//
//   bazel run -c opt //mace/core/memory:planner_benchmark
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/core/memory/planner.h"

namespace mace {
namespace memory {
namespace {

// A network-shaped graph: op i writes tensor i, op i + 1 reads it, and
// about one tensor in five also feeds an op a few steps later (a residual
// or concat branch). Sizes are activation-like, 4 KiB to 4 MiB.
std::vector<UsageRecord> NetworkGraph(int num_tensors) {
  std::mt19937 random(1000);
  std::vector<UsageRecord> records;
  for (int i = 0; i < num_tensors; ++i) {
    const TaskId last = i + 1 + (random() % 5 == 0 ? 1 + random() % 8 : 0);
    const size_t size = size_t{4096} << (random() % 11);
    records.push_back({size, i, last});
  }
  return records;
}

// Long, overlapping lifetimes, as in MiniMalloc's benchmarks: many more
// tensors are live at once, the worst case for the greedy scan.
std::vector<UsageRecord> WideGraph(int num_tensors) {
  std::mt19937 random(2000);
  std::vector<UsageRecord> records;
  for (int i = 0; i < num_tensors; ++i) {
    const TaskId first = static_cast<TaskId>(random() % num_tensors);
    const TaskId last = first + static_cast<TaskId>(random() % 100);
    records.push_back({1024 + random() % (1 << 20), first, last});
  }
  return records;
}

void PlanOffsetsBenchmark(benchmark::State& state, std::vector<UsageRecord> (*graph)(int),
                          Strategy strategy) {
  const std::vector<UsageRecord> records = graph(static_cast<int>(state.range(0)));
  OffsetsPlan plan;
  for (auto _ : state) {
    const Status status = PlanOffsets(records, strategy, PlanOptions(), &plan);
    if (!status.ok()) state.SkipWithError(status.message().c_str());
    benchmark::DoNotOptimize(plan.assignment.total_size);
  }
  state.counters["total/lower_bound"] =
      static_cast<double>(plan.assignment.total_size) / static_cast<double>(plan.lower_bound);
}

void BM_DefaultNetwork(benchmark::State& state) {
  PlanOffsetsBenchmark(state, NetworkGraph, kDefaultStrategy);
}
void BM_DefaultWide(benchmark::State& state) {
  PlanOffsetsBenchmark(state, WideGraph, kDefaultStrategy);
}
void BM_GreedyBestNetwork(benchmark::State& state) {
  PlanOffsetsBenchmark(state, NetworkGraph, Strategy::kGreedyBest);
}

BENCHMARK(BM_DefaultNetwork)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DefaultWide)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GreedyBestNetwork)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace memory
}  // namespace mace
