// Convolution kernel benchmarks (FLOP/s = 2 x MACs per second), against the
// reference kernel on a small shape for scale.
//
//   bazel run //mace/ops:cpu_conv_2d_benchmark
//
// Shapes are MobileNet/ResNet-like layers at 56x56 or 28x28.
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/cpu/conv_2d_blocked.h"
#include "mace/ops/cpu/conv_2d_blocked_winograd.h"
#include "mace/ops/cpu/conv_2d_gemm.h"
#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/conv_2d_winograd.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

ref::Conv2DParams ConvParams(int64_t channels_in, int64_t size, int64_t channels_out,
                             int64_t kernel, int64_t stride) {
  ref::Conv2DParams p;
  p.batch = 1;
  p.in_channels = channels_in;
  p.in_h = p.in_w = size;
  p.out_channels = channels_out;
  p.kernel_h = p.kernel_w = kernel;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = kernel / 2;
  p.out_h = p.out_w = (size + 2 * (kernel / 2) - kernel) / stride + 1;
  p.activation.type = ActivationType::RELUX;
  return p;
}

double ConvFlops(const ref::Conv2DParams& p) {
  return 2.0 * p.out_channels * p.out_h * p.out_w * (p.in_channels / p.group) * p.kernel_h *
         p.kernel_w;
}

// Args: {in channels, size, out channels, kernel, stride, winograd, threads}.
void BM_Conv2d(benchmark::State& state) {
  const KernelTable* table = BestTable();
  if (table == nullptr) return state.SkipWithError("no SIMD kernels on this CPU");
  const ref::Conv2DParams p =
      ConvParams(state.range(0), state.range(1), state.range(2), state.range(3), state.range(4));
  auto pool = BenchmarkPool(static_cast<int>(state.range(6)));
  const auto input = AlignedRandomFloats(p.in_channels * p.in_h * p.in_w, 1);
  const auto filter =
      AlignedRandomFloats(p.out_channels * p.in_channels * p.kernel_h * p.kernel_w, 2);
  const auto bias = AlignedRandomFloats(p.out_channels, 3);
  AlignedFloats output(p.out_channels * p.out_h * p.out_w);
  auto kernel = CreateConv2dKernel(*table, p, filter.data(), static_cast<int>(state.range(5)));
  ScratchBuffer buffer;
  float* scratch = ScratchOrSkip(state, &buffer, kernel->ScratchBytes(NumThreads(pool.get())));
  if (scratch == nullptr) return;
  for (auto _ : state) {
    kernel->Run(input.data(), bias.data(), output.data(), pool.get(), scratch);
    benchmark::DoNotOptimize(output.data());
  }
  state.SetLabel(kernel->name());
  state.counters["FLOP/s"] =
      benchmark::Counter(ConvFlops(p), benchmark::Counter::kIsIterationInvariantRate);
}

