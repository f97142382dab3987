// Transformer element-wise kernel benchmarks: every entry of
// MACE_TRANSFORMER_KERNELS in every variant this CPU runs, and the
// reference kernel of its op (values per second):
//
//   bazel run -c opt //mace/ops:cpu_transformer_kernels_benchmark
//
// Sizes: the map kernels on one 1500-value row (a Whisper encoder's frames)
// and a BERT-base feed-forward activation (128 tokens x 3072); softmax,
// row maxima and shifted exponentials on square attention matrices of 128
// and 1500; Attention's transposed score blocks; LayerNorm on 128 and
// 1500 rows of 384.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/common/activation.h"
#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/ref/dynamic_quantized_fully_connected.h"
#include "mace/ops/ref/layer_norm.h"
#include "mace/ops/ref/qdq_linear.h"
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

void RefRowMax(const float* input, int64_t rows, int64_t size, int64_t stride, float* max) {
  for (int64_t r = 0; r < rows; ++r) {
    float value = -INFINITY;
    for (int64_t k = 0; k < size; ++k) value = std::fmax(value, input[r * stride + k]);
    max[r] = value;
  }
}

void RefExpShifted(const float* input, int64_t rows, int64_t size, int64_t stride,
                   const float* shift, float* output, int64_t output_stride, float* sums) {
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0.0;
    for (int64_t k = 0; k < size; ++k) {
      output[r * output_stride + k] = std::exp(input[r * stride + k] - shift[r]);
      sum += output[r * output_stride + k];
    }
    sums[r] = static_cast<float>(sum);
  }
}

void RefLayerNorm(const float* input, int64_t rows, int64_t size, const float* scale,
                  const float* bias, float epsilon, float* output, float* mean,
                  float* inv_std_dev) {
  ref::LayerNormParams params;
  params.outer = rows;
  params.inner = size;
  params.epsilon = epsilon;
  ref::LayerNorm(params, input, scale, bias, output, mean, inv_std_dev);
}

constexpr FloatMapKernel kRefErf = RefUnary<ref::UnaryType::ERF>;
constexpr FloatMapKernel kRefGelu = RefUnary<ref::UnaryType::GELU>;
constexpr FloatMapKernel kRefGeluTanh = RefUnary<ref::UnaryType::GELU_TANH>;

// The activations' scalar forms (common/activation.h), as Activation's
// reference kernel runs them.
template <ActivationType kType>
void RefActivation(const float* input, int64_t count, float* output) {
  Activation activation;
  activation.type = kType;
  for (int64_t i = 0; i < count; ++i) output[i] = activation.Apply(input[i]);
}
constexpr FloatMapKernel kRefSigmoid = RefActivation<ActivationType::SIGMOID>;
constexpr FloatMapKernel kRefTanh = RefActivation<ActivationType::TANH>;
constexpr SoftmaxRowsKernel kRefSoftmax = RefSoftmax;
constexpr RowMaxKernel kRefRowMax = RefRowMax;
constexpr ExpShiftedKernel kRefExpShifted = RefExpShifted;
constexpr LayerNormRowsKernel kRefLayerNorm = RefLayerNorm;

// Attention's transposed scores have no reference kernel of their own (the
// reference Attention works on rows): these are the scalar loops of the
// kernels' contracts (cpu/transformer_kernels.h).
void RefColumnsScaleMax(float* scores, int64_t keys, int64_t width, float scale, const float* add,
                        const uint8_t* keep, float fill, float* max) {
  for (int64_t i = 0; i < width; ++i) max[i] = -std::numeric_limits<float>::infinity();
  for (int64_t k = 0; k < keys; ++k) {
    float* row = scores + k * width;
    for (int64_t i = 0; i < width; ++i) {
      row[i] =
          keep != nullptr && keep[k] == 0 ? fill : row[i] * scale + (add != nullptr ? add[k] : 0.f);
      max[i] = std::fmax(max[i], row[i]);
    }
  }
}
void RefColumnsExp(float* scores, int64_t keys, int64_t width, const float* shift, float* sums) {
  for (int64_t i = 0; i < width; ++i) sums[i] = 0.f;
  for (int64_t k = 0; k < keys; ++k) {
    float* row = scores + k * width;
    for (int64_t i = 0; i < width; ++i) {
      row[i] = std::exp(row[i] - shift[i]);
      sums[i] += row[i];
    }
  }
}
constexpr ColumnsScaleMaxKernel kRefColumnsScaleMax = RefColumnsScaleMax;
constexpr ColumnsExpKernel kRefColumnsExp = RefColumnsExp;

