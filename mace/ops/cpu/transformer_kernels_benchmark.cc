// Transformer element-wise kernel benchmarks: every entry of
// MACE_TRANSFORMER_KERNELS in every variant this CPU runs, and the
// reference kernel of its op (values per second):
//
//   bazel run -c opt //mace/ops:cpu_transformer_kernels_benchmark
//
// Sizes: the map kernels on one 1500-value row (a Whisper encoder's frames)
// and a BERT-base feed-forward activation (128 tokens x 3072); softmax on
// square attention matrices of 128 and 1500.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/ref/softmax.h"
#include "mace/ops/ref/unary.h"

namespace mace {
namespace ops {
namespace {

// The reference kernels (mace/ops/ref/) as the list names them.
template <ref::UnaryType kType>
void RefUnary(const float* input, int64_t count, float* output) {
  ref::UnaryParams params;
  params.type = kType;
  params.count = count;
  ref::Unary(params, input, output);
}

void RefSoftmax(const float* input, int64_t rows, int64_t size, bool use_log, float* output) {
  ref::SoftmaxParams params;
  params.outer = rows;
  params.axis_size = size;
  params.inner = 1;
  params.use_log = use_log;
  ref::Softmax(params, input, output);
}

constexpr FloatMapKernel kRefErf = RefUnary<ref::UnaryType::ERF>;
constexpr FloatMapKernel kRefGelu = RefUnary<ref::UnaryType::GELU>;
constexpr FloatMapKernel kRefGeluTanh = RefUnary<ref::UnaryType::GELU_TANH>;
constexpr SoftmaxRowsKernel kRefSoftmax = RefSoftmax;

void BM_Map(benchmark::State& state, FloatMapKernel kernel) {
  const int64_t count = state.range(0);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> values(-5.f, 5.f);
  std::vector<float> input(count), output(count);
  for (float& value : input) value = values(rng);
  for (auto _ : state) {
    kernel(input.data(), count, output.data());
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["values/s"] = benchmark::Counter(static_cast<double>(count),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

// Whisper tiny's attention rows (1500 x 1500 per head) and BERT-base's
// (128 x 128).
void BM_Softmax(benchmark::State& state, SoftmaxRowsKernel kernel) {
  const int64_t size = state.range(0), rows = size;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> values(-8.f, 8.f);
  std::vector<float> input(rows * size), output(rows * size);
  for (float& value : input) value = values(rng);
  for (auto _ : state) {
    kernel(input.data(), rows, size, false, output.data());
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["values/s"] = benchmark::Counter(static_cast<double>(rows * size),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

void Register(const std::string& name, FloatMapKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_Map, kernel)->Arg(1500)->Arg(128 * 3072);
}

void Register(const std::string& name, SoftmaxRowsKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_Softmax, kernel)->Arg(128)->Arg(1500);
}

}  // namespace
}  // namespace ops
}  // namespace mace

int main(int argc, char** argv) {
  using mace::ops::TransformerKernels;
#define MACE_TRANSFORMER_KERNEL_BENCHMARK(field, Name, Type)                               \
  mace::ops::Register("BM_" #field "/ref", mace::ops::kRef##Name);                        \
  for (const TransformerKernels* kernels : mace::ops::AvailableTransformerKernels()) {     \
    mace::ops::Register(std::string("BM_" #field "/") + kernels->name, kernels->field);    \
  }
  MACE_TRANSFORMER_KERNELS(MACE_TRANSFORMER_KERNEL_BENCHMARK)
#undef MACE_TRANSFORMER_KERNEL_BENCHMARK
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