void ConvShapes(benchmark::internal::Benchmark* bench, int threads) {
  bench->Args({64, 56, 64, 1, 1, 0, threads});    // 1x1
  bench->Args({128, 28, 256, 1, 1, 0, threads});  // 1x1
  bench->Args({128, 55, 16, 1, 1, 0, threads});   // 1x1, SqueezeNet's squeeze
  bench->Args({64, 56, 64, 3, 1, 0, threads});    // 3x3 im2col
  bench->Args({64, 56, 64, 3, 1, 2, threads});    // 3x3 Winograd F(2x2)
  bench->Args({64, 56, 64, 3, 1, 4, threads});    // 3x3 Winograd F(4x4)
  bench->Args({128, 28, 128, 3, 1, 4, threads});  // 3x3 Winograd F(4x4)
  bench->Args({64, 56, 128, 3, 2, 0, threads});   // 3x3 stride 2 im2col
  // ResNet-18's other 3x3 layers and its 7x7 stem, through im2col.
  bench->Args({128, 28, 128, 3, 1, 0, threads});
  bench->Args({256, 14, 256, 3, 1, 0, threads});
  bench->Args({512, 7, 512, 3, 1, 0, threads});
  bench->Args({128, 28, 256, 3, 2, 0, threads});
  bench->Args({256, 14, 512, 3, 2, 0, threads});
  bench->Args({3, 224, 64, 7, 2, 0, threads});
  // ResNet-18's 1x1 stride-2 downsamples.
  bench->Args({64, 56, 128, 1, 2, 0, threads});
  bench->Args({256, 14, 512, 1, 2, 0, threads});
  bench->Args({3, 224, 32, 3, 2, 0, threads});  // the MobileNets' stem
  bench->Args({3, 224, 64, 3, 2, 0, threads});  // SqueezeNet 1.1's stem
  if (threads > 1) bench->UseRealTime();
}
BENCHMARK(BM_Conv2d)->Apply([](benchmark::internal::Benchmark* b) { ConvShapes(b, 1); });
BENCHMARK(BM_Conv2d)->Apply([](benchmark::internal::Benchmark* b) { ConvShapes(b, 2); });

// Each method on every ungrouped 3x3 stride-1 layer of ResNet-18 and
// SqueezeNet 1.1, whatever CreateConv2dKernel would pick: the data behind
// Conv2dWinograd::PickTile. Args: {in channels, size, out channels, method
// (0: im2col + GEMM, 2 or 4: Winograd tile), threads}. With cold filters
// each call runs the next of enough kernels (each with its own packed or
// transformed filter) to fill 128 MiB, as a model runs a layer: its
// filter was last read an inference ago. Winograd's transformed filter is
// (t + 2)^2 / 9 times the filter, so a warm filter flatters it most where
// tiles are few (the 13x13 layers).
// Copies of a kernel whose filters of `filter_bytes` fill 128 MiB, so that
// each call, on the next copy, finds its filter beyond every cache.
int64_t ColdCopies(int64_t filter_bytes) {
  constexpr int64_t kColdBytes = int64_t{128} << 20;
  return std::max<int64_t>(2, kColdBytes / filter_bytes);
}