// The reference QuantizeLinear with `dequantize`, as the op runs it, for
// uint8 (low is minus the zero point).
void RefFakeQuantize(const float* input, int64_t count, float scale, float low, float high,
                     float* output) {
  ref::QdqLinearParams params;
  params.inner = count;
  const float zero_point = -low;
  ref::QuantizeLinear(params, input, &scale, &zero_point, output);
  ref::DequantizeLinear(params, output, &scale, &zero_point, output);
  (void)high;
}
constexpr FakeQuantizeKernel kRefFakeQuantize = RefFakeQuantize;

// The row quantization of DynamicQuantizedFullyConnected's reference.
bool RefRowRange(const float* input, int64_t count, float* low, float* high) {
  const ref::DynamicRange range = ref::RangeDynamic(input, count);
  *low = range.low;
  *high = range.high;
  return range.finite;
}
void RefQuantizeRow(const float* input, int64_t count, float factor, float zero, uint8_t* output) {
  ref::DynamicRow row;
  row.scale = 1.f / factor;
  row.zero_point = static_cast<int32_t>(zero);
  ref::QuantizeWithRowDynamic(input, count, row, output);
}
constexpr RowRangeKernel kRefRowRange = RefRowRange;
constexpr QuantizeRowKernel kRefQuantizeRow = RefQuantizeRow;

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

std::vector<float> Values(int64_t count, float range) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> values(-range, range);
  std::vector<float> input(count);
  for (float& value : input) value = values(rng);
  return input;
}

