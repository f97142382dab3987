// SGEMM and FMA-peak benchmarks, reported as FLOP/s.
//
//   bazel run -c opt //mace/ops:cpu_gemm_benchmark -- --benchmark_filter=Peak
//
// BM_FmaPeak is the ceiling; BM_Sgemm packs A once (like conv weights) and B
// per call, and BM_Sgemm1x1ColdWeights reads A from memory as a model does;
// BM_SgemmFc runs FullyConnected's orientation (weights as B), warm or cold;
// BM_EigenSgemm is Eigen's product on the same shapes for comparison. All
// but Eigen's run once per kernel family this build has (on x86-64 AVX2 and
// AVX-512, each skipped on a CPU without it).
#include <Eigen/Core>
#include <algorithm>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/benchmark_util.h"
#include "mace/ops/cpu/gemm.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

void BM_FmaPeak(benchmark::State& state, KernelIsa isa) {
  const KernelTable* table = TableOrSkip(state, isa);
  if (table == nullptr) return;
  const int threads = static_cast<int>(state.range(0));
  auto pool = BenchmarkPool(threads);
  constexpr int64_t kIterations = 1 << 20;
  std::vector<float> sink(8 * threads);
  int64_t flops = 0;
  for (auto _ : state) {
    ParallelFor(pool.get(), threads, [&](int64_t begin, int64_t, int) {
      table->fma_peak(kIterations, sink.data() + 8 * begin);
    });
    flops += table->fma_peak == nullptr ? 0 : kIterations;
  }
  float probe[8];
  const int64_t per_call = table->fma_peak(1, probe);
  state.counters["FLOP/s"] = benchmark::Counter(static_cast<double>(flops) * per_call * threads,
                                                benchmark::Counter::kIsRate);
}
// One thread is timed in CPU time, which stays meaningful on a shared
// machine; several threads in wall time, which is what parallelism buys.
[[maybe_unused]] const bool kFmaPeakRegistered = [] {
  for (auto* bench : RegisterPerIsa("BM_FmaPeak", BM_FmaPeak)) bench->Arg(1);
  for (auto* bench : RegisterPerIsa("BM_FmaPeak", BM_FmaPeak)) bench->Arg(2)->UseRealTime();
  return true;
}();

