// Gather benchmarks, fast against reference (bytes copied per second):
//
//   bazel run //mace/ops:cpu_gather_benchmark
//
// An embedding lookup (rows of 256 floats out of a 30,000-row table), a
// gather of single values along the last axis, and short rows of 8 floats.
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/cpu/gather_fast.h"
#include "mace/ops/ref/gather.h"

namespace mace {
namespace ops {
namespace {

// Args: {outer, axis_size, count, inner, threads}.
struct Operands {
  ref::GatherParams p;
  std::vector<float> data, out;
  std::vector<int64_t> indices;
  explicit Operands(const benchmark::State& state) {
    p.outer = state.range(0);
    p.axis_size = state.range(1);
    p.count = state.range(2);
    p.inner = state.range(3);
    data.assign(p.outer * p.axis_size * p.inner, 1.f);
    out.resize(p.outer * p.count * p.inner);
    std::mt19937 rng(77);
    std::uniform_int_distribution<int64_t> index(0, p.axis_size - 1);
    indices.resize(p.count);
    for (int64_t& i : indices) i = index(rng);
  }
  void SetCounters(benchmark::State& state) const {
    state.counters["bytes/s"] = benchmark::Counter(
        4.0 * static_cast<double>(out.size()), benchmark::Counter::kIsIterationInvariantRate);
  }
};

void BM_Gather(benchmark::State& state) {
  Operands o(state);
  auto pool = BenchmarkPool(static_cast<int>(state.range(4)));
  for (auto _ : state) {
    GatherFast(o.p, o.data.data(), o.indices.data(), o.out.data(), pool.get());
    benchmark::DoNotOptimize(o.out.data());
  }
  o.SetCounters(state);
}

void BM_GatherReference(benchmark::State& state) {
  Operands o(state);
  for (auto _ : state) {
    ref::Gather(o.p, o.data.data(), o.indices.data(), o.out.data());
    benchmark::DoNotOptimize(o.out.data());
  }
  o.SetCounters(state);
}

void Shapes(benchmark::internal::Benchmark* bench, int threads) {
  bench->ArgNames({"outer", "axis", "count", "inner", "threads"});
  bench->Args({1, 30000, 512, 256, threads});  // embedding lookup
  bench->Args({4096, 64, 16, 1, threads});     // single values, last axis
  bench->Args({1, 4096, 8192, 8, threads});    // short rows
  if (threads > 1) bench->UseRealTime();
}
BENCHMARK(BM_Gather)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, 1); });
BENCHMARK(BM_Gather)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, 2); });
BENCHMARK(BM_GatherReference)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, 1); });

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