void BM_RowMax(benchmark::State& state, RowMaxKernel kernel) {
  const int64_t size = state.range(0), rows = size;
  const std::vector<float> input = Values(rows * size, 8.f);
  std::vector<float> max(rows);
  for (auto _ : state) {
    kernel(input.data(), rows, size, size, max.data());
    benchmark::DoNotOptimize(max.data());
  }
  state.counters["values/s"] = benchmark::Counter(static_cast<double>(rows * size),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

// {rows, size, stride}: whole square matrices, and what Attention asks for
// at a time (a block of 32 query rows, one reduction block of 168 keys, out
// of rows of 1500, into a buffer of that block).
void BM_ExpShifted(benchmark::State& state, ExpShiftedKernel kernel) {
  const int64_t rows = state.range(0), size = state.range(1), stride = state.range(2);
  const std::vector<float> input = Values(rows * stride, 8.f);
  const std::vector<float> shift(rows, 8.f);
  std::vector<float> output(rows * size), sums(rows);
  for (auto _ : state) {
    kernel(input.data(), rows, size, stride, shift.data(), output.data(), size, sums.data());
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["values/s"] = benchmark::Counter(static_cast<double>(rows * size),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

// {rows} of 384 values, with scale and bias.
void BM_LayerNorm(benchmark::State& state, LayerNormRowsKernel kernel) {
  const int64_t rows = state.range(0), size = 384;
  const std::vector<float> input = Values(rows * size, 3.f);
  const std::vector<float> scale = Values(size, 1.f), bias = Values(size, 1.f);
  std::vector<float> output(rows * size);
  for (auto _ : state) {
    kernel(input.data(), rows, size, scale.data(), bias.data(), 1e-5f, output.data(), nullptr,
           nullptr);
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

void Register(const std::string& name, RowMaxKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_RowMax, kernel)->Arg(128)->Arg(1500);
}

void Register(const std::string& name, ExpShiftedKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_ExpShifted, kernel)
      ->Args({128, 128, 128})
      ->Args({1500, 1500, 1500})
      ->Args({32, 168, 1500});
}

// {keys, width}: one block of transposed scores as Attention holds it, a
// GEMM panel of queries wide (16 on AVX2 and NEON, 32 on AVX-512), for
// BERT's 128 keys, ViT-tiny's 197 and Whisper-tiny's 1500. The kernels
// work in place; each iteration starts from the same scores.
void BM_ColumnsScaleMax(benchmark::State& state, ColumnsScaleMaxKernel kernel) {
  const int64_t keys = state.range(0), width = state.range(1);
  const std::vector<float> input = Values(keys * width, 8.f), add = Values(keys, 2.f);
  std::vector<float> scores(input.size()), max(width);
  for (auto _ : state) {
    std::copy(input.begin(), input.end(), scores.begin());
    kernel(scores.data(), keys, width, 0.125f, add.data(), nullptr, 0.f, max.data());
    benchmark::DoNotOptimize(max.data());
  }
  state.counters["values/s"] = benchmark::Counter(static_cast<double>(keys * width),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

void BM_ColumnsExp(benchmark::State& state, ColumnsExpKernel kernel) {
  const int64_t keys = state.range(0), width = state.range(1);
  const std::vector<float> input = Values(keys * width, 8.f);
  const std::vector<float> shift(width, 8.f);
  std::vector<float> scores(input.size()), sums(width);
  for (auto _ : state) {
    std::copy(input.begin(), input.end(), scores.begin());
    kernel(scores.data(), keys, width, shift.data(), sums.data());
    benchmark::DoNotOptimize(sums.data());
  }
  state.counters["values/s"] = benchmark::Counter(static_cast<double>(keys * width),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

void Register(const std::string& name, ColumnsScaleMaxKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_ColumnsScaleMax, kernel)
      ->Args({128, 16})
      ->Args({197, 16})
      ->Args({1500, 32});
}

void Register(const std::string& name, ColumnsExpKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_ColumnsExp, kernel)
      ->Args({128, 16})
      ->Args({197, 16})
      ->Args({1500, 32});
}

// {count} values in [-5, 5), uint8 with scale 0.05 and zero point 100.
void BM_FakeQuantize(benchmark::State& state, FakeQuantizeKernel kernel) {
  const int64_t count = state.range(0);
  const std::vector<float> input = Values(count, 5.f);
  std::vector<float> output(count);
  for (auto _ : state) {
    kernel(input.data(), count, 0.05f, -100.f, 155.f, output.data());
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["values/s"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate);
}

// A row of {count} values in [-5, 5).
void BM_RowRange(benchmark::State& state, RowRangeKernel kernel) {
  const int64_t count = state.range(0);
  const std::vector<float> input = Values(count, 5.f);
  float low, high;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kernel(input.data(), count, &low, &high));
    benchmark::DoNotOptimize(low);
    benchmark::DoNotOptimize(high);
  }
  state.counters["values/s"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_QuantizeRow(benchmark::State& state, QuantizeRowKernel kernel) {
  const int64_t count = state.range(0);
  const std::vector<float> input = Values(count, 5.f);
  std::vector<uint8_t> output(count);
  for (auto _ : state) {
    kernel(input.data(), count, 25.5f, 128.f, output.data());
    benchmark::DoNotOptimize(output.data());
  }
  state.counters["values/s"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate);
}

void Register(const std::string& name, RowRangeKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_RowRange, kernel)->Arg(384)->Arg(1536);
}

void Register(const std::string& name, QuantizeRowKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_QuantizeRow, kernel)->Arg(384)->Arg(1536);
}

void Register(const std::string& name, FakeQuantizeKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_FakeQuantize, kernel)->Arg(1500)->Arg(400 * 400);
}

void Register(const std::string& name, LayerNormRowsKernel kernel) {
  benchmark::RegisterBenchmark(name.c_str(), BM_LayerNorm, kernel)->Arg(128)->Arg(1500);
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