// A packed once (like conv weights), B packed per call. With cold weights
// each call uses the next of enough copies of A to fill 128 MiB, as a model
// runs a layer: its weights were last read a whole inference ago, so they
// come from L3 or memory, while B (the previous layer's output) is warm.
void RunSgemm(benchmark::State& state, KernelIsa isa, bool cold_weights) {
  const KernelTable* table = TableOrSkip(state, isa);
  if (table == nullptr) return;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  auto pool = BenchmarkPool(static_cast<int>(state.range(3)));
  const AlignedFloats a = AlignedRandomFloats(m * k, 1);
  const AlignedFloats b = AlignedRandomFloats(k * n, 2);
  AlignedFloats c(m * n);
  constexpr int64_t kColdBytes = int64_t{128} << 20;
  const int64_t copies =
      cold_weights ? std::max<int64_t>(2, kColdBytes / (m * k * int64_t{sizeof(float)})) : 1;
  std::vector<PackedPanels> packed_a(copies);
  for (auto& panels : packed_a) panels.Pack(a.data(), m, k, k, 1, table->mr);
  GemmOperand lhs, rhs;
  lhs.packed = &packed_a[0];
  rhs.data = b.data();
  rhs.stride = 1;
  rhs.depth_stride = n;
  ScratchBuffer buffer;
  float* scratch = ScratchOrSkip(state, &buffer,
                                 NumThreads(pool.get()) * int64_t{sizeof(float)} *
                                     GemmScratchFloatsPerThread(*table, m, n, k, lhs, rhs));
  if (scratch == nullptr) return;
  TileEpilogue epilogue;
  int64_t next = 0;
  for (auto _ : state) {
    lhs.packed = &packed_a[next];
    next = next + 1 == copies ? 0 : next + 1;
    Gemm(*table, m, n, k, lhs, rhs, c.data(), n, epilogue, pool.get(), scratch);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Sgemm(benchmark::State& state, KernelIsa isa) { RunSgemm(state, isa, false); }
// The same product, listed apart so the 1x1 layers can be selected alone.
void BM_Sgemm1x1(benchmark::State& state, KernelIsa isa) { RunSgemm(state, isa, false); }
void BM_Sgemm1x1ColdWeights(benchmark::State& state, KernelIsa isa) { RunSgemm(state, isa, true); }

// FullyConnected as the op runs it: the activations (m rows of k) are A,
// packed per call; the weight (n x k) is B, packed once into nr panels.
// With cold weights each call uses the next of enough copies of the weight
// to fill 128 MiB, as an encoder runs a layer (BERT-mini's weights are
// 7 MiB a layer, more than L2).
void RunSgemmFc(benchmark::State& state, KernelIsa isa, bool cold_weights) {
  const KernelTable* table = TableOrSkip(state, isa);
  if (table == nullptr) return;
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  auto pool = BenchmarkPool(static_cast<int>(state.range(3)));
  const AlignedFloats input = AlignedRandomFloats(m * k, 1);
  const AlignedFloats weight = AlignedRandomFloats(n * k, 2);
  const AlignedFloats bias = AlignedRandomFloats(n, 3);
  AlignedFloats c(m * n);
  constexpr int64_t kColdBytes = int64_t{128} << 20;
  const int64_t copies =
      cold_weights ? std::max<int64_t>(2, kColdBytes / (n * k * int64_t{sizeof(float)})) : 1;
  std::vector<PackedPanels> packed(copies);
  for (auto& panels : packed) panels.Pack(weight.data(), n, k, k, 1, table->nr);
  GemmOperand lhs, rhs;
  lhs.data = input.data();
  lhs.stride = k;
  lhs.depth_stride = 1;
  rhs.packed = &packed[0];
  ScratchBuffer buffer;
  float* scratch = ScratchOrSkip(state, &buffer,
                                 NumThreads(pool.get()) * int64_t{sizeof(float)} *
                                     GemmScratchFloatsPerThread(*table, m, n, k, lhs, rhs));
  if (scratch == nullptr) return;
  TileEpilogue epilogue;
  epilogue.col_bias = bias.data();
  int64_t next = 0;
  for (auto _ : state) {
    rhs.packed = &packed[next];
    next = next + 1 == copies ? 0 : next + 1;
    Gemm(*table, m, n, k, lhs, rhs, c.data(), n, epilogue, pool.get(), scratch);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SgemmFc(benchmark::State& state, KernelIsa isa) { RunSgemmFc(state, isa, false); }
void BM_SgemmFcColdWeights(benchmark::State& state, KernelIsa isa) { RunSgemmFc(state, isa, true); }

// {m, n, k, threads}: the transformer encoders' FullyConnected layers (m
// tokens, k in and n out features): BERT-mini-like (128 tokens, 384 wide,
// the three projections in one 1152-wide product, 1536 FFN), ViT-tiny (197
// tokens, 192 wide, 768 FFN) and the Whisper-tiny encoder (1500 tokens, 384
// wide).
template <int kThreads>
void FcShapes(benchmark::internal::Benchmark* bench) {
  const int shapes[][3] = {
      {128, 384, 384},   {128, 1152, 384},  {128, 1536, 384},  {128, 384, 1536},
      {197, 192, 192},   {197, 576, 192},   {197, 768, 192},   {197, 192, 768},
      {1500, 384, 384},  {1500, 1152, 384}, {1500, 1536, 384}, {1500, 384, 1536},
      {50, 384, 384},
  };
  for (const auto& shape : shapes) bench->Args({shape[0], shape[1], shape[2], kThreads});
  if (kThreads > 1) bench->UseRealTime();
}

void BM_EigenSgemm(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Matrix a = Matrix::Random(m, k), b = Matrix::Random(k, n), c(m, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["FLOP/s"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}

// {m, n, k, threads}: square sizes, then MobileNet-like 1x1 convolutions
// (m = out channels, n = pixels, k = in channels), a 3x3 im2col shape, a
// classifier and SqueezeNet 1.1's squeeze layers (few rows, deep k: they
// scale worst from one thread to two).
template <int kThreads>
void GemmShapes(benchmark::internal::Benchmark* bench) {
  for (int size : {256, 512, 1024}) bench->Args({size, size, size, kThreads});
  bench->Args({64, 3136, 64, kThreads});
  bench->Args({256, 784, 128, kThreads});
  bench->Args({1024, 49, 1024, kThreads});
  bench->Args({128, 3136, 576, kThreads});
  bench->Args({1000, 1, 1280, kThreads});  // a classifier: matrix times vector
  bench->Args({16, 3025, 128, kThreads});  // SqueezeNet 1.1 squeeze layers
  bench->Args({32, 729, 256, kThreads});
  bench->Args({64, 169, 384, kThreads});
  if (kThreads > 1) bench->UseRealTime();
}
// 1x1 convolution layers at one thread: MobileNet v1 at 224, SqueezeNet's
// final conv and its squeeze / expand layers, then MobileNet v2's expand and
// project layers.
void PointwiseShapes(benchmark::internal::Benchmark* bench) {
  const int shapes[][3] = {
      {64, 12544, 32}, {128, 3136, 64}, {128, 3136, 128}, {256, 784, 128},  {256, 784, 256},
      {512, 196, 256}, {512, 196, 512}, {1024, 49, 512},  {1024, 49, 1024}, {1000, 169, 512},
      {16, 3025, 64},  {64, 3025, 16},  {32, 729, 128},   {128, 729, 32},   {48, 169, 256},
      {192, 169, 48},  {64, 169, 384},  {256, 169, 64},   {96, 12544, 16},  {144, 3136, 24},
      {24, 3136, 144}, {384, 196, 64},  {64, 196, 384},   {576, 196, 96},   {96, 196, 576},
      {960, 49, 160},  {160, 49, 960},  {320, 49, 960},   {1280, 49, 320},
  };
  for (const auto& shape : shapes) bench->Args({shape[0], shape[1], shape[2], 1});
  // One column: the matrix-vector path over the weight's A panels (a
  // classifier as a 1x1 on a 1x1 map, squeeze-and-excitation layers).
  const int vectors[][3] = {{1000, 1, 1024}, {256, 1, 64}, {64, 1, 256}};
  for (const auto& shape : vectors) bench->Args({shape[0], shape[1], shape[2], 1});
}
[[maybe_unused]] const bool kSgemmRegistered = [] {
  for (auto* bench : RegisterPerIsa("BM_Sgemm", BM_Sgemm)) bench->Apply(GemmShapes<1>);
  for (auto* bench : RegisterPerIsa("BM_Sgemm", BM_Sgemm)) bench->Apply(GemmShapes<2>);
  for (auto* bench : RegisterPerIsa("BM_Sgemm1x1", BM_Sgemm1x1)) bench->Apply(PointwiseShapes);
  for (auto* bench : RegisterPerIsa("BM_Sgemm1x1ColdWeights", BM_Sgemm1x1ColdWeights)) {
    bench->Apply(PointwiseShapes);
  }
  for (auto* bench : RegisterPerIsa("BM_SgemmFc", BM_SgemmFc)) bench->Apply(FcShapes<1>);
  for (auto* bench : RegisterPerIsa("BM_SgemmFc", BM_SgemmFc)) bench->Apply(FcShapes<2>);
  for (auto* bench : RegisterPerIsa("BM_SgemmFcColdWeights", BM_SgemmFcColdWeights)) {
    bench->Apply(FcShapes<1>);
    bench->Apply(FcShapes<2>);
  }
  return true;
}();

void EigenShapes(benchmark::internal::Benchmark* bench) {
  for (int size : {256, 512, 1024}) bench->Args({size, size, size});
  bench->Args({64, 3136, 64});
  bench->Args({1024, 49, 1024});
}
BENCHMARK(BM_EigenSgemm)->Apply(EigenShapes);

}  // namespace
}  // namespace ops
}  // namespace mace

BENCHMARK_MAIN();
