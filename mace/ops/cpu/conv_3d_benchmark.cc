// Conv3D: the GEMM kernel against the reference kernel, in GFLOP/s, on
// video-network shapes (C3D, R(2+1)D-like 3x3x3 and 1x1x1 layers).
//   bazel run -c opt //mace/ops:cpu_conv_3d_benchmark -- --benchmark_repetitions=5
#include <memory>
#include <vector>

#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/cpu/conv_3d_cpu.h"
#include "mace/ops/ref/conv_3d.h"

namespace mace {
namespace ops {
namespace {

// Arguments: channels in, channels out, depth, size (height = width), kernel
// (cube), threads.
ref::Conv3DParams Shape(const benchmark::State& state) {
  ref::Conv3DParams p;
  p.batch = 1;
  p.in_channels = state.range(0);
  p.out_channels = state.range(1);
  const int64_t kernel = state.range(4);
  for (int a = 0; a < 3; ++a) {
    p.in[a] = a == 0 ? state.range(2) : state.range(3);
    p.kernel[a] = kernel;
    p.pad[a] = kernel / 2;
    p.out[a] = p.in[a];
  }
  return p;
}

double Flops(const ref::Conv3DParams& p) {
  return 2.0 * p.out_channels * p.in_channels * p.kernel[0] * p.kernel[1] * p.kernel[2] * p.out[0] *
         p.out[1] * p.out[2];
}

void BM_Conv3dGemm(benchmark::State& state) {
  const ref::Conv3DParams p = Shape(state);
  const KernelTable* table = BestTable();
  if (table == nullptr) {
    state.SkipWithError("no fast kernels on this CPU");
    return;
  }
  const std::vector<float> input =
      testing::RandomFloats(p.in_channels * p.in[0] * p.in[1] * p.in[2], 1);
  const std::vector<float> filter = testing::RandomFloats(
      p.out_channels * p.in_channels * p.kernel[0] * p.kernel[1] * p.kernel[2], 2);
  std::vector<float> output(p.out_channels * p.out[0] * p.out[1] * p.out[2]);
  const Conv3dGemm gemm(*table, p, filter.data(), nullptr);
  const std::unique_ptr<ThreadPool> pool = BenchmarkPool(static_cast<int>(state.range(5)));
  ScratchBuffer buffer;
  float* scratch = ScratchOrSkip(state, &buffer, gemm.ScratchBytes(NumThreads(pool.get())));
  if (scratch == nullptr) return;
  for (auto _ : state) {
    gemm.Run(input.data(), nullptr, output.data(), pool.get(), scratch);
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(Flops(p) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Conv3dReference(benchmark::State& state) {
  const ref::Conv3DParams p = Shape(state);
  const std::vector<float> input =
      testing::RandomFloats(p.in_channels * p.in[0] * p.in[1] * p.in[2], 1);
  const std::vector<float> filter = testing::RandomFloats(
      p.out_channels * p.in_channels * p.kernel[0] * p.kernel[1] * p.kernel[2], 2);
  std::vector<float> output(p.out_channels * p.out[0] * p.out[1] * p.out[2]);
  for (auto _ : state) {
    ref::Conv3D(p, input.data(), filter.data(), nullptr, output.data());
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(Flops(p) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void Shapes(benchmark::internal::Benchmark* b, int threads) {
  b->Args({16, 32, 8, 28, 3, threads});
  b->Args({64, 64, 4, 14, 3, threads});
  b->Args({64, 128, 4, 14, 1, threads});
  b->ArgNames({"cin", "cout", "d", "hw", "k", "threads"});
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Conv3dGemm)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, 1); });
BENCHMARK(BM_Conv3dGemm)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, 2); });
BENCHMARK(BM_Conv3dReference)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, 1); });

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