void RunConv3x3Method(benchmark::State& state, bool cold_filters) {
  const KernelTable* table = BestTable();
  if (table == nullptr) return state.SkipWithError("no SIMD kernels on this CPU");
  const ref::Conv2DParams p = ConvParams(state.range(0), state.range(1), state.range(2), 3, 1);
  auto pool = BenchmarkPool(static_cast<int>(state.range(4)));
  const auto input = AlignedRandomFloats(p.in_channels * p.in_h * p.in_w, 1);
  const auto filter = AlignedRandomFloats(p.out_channels * p.in_channels * 9, 2);
  const auto bias = AlignedRandomFloats(p.out_channels, 3);
  AlignedFloats output(p.out_channels * p.out_h * p.out_w);
  const int method = static_cast<int>(state.range(3));
  // Bytes of the filter as the kernel keeps it.
  const int64_t positions = method == 0 ? 9 : (method + 2) * (method + 2);
  const int64_t filter_bytes = positions * p.out_channels * p.in_channels * int64_t{sizeof(float)};
  const int64_t copies = cold_filters ? ColdCopies(filter_bytes) : 1;
  std::vector<std::unique_ptr<Conv2dKernel>> kernels;
  for (int64_t i = 0; i < copies; ++i) {
    if (method == 0) {
      kernels.push_back(std::make_unique<Conv2dGemm>(*table, p, filter.data()));
    } else {
      kernels.push_back(std::make_unique<Conv2dWinograd>(*table, p, filter.data(), method));
    }
  }
  ScratchBuffer buffer;
  float* scratch = ScratchOrSkip(state, &buffer, kernels[0]->ScratchBytes(NumThreads(pool.get())));
  if (scratch == nullptr) return;
  size_t next = 0;
  for (auto _ : state) {
    kernels[next]->Run(input.data(), bias.data(), output.data(), pool.get(), scratch);
    next = next + 1 == kernels.size() ? 0 : next + 1;
    benchmark::DoNotOptimize(output.data());
  }
  state.SetLabel(std::string(kernels[0]->name()) +
                 (Conv2dWinograd::PickTile(*table, p, 4) == method ? " (picked)" : ""));
  state.counters["FLOP/s"] =
      benchmark::Counter(ConvFlops(p), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Conv3x3Method(benchmark::State& state) { RunConv3x3Method(state, false); }
void BM_Conv3x3MethodColdFilter(benchmark::State& state) { RunConv3x3Method(state, true); }

void Conv3x3Shapes(benchmark::internal::Benchmark* bench, int threads) {
  const int64_t shapes[][3] = {{64, 56, 64}, {128, 28, 128}, {256, 14, 256}, {512, 7, 512},
                               {16, 55, 64}, {32, 27, 128},  {48, 13, 192},  {64, 13, 256}};
  for (const auto& shape : shapes) {
    for (int method : {0, 2, 4}) bench->Args({shape[0], shape[1], shape[2], method, threads});
  }
  if (threads > 1) bench->UseRealTime();
}

BENCHMARK(BM_Conv3x3Method)->Apply([](benchmark::internal::Benchmark* b) { Conv3x3Shapes(b, 1); });
BENCHMARK(BM_Conv3x3Method)->Apply([](benchmark::internal::Benchmark* b) { Conv3x3Shapes(b, 2); });
BENCHMARK(BM_Conv3x3MethodColdFilter)->Apply([](benchmark::internal::Benchmark* b) {
  Conv3x3Shapes(b, 1);
});
BENCHMARK(BM_Conv3x3MethodColdFilter)->Apply([](benchmark::internal::Benchmark* b) {
  Conv3x3Shapes(b, 2);
});

// The reference kernel, for scale (one small shape: it is slow).
void BM_Conv2dReference(benchmark::State& state) {
  const ref::Conv2DParams p = ConvParams(32, 28, 32, 3, 1);
  const auto input = AlignedRandomFloats(p.in_channels * p.in_h * p.in_w, 1);
  const auto filter = AlignedRandomFloats(p.out_channels * p.in_channels * 9, 2);
  AlignedFloats output(p.out_channels * p.out_h * p.out_w);
  for (auto _ : state) {
    ref::Conv2D(p, input.data(), filter.data(), nullptr, output.data());
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(ConvFlops(p), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Conv2dReference);

// The same layer in the two layouts: the NCHW kernel CreateConv2dKernel
// picks (layout 0), and the channel-blocked kernel on a blocked input
// (layout 1) or, for a stem, on the plain model input (layout 2).
// Args: {in channels, size, out channels, kernel, stride, layout, threads}.
void BM_ConvLayout(benchmark::State& state) {
  const KernelTable* table = BestTable();
  if (table == nullptr || table->channel_block == 0) {
    return state.SkipWithError("no blocked kernels on this CPU");
  }
  const ref::Conv2DParams p =
      ConvParams(state.range(0), state.range(1), state.range(2), state.range(3), state.range(4));
  const int layout = static_cast<int>(state.range(5));
  auto pool = BenchmarkPool(static_cast<int>(state.range(6)));
  const int block = table->channel_block;
  const auto input =
      AlignedRandomFloats(BlockCount(p.in_channels, block) * block * p.in_h * p.in_w, 1);
  const auto filter =
      AlignedRandomFloats(p.out_channels * p.in_channels * p.kernel_h * p.kernel_w, 2);
  const auto bias = AlignedRandomFloats(p.out_channels, 3);
  AlignedFloats output(BlockCount(p.out_channels, block) * block * p.out_h * p.out_w);
  if (layout == 0) {
    auto kernel = CreateConv2dKernel(*table, p, filter.data(), 0);
    ScratchBuffer buffer;
    float* scratch = ScratchOrSkip(state, &buffer, kernel->ScratchBytes(NumThreads(pool.get())));
    if (scratch == nullptr) return;
    for (auto _ : state) {
      kernel->Run(input.data(), bias.data(), output.data(), pool.get(), scratch);
      benchmark::DoNotOptimize(output.data());
    }
    state.SetLabel(kernel->name());
  } else {
    BlockedConv2d kernel(*table, p, filter.data(), bias.data(), layout == 1);
    ScratchBuffer buffer;
    float* scratch = nullptr;
    if (kernel.ScratchBytes() > 0) {
      scratch = ScratchOrSkip(state, &buffer, kernel.ScratchBytes());
      if (scratch == nullptr) return;
    }
    for (auto _ : state) {
      kernel.Run(input.data(), output.data(), pool.get(), scratch);
      benchmark::DoNotOptimize(output.data());
    }
    state.SetLabel(layout == 1 ? "blocked" : "blocked, plain input");
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(ConvFlops(p), benchmark::Counter::kIsIterationInvariantRate);
}

// MobileNet v1's pointwise layers and stem, SqueezeNet 1.1's squeeze and
// expand 1x1 layers, its final 1x1, its 3x3 expands (which run Winograd:
// compare with BM_WinogradLayout) and stem; ResNet-18's 7x7 stem and
// stride-2 3x3 layers, and its stride-1 3x3 layers run direct (compare with
// BM_WinogradLayout); MobileNet v2's 14x14 projections and 7x7 1x1 layers.
constexpr int64_t kLayoutShapes[][5] = {
    {32, 112, 64, 1, 1},   {64, 56, 128, 1, 1},   {128, 56, 128, 1, 1}, {128, 28, 256, 1, 1},
    {256, 28, 256, 1, 1},  {256, 14, 512, 1, 1},  {512, 14, 512, 1, 1}, {512, 7, 1024, 1, 1},
    {1024, 7, 1024, 1, 1}, {64, 55, 16, 1, 1},    {16, 55, 64, 1, 1},   {128, 27, 32, 1, 1},
    {32, 27, 128, 1, 1},   {256, 13, 48, 1, 1},   {48, 13, 192, 1, 1},  {384, 13, 64, 1, 1},
    {64, 13, 256, 1, 1},   {512, 13, 1000, 1, 1}, {48, 13, 192, 3, 1},  {64, 13, 256, 3, 1},
    {16, 55, 64, 3, 1},    {32, 27, 128, 3, 1},   {3, 224, 32, 3, 2},   {3, 224, 64, 3, 2},
    {3, 224, 64, 7, 2},    {64, 56, 128, 3, 2},   {128, 28, 256, 3, 2}, {256, 14, 512, 3, 2},
    {64, 56, 64, 3, 1},    {128, 28, 128, 3, 1},  {256, 14, 256, 3, 1}, {512, 7, 512, 3, 1},
    {384, 14, 64, 1, 1},   {576, 14, 96, 1, 1},   {160, 7, 960, 1, 1},  {960, 7, 160, 1, 1},
    {320, 7, 1280, 1, 1},
};

void LayoutShapes(benchmark::internal::Benchmark* bench, int threads) {
  for (const auto& s : kLayoutShapes) {
    for (int layout : {0, s[0] == 3 ? 2 : 1}) {
      bench->Args({s[0], s[1], s[2], s[3], s[4], layout, threads});
    }
  }
  if (threads > 1) bench->UseRealTime();
}
BENCHMARK(BM_ConvLayout)->Apply([](benchmark::internal::Benchmark* b) { LayoutShapes(b, 1); });
BENCHMARK(BM_ConvLayout)->Apply([](benchmark::internal::Benchmark* b) { LayoutShapes(b, 2); });

// Blocked 1x1 layers with their weights cold, as in a model, where a
// layer's weights were last read an inference ago: each call runs the next
// of enough kernels (each with its own weights) to fill 128 MiB. Args: {in
// channels, size, out channels, threads}. The deep 1x1 layers of MobileNet
// v1 and v2, whose weights outweigh their maps.
void BM_BlockedConvColdWeights(benchmark::State& state) {
  const KernelTable* table = BestTable();
  if (table == nullptr || table->channel_block == 0) {
    return state.SkipWithError("no blocked kernels on this CPU");
  }
  const ref::Conv2DParams p = ConvParams(state.range(0), state.range(1), state.range(2), 1, 1);
  auto pool = BenchmarkPool(static_cast<int>(state.range(3)));
  const int block = table->channel_block;
  const auto input =
      AlignedRandomFloats(BlockCount(p.in_channels, block) * block * p.in_h * p.in_w, 1);
  const auto filter = AlignedRandomFloats(p.out_channels * p.in_channels, 2);
  const auto bias = AlignedRandomFloats(p.out_channels, 3);
  AlignedFloats output(BlockCount(p.out_channels, block) * block * p.out_h * p.out_w);
  const int64_t filter_bytes = p.out_channels * p.in_channels * int64_t{sizeof(float)};
  const int64_t copies = ColdCopies(filter_bytes);
  std::vector<std::unique_ptr<BlockedConv2d>> kernels;
  for (int64_t i = 0; i < copies; ++i) {
    kernels.push_back(std::make_unique<BlockedConv2d>(*table, p, filter.data(), bias.data(), true));
  }
  size_t next = 0;
  for (auto _ : state) {
    kernels[next]->Run(input.data(), output.data(), pool.get(), nullptr);
    next = next + 1 == kernels.size() ? 0 : next + 1;
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(ConvFlops(p), benchmark::Counter::kIsIterationInvariantRate);
}

void ColdWeightShapes(benchmark::internal::Benchmark* bench) {
  const int64_t shapes[][3] = {{512, 14, 512}, {512, 7, 1024}, {1024, 7, 1024}, {576, 14, 96},
                               {160, 7, 960},  {960, 7, 160},  {320, 7, 1280}};
  for (int threads : {1, 2}) {
    for (const auto& s : shapes) bench->Args({s[0], s[1], s[2], threads});
  }
  bench->UseRealTime();
}
BENCHMARK(BM_BlockedConvColdWeights)->Apply(ColdWeightShapes);

// Winograd in the two layouts: Conv2dWinograd on NCHW (layout 0) and
// BlockedWinograd on a blocked input (layout 1), the same tile. Args: {in
// channels, size, out channels, tile, layout, threads}. SqueezeNet 1.1's
// 3x3 expands, ResNet-18's stride-1 3x3 layers.
void BM_WinogradLayout(benchmark::State& state) {
  const KernelTable* table = BestTable();
  if (table == nullptr || table->channel_block == 0) {
    return state.SkipWithError("no blocked kernels on this CPU");
  }
  const ref::Conv2DParams p = ConvParams(state.range(0), state.range(1), state.range(2), 3, 1);
  const int tile = static_cast<int>(state.range(3));
  auto pool = BenchmarkPool(static_cast<int>(state.range(5)));
  const int block = table->channel_block;
  const auto input =
      AlignedRandomFloats(BlockCount(p.in_channels, block) * block * p.in_h * p.in_w, 1);
  const auto filter = AlignedRandomFloats(p.out_channels * p.in_channels * 9, 2);
  const auto bias = AlignedRandomFloats(p.out_channels, 3);
  AlignedFloats output(BlockCount(p.out_channels, block) * block * p.out_h * p.out_w);
  const int threads = NumThreads(pool.get());
  ScratchBuffer buffer;
  if (state.range(4) == 0) {
    Conv2dWinograd kernel(*table, p, filter.data(), tile);
    float* scratch = ScratchOrSkip(state, &buffer, kernel.ScratchBytes(threads));
    if (scratch == nullptr) return;
    for (auto _ : state) {
      kernel.Run(input.data(), bias.data(), output.data(), pool.get(), scratch);
      benchmark::DoNotOptimize(output.data());
    }
    state.SetLabel(kernel.name());
  } else {
    BlockedWinograd kernel(*table, p, filter.data(), bias.data(), tile);
    float* scratch = ScratchOrSkip(state, &buffer, kernel.ScratchBytes(threads));
    if (scratch == nullptr) return;
    for (auto _ : state) {
      kernel.Run(input.data(), output.data(), pool.get(), scratch);
      benchmark::DoNotOptimize(output.data());
    }
    state.SetLabel("blocked");
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(ConvFlops(p), benchmark::Counter::kIsIterationInvariantRate);
}

constexpr int64_t kWinogradLayoutShapes[][4] = {
    {16, 55, 64, 4},   {32, 27, 128, 4}, {48, 13, 192, 4},  {64, 13, 256, 4},
    {48, 13, 192, 2},  {64, 56, 64, 4},  {128, 28, 128, 4}, {256, 14, 256, 2},
    {256, 14, 256, 4}, {512, 7, 512, 2}, {512, 7, 512, 4},
};

void WinogradLayoutShapes(benchmark::internal::Benchmark* bench, int threads) {
  for (const auto& s : kWinogradLayoutShapes) {
    for (int layout : {0, 1}) bench->Args({s[0], s[1], s[2], s[3], layout, threads});
  }
  if (threads > 1) bench->UseRealTime();
}
BENCHMARK(BM_WinogradLayout)->Apply([](benchmark::internal::Benchmark* b) {
  WinogradLayoutShapes(b, 1);
});
BENCHMARK(BM_WinogradLayout)->Apply([](benchmark::internal::Benchmark* b) {
  WinogradLayoutShapes(b, 2);
});

// 3x3 depthwise in the two layouts. Args: {channels, size, stride, layout,
// threads}.
void BM_DepthwiseLayout(benchmark::State& state) {
  const KernelTable* table = BestTable();
  if (table == nullptr || table->channel_block == 0) {
    return state.SkipWithError("no blocked kernels on this CPU");
  }
  ref::DepthwiseConv2dParams p;
  p.batch = 1;
  p.channels = state.range(0);
  p.in_h = p.in_w = state.range(1);
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = state.range(2);
  p.pad_top = p.pad_left = 1;
  p.out_h = p.out_w = (p.in_h - 1) / p.stride_h + 1;
  p.activation.type = ActivationType::RELUX;
  auto pool = BenchmarkPool(static_cast<int>(state.range(4)));
  const int block = table->channel_block;
  const auto input =
      AlignedRandomFloats(BlockCount(p.channels, block) * block * p.in_h * p.in_w, 1);
  const auto filter = AlignedRandomFloats(p.channels * 9, 2);
  const auto bias = AlignedRandomFloats(p.channels, 3);
  AlignedFloats output(BlockCount(p.channels, block) * block * p.out_h * p.out_w);
  if (state.range(3) == 0) {
    DepthwiseConv3x3 kernel(*table, p);
    ScratchBuffer buffer;
    float* scratch = ScratchOrSkip(state, &buffer, kernel.ScratchBytes(NumThreads(pool.get())));
    if (scratch == nullptr) return;
    for (auto _ : state) {
      kernel.Run(input.data(), filter.data(), bias.data(), output.data(), pool.get(), scratch);
      benchmark::DoNotOptimize(output.data());
    }
  } else {
    BlockedDepthwise kernel(*table, p, filter.data(), bias.data());
    for (auto _ : state) {
      kernel.Run(input.data(), output.data(), pool.get());
      benchmark::DoNotOptimize(output.data());
    }
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * p.channels * p.out_h * p.out_w * 9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// Args: {channels, size, stride, threads}; run once per kernel family this
// build has, so the x86 ones are compared in the same run.
void BM_Depthwise3x3(benchmark::State& state, KernelIsa isa) {
  const KernelTable* table = TableOrSkip(state, isa);
  if (table == nullptr) return;
  ref::DepthwiseConv2dParams p;
  p.batch = 1;
  p.channels = state.range(0);
  p.in_h = p.in_w = state.range(1);
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = state.range(2);
  p.pad_top = p.pad_left = 1;
  p.out_h = p.out_w = (p.in_h - 1) / p.stride_h + 1;
  p.activation.type = ActivationType::RELUX;
  auto pool = BenchmarkPool(static_cast<int>(state.range(3)));
  const auto input = AlignedRandomFloats(p.channels * p.in_h * p.in_w, 1);
  const auto filter = AlignedRandomFloats(p.channels * 9, 2);
  const auto bias = AlignedRandomFloats(p.channels, 3);
  AlignedFloats output(p.channels * p.out_h * p.out_w);
  DepthwiseConv3x3 kernel(*table, p);
  ScratchBuffer buffer;
  float* scratch = ScratchOrSkip(state, &buffer, kernel.ScratchBytes(NumThreads(pool.get())));
  if (scratch == nullptr) return;
  for (auto _ : state) {
    kernel.Run(input.data(), filter.data(), bias.data(), output.data(), pool.get(), scratch);
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * p.channels * p.out_h * p.out_w * 9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// {channels, input size, stride}: MobileNet v1's depthwise layers at 224x224,
// then MobileNet v2's (whose first, 32 at 112, is v1's): one per distinct
// shape, the repeats of a stage left out.
constexpr int64_t kDepthwiseShapes[][3] = {{32, 112, 1}, {64, 112, 2}, {128, 56, 1}, {128, 56, 2},
                                           {256, 28, 1}, {256, 28, 2}, {512, 14, 1}, {512, 14, 2},
                                           {1024, 7, 1}, {96, 112, 2}, {144, 56, 1}, {144, 56, 2},
                                           {192, 28, 1}, {384, 14, 1}, {576, 14, 2}, {960, 7, 1}};

void DepthwiseShapes(benchmark::internal::Benchmark* bench, int threads) {
  for (const auto& shape : kDepthwiseShapes) bench->Args({shape[0], shape[1], shape[2], threads});
  if (threads > 1) bench->UseRealTime();
}
void DepthwiseShapes1(benchmark::internal::Benchmark* bench) { DepthwiseShapes(bench, 1); }
void DepthwiseShapes2(benchmark::internal::Benchmark* bench) { DepthwiseShapes(bench, 2); }
void DepthwiseLayoutShapes(benchmark::internal::Benchmark* bench, int threads) {
  for (const auto& shape : kDepthwiseShapes) {
    for (int layout : {0, 1}) bench->Args({shape[0], shape[1], shape[2], layout, threads});
  }
  if (threads > 1) bench->UseRealTime();
}
BENCHMARK(BM_DepthwiseLayout)->Apply([](benchmark::internal::Benchmark* b) {
  DepthwiseLayoutShapes(b, 1);
});
BENCHMARK(BM_DepthwiseLayout)->Apply([](benchmark::internal::Benchmark* b) {
  DepthwiseLayoutShapes(b, 2);
});
[[maybe_unused]] const bool kDepthwise3x3Registered = [] {
  for (auto* bench : RegisterPerIsa("BM_Depthwise3x3", BM_Depthwise3x3)) {
    bench->Apply(DepthwiseShapes1);
  }
  for (auto* bench : RegisterPerIsa("BM_Depthwise3x3", BM_Depthwise3x3)) {
    bench->Apply(DepthwiseShapes2);
  }
  return true;
}();

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
