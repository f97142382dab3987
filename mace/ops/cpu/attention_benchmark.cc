// The fused Attention op on the zoo encoders' shapes, Prepare once and Run
// timed (the GEMMs' FLOP/s, 4 x heads x S^2 x D, as the counter):
//
//   bazel run -c opt //mace/ops:cpu_attention_benchmark
//
// Q, K, V are the projections [1, S, heads * D] and the output merges the
// heads, as the converter fuses them; BERT's rows carry an additive
// [1, 1, 1, S] mask.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"
#include "mace/runtimes/cpu/cpu_runtime.h"

namespace mace {
namespace ops {
namespace {

// {heads, S, D, additive mask, threads}.
void BM_Attention(benchmark::State& state) {
  const int64_t heads = state.range(0), len = state.range(1), depth = state.range(2);
  const bool masked = state.range(3) != 0;
  const int threads = static_cast<int>(state.range(4));
  const std::vector<int64_t> shape = {1, len, heads * depth};
  testing::OpTester tester("Attention", RegisterAttention);
  tester.Input("q", shape, testing::RandomFloats(len * heads * depth, 1, -2.f, 2.f))
      .Input("k", shape, testing::RandomFloats(len * heads * depth, 2, -2.f, 2.f))
      .Input("v", shape, testing::RandomFloats(len * heads * depth, 3));
  if (masked) {
    tester.Input("mask", {1, 1, 1, len}, testing::RandomFloats(len, 4, -4.f, 0.f))
        .Arg("mask", "add");
  }
  tester.Output("out").Arg("heads", heads).Args("layouts", std::vector<int64_t>{1, 1, 1, 1});
  std::unique_ptr<CpuRuntime> runtime;
  if (threads > 1) {
    runtime = std::make_unique<CpuRuntime>(std::make_unique<ThreadPool>(threads));
    tester.WithRuntime(runtime.get());
  }
  MaceStatus status = tester.Run();
  for (auto _ : state) {
    if (!status.ok()) break;
    status = tester.RunAgain(std::map<std::string, std::vector<float>>());
  }
  if (!status.ok()) state.SkipWithError(status.information().c_str());
  state.counters["FLOP/s"] = benchmark::Counter(4.0 * heads * len * len * depth,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// BERT-mini-like (12 heads of 32, 128 tokens, masked), ViT-tiny (3 heads
// of 64, 197 tokens) and the Whisper-tiny encoder (6 heads of 64, 1500
// frames). One thread is timed in CPU time, two in wall time.
template <int kThreads>
void Shapes(benchmark::internal::Benchmark* bench) {
  bench->Args({12, 128, 32, 1, kThreads});
  bench->Args({3, 197, 64, 0, kThreads});
  bench->Args({6, 1500, 64, 0, kThreads});
  if (kThreads > 1) bench->UseRealTime();
}
BENCHMARK(BM_Attention)->Apply(Shapes<1>);
BENCHMARK(BM_Attention)->Apply(Shapes<2>);

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
