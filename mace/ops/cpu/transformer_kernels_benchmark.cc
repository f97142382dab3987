// Transformer element-wise kernel benchmarks: every entry of
// MACE_TRANSFORMER_KERNELS in every variant this CPU runs, and the scalar
// double-precision loop of the reference kernel (values per second):
//
//   bazel run -c opt //mace/ops:cpu_transformer_kernels_benchmark
//
// Sizes: one 1500-value row (a Whisper encoder's frames) and a BERT-base
// feed-forward activation (128 tokens x 3072).
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/transformer_kernels.h"

namespace mace {
namespace ops {
namespace {

constexpr double kPi = 3.14159265358979323846;

// What ref::UnaryValue computes per value for each entry.
float ScalarErf(float x) { return static_cast<float>(std::erf(static_cast<double>(x))); }
float ScalarGelu(float x) {
  const double v = x;
  return static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
}
float ScalarGeluTanh(float x) {
  const double v = x;
  return static_cast<float>(
      0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / kPi) * (v + 0.044715 * v * v * v))));
}

template <float (*kScalar)(float)>
void ScalarMap(const float* input, int64_t count, float* output) {
  for (int64_t i = 0; i < count; ++i) output[i] = kScalar(input[i]);
}

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

void Register(const std::string& name, FloatMapKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_Map, kernel)->Arg(1500)->Arg(128 * 3072);
}

}  // namespace
}  // namespace ops
}  // namespace mace

int main(int argc, char** argv) {
  using mace::ops::TransformerKernels;
#define MACE_TRANSFORMER_KERNEL_BENCHMARK(field, Name)                                    \
  mace::ops::Register("BM_" #field "/ref", mace::ops::ScalarMap<mace::ops::Scalar##Name>); \
  for (const TransformerKernels* kernels : mace::ops::AvailableTransformerKernels()) {     \
    mace::ops::Register(std::string("BM_" #field "/") + kernels->name, kernels->field);    \
  }
  MACE_TRANSFORMER_KERNELS(MACE_TRANSFORMER_KERNEL_BENCHMARK)
#undef MACE_TRANSFORMER_KERNEL_BENCHMARK
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
