// uint8 convolution benchmarks (OP/s = 2 x MACs per second): the uint8 GEMM
// of each kernel family this CPU has, and the reference kernel for scale.
// Compare with the float kernels of cpu_conv_2d_benchmark on the same
// shapes: one thread in CPU time, and two threads in real time.
//
//   bazel run //mace/ops:cpu_conv_2d_uint8_benchmark
#include <memory>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/cpu/conv_2d_uint8_gemm.h"

namespace mace {
namespace ops {
namespace {

struct Uint8Conv {
  ref::Conv2DParams p;
  ref::quantized::ConvQuantization quant;
  std::vector<uint8_t> input, filter, output;
  std::vector<int32_t> bias;
};

// Args: {in channels, size, out channels, kernel, stride, threads}.
Uint8Conv MakeConv(const benchmark::State& state) {
  Uint8Conv conv;
  ref::Conv2DParams& p = conv.p;
  p.batch = 1;
  p.in_channels = state.range(0);
  p.in_h = p.in_w = state.range(1);
  p.out_channels = state.range(2);
  p.kernel_h = p.kernel_w = state.range(3);
  p.stride_h = p.stride_w = state.range(4);
  p.pad_top = p.pad_left = p.kernel_h / 2;
  p.out_h = p.out_w = (p.in_h + 2 * p.pad_top - p.kernel_h) / p.stride_h + 1;
  std::mt19937 rng(7767517);
  std::uniform_int_distribution<int> byte(0, 255);
  conv.input.resize(p.in_channels * p.in_h * p.in_w);
  conv.filter.resize(p.out_channels * p.in_channels * p.kernel_h * p.kernel_w);
  for (uint8_t& v : conv.input) v = static_cast<uint8_t>(byte(rng));
  for (uint8_t& v : conv.filter) v = static_cast<uint8_t>(byte(rng));
  conv.bias.assign(p.out_channels, 100);
  conv.output.resize(p.out_channels * p.out_h * p.out_w);
  conv.quant.input_zero_point = 120;
  conv.quant.filter_zero_point = 131;
  QuantizedMultiplier m;
  MakeQuantizedMultiplier(0.0003, "benchmark", &m);
  conv.quant.multipliers = {m};
  conv.quant.output = OutputClamp{10, 10, 255};
  return conv;
}

void SetOps(benchmark::State& state, const ref::Conv2DParams& p) {
  state.counters["OP/s"] = benchmark::Counter(
      2.0 * p.out_channels * p.out_h * p.out_w * p.in_channels * p.kernel_h * p.kernel_w,
      benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Uint8Conv(benchmark::State& state, KernelIsa isa) {
  const KernelTable* table = TableOrSkip(state, isa);
  if (table == nullptr) return;
  Uint8Conv conv = MakeConv(state);
  auto fast = Conv2dUint8Gemm::Create(*table, conv.p, conv.quant, conv.filter.data(), false);
  if (fast == nullptr) return state.SkipWithError("no uint8 GEMM in this family");
  auto pool = BenchmarkPool(static_cast<int>(state.range(5)));
  for (auto _ : state) {
    fast->Run(conv.input.data(), conv.bias.data(), conv.output.data(), pool.get());
    benchmark::DoNotOptimize(conv.output.data());
  }
  state.SetLabel(fast->name());
  SetOps(state, conv.p);
}

void BM_Uint8ConvReference(benchmark::State& state) {
  Uint8Conv conv = MakeConv(state);
  for (auto _ : state) {
    ref::quantized::Conv2D(conv.p, conv.quant, conv.input.data(), conv.filter.data(),
                           conv.bias.data(), conv.output.data());
    benchmark::DoNotOptimize(conv.output.data());
  }
  SetOps(state, conv.p);
}

void ShapesAt(benchmark::internal::Benchmark* bench, int threads) {
  bench->Args({64, 56, 64, 1, 1, threads});    // 1x1
  bench->Args({128, 28, 256, 1, 1, threads});  // 1x1
  bench->Args({64, 56, 64, 3, 1, threads});    // 3x3
  bench->Args({64, 56, 128, 3, 2, threads});   // 3x3 stride 2
}

// One thread in CPU time, as cpu_conv_2d_benchmark; two in real time.
void Shapes(benchmark::internal::Benchmark* bench) { ShapesAt(bench, 1); }
void ThreadedShapes(benchmark::internal::Benchmark* bench) {
  ShapesAt(bench, 2);
  bench->UseRealTime();
}

BENCHMARK_CAPTURE(BM_Uint8Conv, avx2, KernelIsa::kAvx2Fma)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Uint8Conv, avx512, KernelIsa::kAvx512)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Uint8Conv, neon, KernelIsa::kNeon)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Uint8Conv, avx512, KernelIsa::kAvx512)->Apply(ThreadedShapes);
BENCHMARK(BM_Uint8ConvReference)->Args({64, 28, 64, 1, 1, 1});

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
