// Eltwise kernel benchmarks, fast against reference (bytes read and written
// per second):
//
//   bazel run //mace/ops:cpu_eltwise_benchmark
//
// MobileNet v2's residual additions (24 x 56 x 56 down to 160 x 7 x 7),
// ResNet-18's additions with a fused RELU, and a per-channel product.
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/cpu/eltwise_kernel.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

// Args: {channels, size, form (0: equal shapes SUM, 1: equal shapes SUM +
// RELU, 2: per-channel PROD), threads}.
ref::EltwiseParams Params(const benchmark::State& state) {
  const int64_t c = state.range(0), size = state.range(1), form = state.range(2);
  ref::EltwiseParams p;
  p.type = form == 2 ? ref::EltwiseType::PROD : ref::EltwiseType::SUM;
  p.shape = {1, c, size, size};
  p.a_strides = {c * size * size, size * size, size, 1};
  p.b_strides = form == 2 ? std::vector<int64_t>{0, 1, 0, 0} : p.a_strides;
  if (form == 1) p.activation.type = ActivationType::RELU;
  return p;
}

void SetCounters(benchmark::State& state, const ref::EltwiseParams& p) {
  const double elements = static_cast<double>(p.shape[1] * p.shape[2] * p.shape[3]);
  const double bytes = (p.b_strides[2] == 0 ? 2.0 : 3.0) * 4.0 * elements;
  state.counters["bytes/s"] =
      benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
}

struct Operands {
  AlignedFloats a, b, out;
  explicit Operands(const ref::EltwiseParams& p) {
    const int64_t elements = p.shape[1] * p.shape[2] * p.shape[3];
    a = AlignedRandomFloats(elements, 1);
    b = AlignedRandomFloats(p.b_strides[2] == 0 ? p.shape[1] : elements, 2);
    out.resize(elements);
  }
};

void BM_Eltwise(benchmark::State& state) {
  const KernelTable* table = BestTable();
  if (table == nullptr) return state.SkipWithError("no SIMD kernels on this CPU");
  const ref::EltwiseParams p = Params(state);
  auto pool = BenchmarkPool(static_cast<int>(state.range(3)));
  Operands operands(p);
  const auto kernel = EltwiseKernel::Create(*table, p);
  for (auto _ : state) {
    kernel->Run(operands.a.data(), operands.b.data(), operands.out.data(), pool.get());
    benchmark::DoNotOptimize(operands.out.data());
  }
  SetCounters(state, p);
}

void BM_EltwiseReference(benchmark::State& state) {
  const ref::EltwiseParams p = Params(state);
  Operands operands(p);
  for (auto _ : state) {
    ref::Eltwise(p, operands.a.data(), operands.b.data(), operands.out.data());
    benchmark::DoNotOptimize(operands.out.data());
  }
  SetCounters(state, p);
}

void Shapes(benchmark::internal::Benchmark* bench, int threads) {
  bench->ArgNames({"c", "size", "form", "threads"});
  bench->Args({24, 56, 0, threads});   // MobileNet v2 add_1
  bench->Args({32, 28, 0, threads});   // MobileNet v2 add_2, add_3
  bench->Args({64, 14, 0, threads});   // MobileNet v2 add_4 .. add_6
  bench->Args({96, 14, 0, threads});   // MobileNet v2 add_7, add_8
  bench->Args({160, 7, 0, threads});   // MobileNet v2 add_9, add_10
  bench->Args({64, 56, 1, threads});   // ResNet-18 add_1, add_2 (+ RELU)
  bench->Args({512, 7, 1, threads});   // ResNet-18 add_7, add_8 (+ RELU)
  bench->Args({144, 56, 2, threads});  // per-channel scale
  if (threads > 1) bench->UseRealTime();
}
BENCHMARK(BM_Eltwise)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, 1); });
BENCHMARK(BM_Eltwise)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, 2); });
BENCHMARK(BM_EltwiseReference)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, 1); });

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
