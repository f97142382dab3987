// uint8 3x3 depthwise convolution benchmarks (OP/s = 2 x MACs per second),
// on MobileNet v2 layer shapes, one thread: each kernel family's rows with
// the output step fused (`fused`) and the same family with the row kernels'
// int32 sums requantized in a second pass (`two_pass`), so the two can be
// compared within one run, and the channel-blocked kernel (`blocked`,
// taps within int8 of the filter zero point) where the family has one.
//
//   bazel run //mace/ops:cpu_depthwise_conv_2d_uint8_benchmark
#include <memory>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/cpu/depthwise_conv_2d_uint8_fast.h"

namespace mace {
namespace ops {
namespace {

// Args: {channels, size, stride}.
void BM_Uint8Depthwise(benchmark::State& state, KernelIsa isa, bool fused, bool blocked = false,
                       bool planar = true) {
  const KernelTable* found = TableOrSkip(state, isa);
  if (found == nullptr) return;
  KernelTable table = *found;
  if (blocked && table.depthwise3x3_uint8_block == nullptr) {
    return state.SkipWithError("no blocked kernel in this family");
  }
  if (!planar) table.depthwise3x3_uint8_planar = nullptr;
  if (!fused) {
    table.depthwise3x3_uint8_requant_s1 = nullptr;
    table.depthwise3x3_uint8_requant_s2 = nullptr;
  } else if (table.depthwise3x3_uint8_requant_s1 == nullptr) {
    return state.SkipWithError("no fused rows in this family");
  }
  ref::DepthwiseConv2dParams p;
  p.batch = 1;
  p.channels = state.range(0);
  p.in_h = p.in_w = state.range(1);
  p.multiplier = 1;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = state.range(2);
  p.pad_top = p.pad_left = 1;
  p.out_h = p.out_w = (p.in_h + 2 - 3) / p.stride_h + 1;
  std::mt19937 rng(7767517);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> input(p.channels * p.in_h * p.in_w), filter(p.channels * 9);
  for (uint8_t& v : input) v = static_cast<uint8_t>(byte(rng));
  // The blocked kernel takes taps within int8 of the filter zero point.
  std::uniform_int_distribution<int> tap(blocked ? 3 : 0, blocked ? 255 : 255);
  for (uint8_t& v : filter) v = static_cast<uint8_t>(tap(rng));
  std::vector<int32_t> bias(p.channels, 100);
  std::vector<uint8_t> output(p.channels * p.out_h * p.out_w);
  ref::quantized::ConvQuantization quant;
  quant.input_zero_point = 120;
  quant.filter_zero_point = 131;
  QuantizedMultiplier m;
  MakeQuantizedMultiplier(0.0003, "benchmark", &m);
  quant.multipliers = {m};
  quant.output = OutputClamp{10, 10, 255};
  auto fast = DepthwiseUint8Fast::Create(table, p, quant, filter.data(), false);
  if (fast == nullptr) return state.SkipWithError("no uint8 depthwise rows in this family");
  for (auto _ : state) {
    fast->Run(input.data(), bias.data(), output.data(), nullptr);
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["OP/s"] = benchmark::Counter(2.0 * 9 * p.channels * p.out_h * p.out_w,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void Shapes(benchmark::internal::Benchmark* bench) {
  bench->Args({32, 112, 1});
  bench->Args({96, 112, 2});
  bench->Args({144, 56, 1});
  bench->Args({144, 56, 2});
  bench->Args({192, 28, 1});
  bench->Args({192, 28, 2});
  bench->Args({384, 14, 1});
  bench->Args({576, 14, 2});
  bench->Args({960, 7, 1});
}

BENCHMARK_CAPTURE(BM_Uint8Depthwise, avx2_two_pass, KernelIsa::kAvx2Fma, false)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Uint8Depthwise, avx2_fused, KernelIsa::kAvx2Fma, true)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Uint8Depthwise, avx512_two_pass, KernelIsa::kAvx512, false)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Uint8Depthwise, avx512_fused, KernelIsa::kAvx512, true)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Uint8Depthwise, avx512_blocked, KernelIsa::kAvx512, true, true)
    ->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Uint8Depthwise, avx512_blocked_no_planar, KernelIsa::kAvx512, true, true,
                  false)
    ->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Uint8Depthwise, neon_two_pass, KernelIsa::kNeon, false)->Apply(Shapes);

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
