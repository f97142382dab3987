// A 3x3 depthwise layer and the 1x1 layer after it on blocked tensors: the
// two blocked kernels one after the other against the fused kernel
// (BlockedDepthwisePointwise). Args: {channels, input size, 1x1 output
// channels, depthwise stride, fused, threads}. MobileNet v1's pairs on
// 112x112 and 56x56 maps, whose depthwise outputs outgrow L2, and a 28x28
// and a 14x14 one that fit.
//
//   bazel run //mace/ops:cpu_depthwise_conv_2d_pointwise_benchmark
#include <memory>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/cpu/conv_2d_blocked.h"
#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"
#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"

namespace mace {
namespace ops {
namespace {

void BM_DepthwisePointwise(benchmark::State& state) {
  const KernelTable* table = BestTable();
  if (table == nullptr || table->channel_block == 0) {
    return state.SkipWithError("no blocked kernels on this CPU");
  }
  const int64_t channels = state.range(0), size = state.range(1), out_channels = state.range(2);
  const int64_t stride = state.range(3);
  const bool fused = state.range(4) != 0;
  auto pool = BenchmarkPool(static_cast<int>(state.range(5)));
  ref::DepthwiseConv2dParams dw;
  dw.batch = 1;
  dw.channels = channels;
  dw.in_h = dw.in_w = size;
  dw.kernel_h = dw.kernel_w = 3;
  dw.stride_h = dw.stride_w = stride;
  dw.pad_top = dw.pad_left = stride == 1 ? 1 : 0;
  dw.out_h = dw.out_w = (size + 1 + dw.pad_top - 3) / stride + 1;
  dw.activation.type = ActivationType::RELUX;
  dw.activation.max_limit = 6.f;
  ref::Conv2DParams pw;
  pw.batch = 1;
  pw.in_channels = channels;
  pw.out_channels = out_channels;
  pw.in_h = pw.out_h = dw.out_h;
  pw.in_w = pw.out_w = dw.out_w;
  pw.kernel_h = pw.kernel_w = 1;
  pw.activation = dw.activation;
  const int block = table->channel_block;
  const auto input = AlignedRandomFloats(BlockCount(channels, block) * block * size * size, 1);
  const auto dw_filter = AlignedRandomFloats(channels * 9, 2);
  const auto dw_bias = AlignedRandomFloats(channels, 3);
  const auto pw_filter = AlignedRandomFloats(out_channels * channels, 4);
  const auto pw_bias = AlignedRandomFloats(out_channels, 5);
  const int64_t out_plane = dw.out_h * dw.out_w;
  AlignedFloats middle(BlockCount(channels, block) * block * out_plane);
  AlignedFloats output(BlockCount(out_channels, block) * block * out_plane);
  if (fused) {
    BlockedDepthwisePointwise kernel(*table, dw, dw_filter.data(), dw_bias.data(), pw,
                                     pw_filter.data(), pw_bias.data());
    ScratchBuffer buffer;
    float* scratch = ScratchOrSkip(state, &buffer, kernel.ScratchBytes(NumThreads(pool.get())));
    if (scratch == nullptr) return;
    for (auto _ : state) {
      kernel.Run(input.data(), output.data(), pool.get(), scratch);
      benchmark::DoNotOptimize(output.data());
    }
  } else {
    BlockedDepthwise depthwise(*table, dw, dw_filter.data(), dw_bias.data());
    BlockedConv2d pointwise(*table, pw, pw_filter.data(), pw_bias.data(), true);
    for (auto _ : state) {
      depthwise.Run(input.data(), middle.data(), pool.get());
      pointwise.Run(middle.data(), output.data(), pool.get(), nullptr);
      benchmark::DoNotOptimize(output.data());
    }
  }
  const double flops = 2.0 * out_plane * channels * (9 + out_channels);
  state.counters["FLOP/s"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

void Shapes(benchmark::internal::Benchmark* bench) {
  const int64_t shapes[][4] = {
      {32, 112, 64, 1}, {64, 112, 128, 2}, {128, 56, 128, 1}, {256, 28, 256, 1}, {512, 14, 512, 1}};
  for (int threads : {1, 2}) {
    for (const auto& s : shapes) {
      for (int fused : {0, 1}) bench->Args({s[0], s[1], s[2], s[3], fused, threads});
    }
  }
  bench->UseRealTime();
}
BENCHMARK(BM_DepthwisePointwise)->Apply(Shapes);

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
