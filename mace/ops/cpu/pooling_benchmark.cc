// Pooling kernel benchmarks, fast against reference, on the zoo's layers
// (input bytes read per second):
//
//   bazel run //mace/ops:cpu_pooling_benchmark
//
// SqueezeNet 1.1: 3x3 stride-2 max in ceil mode at 111, 55 and 27, and a
// global average over 1000 x 13 x 13. ShuffleNet v2 and ResNet-18: 3x3
// stride-2 max with pads of 1 at 112. MobileNet v2: global average over
// 1280 x 7 x 7.
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/cpu/pooling_kernel.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

// Args: {channels, size, kernel (0: global), stride, pad, ceil mode, type
// (1 AVG, 2 MAX), threads}.
ref::PoolingParams Params(const benchmark::State& state) {
  ref::PoolingParams p;
  p.type = static_cast<ref::PoolingType>(state.range(6));
  p.batch = 1;
  p.channels = state.range(0);
  p.in_h = p.in_w = state.range(1);
  const int64_t kernel = state.range(2);
  if (kernel == 0) {
    p.kernel_h = p.in_h;
    p.kernel_w = p.in_w;
    p.out_h = p.out_w = 1;
    return p;
  }
  const int64_t stride = state.range(3), pad = state.range(4);
  p.kernel_h = p.kernel_w = kernel;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  const int64_t span = p.in_h + 2 * pad - kernel;
  p.out_h = p.out_w = (state.range(5) != 0 ? (span + stride - 1) / stride : span / stride) + 1;
  return p;
}

void SetCounters(benchmark::State& state, const ref::PoolingParams& p) {
  state.counters["bytes/s"] = benchmark::Counter(4.0 * p.channels * p.in_h * p.in_w,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Pooling(benchmark::State& state) {
  const KernelTable* table = BestTable();
  if (table == nullptr) return state.SkipWithError("no SIMD kernels on this CPU");
  const ref::PoolingParams p = Params(state);
  if (!PoolingKernel::Supports(*table, p)) return state.SkipWithError("not a fast shape");
  auto pool = BenchmarkPool(static_cast<int>(state.range(7)));
  const auto input = AlignedRandomFloats(p.channels * p.in_h * p.in_w, 1);
  AlignedFloats output(p.channels * p.out_h * p.out_w);
  const PoolingKernel kernel(*table, p);
  ScratchBuffer buffer;
  float* scratch = ScratchOrSkip(state, &buffer, kernel.ScratchBytes(NumThreads(pool.get())));
  if (scratch == nullptr) return;
  for (auto _ : state) {
    kernel.Run(input.data(), output.data(), pool.get(), scratch);
    benchmark::DoNotOptimize(output.data());
  }
  SetCounters(state, p);
}

void BM_PoolingReference(benchmark::State& state) {
  const ref::PoolingParams p = Params(state);
  const auto input = AlignedRandomFloats(p.channels * p.in_h * p.in_w, 1);
  AlignedFloats output(p.channels * p.out_h * p.out_w);
  for (auto _ : state) {
    ref::Pooling(p, input.data(), output.data());
    benchmark::DoNotOptimize(output.data());
  }
  SetCounters(state, p);
}

void ZooShapes(benchmark::internal::Benchmark* bench, int threads) {
  bench->ArgNames({"c", "size", "k", "s", "pad", "ceil", "type", "threads"});
  bench->Args({64, 111, 3, 2, 0, 1, 2, threads});   // SqueezeNet maxpool_1
  bench->Args({128, 55, 3, 2, 0, 1, 2, threads});   // SqueezeNet maxpool_2
  bench->Args({256, 27, 3, 2, 0, 1, 2, threads});   // SqueezeNet maxpool_3
  bench->Args({24, 112, 3, 2, 1, 0, 2, threads});   // ShuffleNet v2 maxpool_1
  bench->Args({64, 112, 3, 2, 1, 0, 2, threads});   // ResNet-18 maxpool_1
  bench->Args({64, 56, 3, 1, 1, 0, 1, threads});    // 3x3 stride-1 average
  bench->Args({64, 56, 2, 2, 0, 0, 1, threads});    // 2x2 stride-2 average
  bench->Args({1000, 13, 0, 1, 0, 0, 1, threads});  // SqueezeNet global average
  bench->Args({1280, 7, 0, 1, 0, 0, 1, threads});   // MobileNet v2 global average
  if (threads > 1) bench->UseRealTime();
}
BENCHMARK(BM_Pooling)->Apply([](benchmark::internal::Benchmark* b) { ZooShapes(b, 1); });
BENCHMARK(BM_Pooling)->Apply([](benchmark::internal::Benchmark* b) { ZooShapes(b, 2); });
BENCHMARK(BM_PoolingReference)->Apply([](benchmark::internal::Benchmark* b) { ZooShapes(b, 1); });

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
