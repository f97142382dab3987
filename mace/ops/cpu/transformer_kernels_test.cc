// Every variant of the transformer element-wise kernels this build and CPU
// run (portable, AVX2, AVX-512, NEON) against the plain references in
// double, entry by entry of MACE_TRANSFORMER_KERNELS.
#include "mace/ops/cpu/transformer_kernels.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace mace {
namespace ops {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The references, and each kernel's bound on |kernel - reference| at x.
double RefErf(double x) { return std::erf(x); }
double BoundErf(double /*x*/) { return 1e-6; }

// GELU's limit at -inf is -0 (the formula gives -inf * 0 there).
double RefGelu(double x) {
  if (std::isinf(x) && x < 0) return -0.0;
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}
double BoundGelu(double x) { return 1e-6 * std::fmax(1.0, std::fabs(x)); }

double RefGeluTanh(double x) {
  if (std::isinf(x) && x < 0) return -0.0;
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / kPi) * (x + 0.044715 * x * x * x)));
}
double BoundGeluTanh(double x) { return BoundGelu(x); }
double RefSigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double BoundSigmoid(double x) {
  return (1e-6 + 5e-8 * std::fmin(std::fabs(x), 100.0)) * RefSigmoid(x) +
         std::numeric_limits<float>::min();
}
double RefTanh(double x) { return std::tanh(x); }
double BoundTanh(double x) {
  return 2e-6 * std::fabs(std::tanh(x)) + std::numeric_limits<float>::min();
}

// One softmax slice in double, as the reference kernel computes it (the
// maximum skips NaNs, as std::fmax does).
void RefSoftmax(const float* input, int64_t size, bool use_log, double* output) {
  double max_value = input[0];
  for (int64_t k = 1; k < size; ++k) max_value = std::fmax(max_value, input[k]);
  double sum = 0.0;
  for (int64_t k = 0; k < size; ++k) sum += std::exp(input[k] - max_value);
  for (int64_t k = 0; k < size; ++k) {
    const double shifted = input[k] - max_value;
    output[k] = use_log ? shifted - std::log(sum) : std::exp(shifted) / sum;
  }
}
double BoundSoftmax(double expected, bool use_log) {
  return use_log ? 1e-6 * std::fmax(1.0, std::fabs(expected))
                 : 1e-6 * expected + std::numeric_limits<float>::min();
}

// The maximum of a row in double, NaNs skipped (as std::fmax does).
double RefRowMax(const float* row, int64_t size) {
  double max_value = -std::numeric_limits<double>::infinity();
  for (int64_t k = 0; k < size; ++k) max_value = std::fmax(max_value, row[k]);
  return max_value;
}
double BoundRowMax() { return 0.0; }

double RefExpShifted(float x, float shift) {
  return std::exp(static_cast<double>(x) - static_cast<double>(shift));
}
double BoundExpShifted(float x, float shift, double expected) {
  const double distance = std::fabs(static_cast<double>(x) - static_cast<double>(shift));
  return (2e-7 + 2e-7 * distance) * expected + std::numeric_limits<float>::min();
}

// Attention's transposed scores (`keys` rows of `width`), column by column:
// each value s of row k becomes fill where keep[k] is 0, else s * scale +
// add[k] in double, rounded to float; max[i] skips NaNs.
void RefColumnsScaleMax(const std::vector<float>& scores, int64_t keys, int64_t width, float scale,
                        const float* add, const uint8_t* keep, float fill,
                        std::vector<float>* values, std::vector<double>* max) {
  values->resize(keys * width);
  max->assign(width, -std::numeric_limits<double>::infinity());
  for (int64_t k = 0; k < keys; ++k) {
    for (int64_t i = 0; i < width; ++i) {
      const double s = scores[k * width + i];
      const float v = keep != nullptr && keep[k] == 0
                          ? fill
                          : static_cast<float>(s * scale + (add != nullptr ? add[k] : 0.0));
      (*values)[k * width + i] = v;
      (*max)[i] = std::fmax((*max)[i], v);
    }
  }
}
// One multiplication and one addition in float against the double result.
double BoundColumnsScaleMax(double expected) {
  return 2.5e-7 * std::fabs(expected) + std::numeric_limits<float>::min();
}
double RefColumnsExp(float x, float shift) { return RefExpShifted(x, shift); }
double BoundColumnsExp(float x, float shift, double expected) {
  return BoundExpShifted(x, shift, expected);
}

// LayerNorm of one row in double; scale and bias may be null.
void RefLayerNorm(const float* row, int64_t size, const float* scale, const float* bias,
                  float epsilon, double* output, double* mean, double* inv_std_dev) {
  double sum = 0.0;
  for (int64_t k = 0; k < size; ++k) sum += row[k];
  const double mu = sum / size;
  double squares = 0.0;
  for (int64_t k = 0; k < size; ++k) squares += (row[k] - mu) * (row[k] - mu);
  const double inv = 1.0 / std::sqrt(squares / size + epsilon);
  for (int64_t k = 0; k < size; ++k) {
    output[k] = (row[k] - mu) * inv * (scale != nullptr ? scale[k] : 1.0) +
                (bias != nullptr ? bias[k] : 0.0);
  }
  *mean = mu;
  *inv_std_dev = inv;
}
double BoundLayerNorm(double expected) { return 1e-5 * std::fmax(1.0, std::fabs(expected)); }

// QuantizeLinear then DequantizeLinear of ONNX as the reference kernels
// compute them (ref/qdq_linear.cc): the quotient in float, rounded ties to
// even, the zero point added and the range's clamp in double, the product
// with the scale in double.
float RefFakeQuantize(float x, float scale, float zero_point, float low, float high) {
  const float quotient = x / scale;
  const double q = std::isnan(quotient) ? zero_point : std::nearbyint(quotient) + zero_point;
  const double clamped = std::fmin(std::fmax(q, low), high);
  return static_cast<float>((clamped - zero_point) * scale);
}

double BoundFakeQuantize(double) { return 0.0; }  // bit for bit

// ref::RangeDynamic and the quantization of ref::QuantizeRowDynamic, value
// by value in float: min(0, min x), max(0, max x), whether every value is
// finite; clamp(round_half_even(x * factor) + zero, 0, 255).
bool RefRowRange(const float* x, int64_t count, float* low, float* high) {
  float lo = 0.f, hi = 0.f;
  bool finite = true;
  for (int64_t k = 0; k < count; ++k) {
    lo = std::fmin(lo, x[k]);
    hi = std::fmax(hi, x[k]);
    finite = finite && std::isfinite(x[k]);
  }
  *low = lo;
  *high = hi;
  return finite;
}
double BoundRowRange(double) { return 0.0; }  // exact
uint8_t RefQuantizeRowValue(float x, float factor, float zero) {
  const float product = x * factor;
  const float q = std::nearbyint(product) + zero;
  return static_cast<uint8_t>(std::fmin(std::fmax(q, 0.f), 255.f));
}
void RefQuantizeRow(const float* x, int64_t count, float factor, float zero, uint8_t* q) {
  for (int64_t k = 0; k < count; ++k) q[k] = RefQuantizeRowValue(x[k], factor, zero);
}
double BoundQuantizeRow(double) { return 0.0; }  // exact

struct Entry {
  const char* name;
  FloatMapKernel TransformerKernels::*field;
  double (*reference)(double);
  double (*bound)(double);
};

// The map kernels of the list; the other entries are checked by their own
// tests below, through their fields.
void AddEntry(std::vector<Entry>* entries, const char* name,
              FloatMapKernel TransformerKernels::*field, double (*reference)(double),
              double (*bound)(double)) {
  entries->push_back({name, field, reference, bound});
}
template <typename Field, typename Reference, typename Bound>
void AddEntry(std::vector<Entry>* /*entries*/, const char* /*name*/, Field /*field*/,
              Reference /*reference*/, Bound /*bound*/) {}

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> entries = [] {
    std::vector<Entry> list;
#define MACE_TRANSFORMER_KERNEL_ENTRY(field, Name, Type) \
  AddEntry(&list, #field, &TransformerKernels::field, Ref##Name, Bound##Name);
    MACE_TRANSFORMER_KERNELS(MACE_TRANSFORMER_KERNEL_ENTRY)
#undef MACE_TRANSFORMER_KERNEL_ENTRY
    return list;
  }();
  return entries;
}

// Checks kernel(input) against the reference, value by value; false at the
// first mismatch (reported).
bool MatchesReference(const Entry& entry, FloatMapKernel kernel, const std::vector<float>& input) {
  std::vector<float> output(input.size(), 12345.f);
  kernel(input.data(), static_cast<int64_t>(input.size()), output.data());
  for (size_t i = 0; i < input.size(); ++i) {
    const double x = input[i];
    const double expected = entry.reference(x);
    const double actual = output[i];
    bool ok;
    if (std::isnan(expected)) {
      ok = std::isnan(actual);
    } else if (std::isinf(expected)) {
      ok = actual == expected;
    } else {
      ok = std::fabs(actual - expected) <= entry.bound(x);
    }
    if (!ok) {
      ADD_FAILURE() << entry.name << "(" << input[i] << ") at " << i << " of " << input.size()
                    << ": " << actual << ", reference " << expected;
      return false;
    }
  }
  return true;
}

// The same for softmax over `rows` slices of `size`.
bool SoftmaxMatchesReference(SoftmaxRowsKernel kernel, const std::vector<float>& input,
                             int64_t size, bool use_log) {
  const int64_t rows = static_cast<int64_t>(input.size()) / size;
  std::vector<float> output(input.size(), 12345.f);
  kernel(input.data(), rows, size, use_log, output.data());
  std::vector<double> expected(input.size());
  for (int64_t n = 0; n < rows; ++n) {
    RefSoftmax(input.data() + n * size, size, use_log, expected.data() + n * size);
  }
  for (size_t i = 0; i < input.size(); ++i) {
    bool ok;
    if (std::isnan(expected[i])) {
      ok = std::isnan(output[i]);
    } else if (std::isinf(expected[i])) {
      ok = output[i] == expected[i];
    } else {
      ok = std::fabs(output[i] - expected[i]) <= BoundSoftmax(expected[i], use_log);
    }
    if (!ok) {
      ADD_FAILURE() << "softmax at " << i << " of " << rows << " x " << size << " (input "
                    << input[i] << "): " << output[i] << ", reference " << expected[i];
      return false;
    }
  }
  return true;
}

constexpr int64_t kLengths[] = {1, 3, 7, 8, 15, 16, 17, 63, 383, 384, 385, 1500};

std::vector<float> RandomInput(int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  // Mostly where the functions bend, some far out in both tails.
  std::uniform_real_distribution<float> near(-6.f, 6.f), far(-30.f, 30.f);
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = i % 5 == 4 ? far(rng) : near(rng);
  return values;
}

class TransformerKernelsTest : public ::testing::TestWithParam<const TransformerKernels*> {};

TEST_P(TransformerKernelsTest, EveryEntryIsSet) {
  const TransformerKernels& kernels = *GetParam();
  EXPECT_GT(kernels.lanes, 0);
#define MACE_TRANSFORMER_KERNEL_SET(field, Name, Type) EXPECT_NE(kernels.field, nullptr) << #field;
  MACE_TRANSFORMER_KERNELS(MACE_TRANSFORMER_KERNEL_SET)
#undef MACE_TRANSFORMER_KERNEL_SET
}

TEST_P(TransformerKernelsTest, RandomRunsMatchReference) {
  const TransformerKernels& kernels = *GetParam();
  uint32_t seed = 20261128;
  for (const Entry& entry : Entries()) {
    for (int64_t length : kLengths) {
      SCOPED_TRACE(std::string(kernels.name) + " " + entry.name + " length " +
                   std::to_string(length) + " seed " + std::to_string(seed));
      ASSERT_TRUE(MatchesReference(entry, kernels.*entry.field, RandomInput(length, seed++)));
    }
  }
}

TEST_P(TransformerKernelsTest, SpecialValues) {
  const TransformerKernels& kernels = *GetParam();
  const float inf = std::numeric_limits<float>::infinity();
  const float denormal = std::numeric_limits<float>::denorm_min();
  const std::vector<float> special = {0.f,
                                      -0.f,
                                      inf,
                                      -inf,
                                      std::numeric_limits<float>::quiet_NaN(),
                                      10.f,
                                      -10.f,
                                      0.5f,
                                      -0.5f,
                                      denormal,
                                      -denormal,
                                      1e-39f,
                                      -1e-39f,
                                      std::numeric_limits<float>::min(),
                                      3e38f,
                                      -3e38f,
                                      1e-20f,
                                      -1e-20f,
                                      4.f,
                                      -4.f,
                                      13.9f,
                                      -13.9f,
                                      14.1f,
                                      -14.1f};
  for (const Entry& entry : Entries()) {
    SCOPED_TRACE(std::string(kernels.name) + " " + entry.name);
    // Each value alone (the padded tail) and all in one run.
    for (float value : special) {
      ASSERT_TRUE(MatchesReference(entry, kernels.*entry.field, {value}));
    }
    ASSERT_TRUE(MatchesReference(entry, kernels.*entry.field, special));
  }
}

// Floats spread over [-20, 20] by their bit patterns, so every binade from
// the denormals up is visited.
TEST_P(TransformerKernelsTest, SweepMatchesReference) {
  const TransformerKernels& kernels = *GetParam();
  const uint32_t top = 0x41A00000u;  // 20.f
  const uint32_t step = 9973;
  std::vector<float> input;
  for (uint32_t bits = 0; bits < top; bits += step) {
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    input.push_back(value);
    input.push_back(-value);
  }
  for (const Entry& entry : Entries()) {
    SCOPED_TRACE(std::string(kernels.name) + " " + entry.name);
    ASSERT_TRUE(MatchesReference(entry, kernels.*entry.field, input));
  }
}

TEST_P(TransformerKernelsTest, InPlace) {
  const TransformerKernels& kernels = *GetParam();
  for (const Entry& entry : Entries()) {
    SCOPED_TRACE(std::string(kernels.name) + " " + entry.name);
    const std::vector<float> input = RandomInput(385, 77);
    std::vector<float> separate(input.size()), in_place = input;
    (kernels.*entry.field)(input.data(), 385, separate.data());
    (kernels.*entry.field)(in_place.data(), 385, in_place.data());
    EXPECT_EQ(std::memcmp(separate.data(), in_place.data(), 385 * sizeof(float)), 0);
  }
}

// Three slices of every length, at several spreads: from all values close
// to most exponentials underflowing.
TEST_P(TransformerKernelsTest, SoftmaxMatchesReference) {
  const TransformerKernels& kernels = *GetParam();
  uint32_t seed = 2026;
  for (int64_t size : kLengths) {
    for (float range : {1.f, 8.f, 60.f, 200.f}) {
      for (bool use_log : {false, true}) {
        SCOPED_TRACE(std::string(kernels.name) + " size " + std::to_string(size) + " range " +
                     std::to_string(range) + " use_log " + std::to_string(use_log) + " seed " +
                     std::to_string(seed));
        std::mt19937 rng(seed++);
        std::uniform_real_distribution<float> values(-range, range);
        std::vector<float> input(3 * size);
        for (float& value : input) value = values(rng);
        ASSERT_TRUE(SoftmaxMatchesReference(kernels.softmax, input, size, use_log));
        std::vector<float> separate(input.size()), in_place = input;
        kernels.softmax(input.data(), 3, size, use_log, separate.data());
        kernels.softmax(in_place.data(), 3, size, use_log, in_place.data());
        EXPECT_EQ(in_place, separate);
      }
    }
  }
}

// -inf takes no share; +inf or NaN makes its slice NaN (as in the
// reference) and leaves the next one alone.
TEST_P(TransformerKernelsTest, SoftmaxSpecialValues) {
  const TransformerKernels& kernels = *GetParam();
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t size : {int64_t{1}, int64_t{17}, int64_t{40}}) {
    for (bool use_log : {false, true}) {
      for (float special : {-inf, inf, std::numeric_limits<float>::quiet_NaN(), 1e30f, -1e30f}) {
        SCOPED_TRACE(std::string(kernels.name) + " size " + std::to_string(size) + " special " +
                     std::to_string(special));
        std::vector<float> input = RandomInput(2 * size, 5);
        input[size / 2] = special;
        ASSERT_TRUE(SoftmaxMatchesReference(kernels.softmax, input, size, use_log));
      }
    }
  }
}

// Rows `stride` apart (the gap filled with values the kernel must not
// read into its results), with NaNs and infinities in some rows.
TEST_P(TransformerKernelsTest, RowMaxMatchesReference) {
  const TransformerKernels& kernels = *GetParam();
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  uint32_t seed = 411;
  for (int64_t size : kLengths) {
    SCOPED_TRACE(std::string(kernels.name) + " size " + std::to_string(size) + " seed " +
                 std::to_string(seed));
    const int64_t rows = 6, stride = size + 5;
    std::vector<float> input = RandomInput(rows * stride, seed++);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = size; k < stride; ++k) input[r * stride + k] = 1e30f;
    }
    input[1 * stride + size / 2] = nan;
    input[2 * stride + size - 1] = inf;
    for (int64_t k = 0; k < size; ++k) input[3 * stride + k] = -inf;
    for (int64_t k = 0; k < size; ++k) input[4 * stride + k] = k % 2 ? nan : -inf;
    input[5 * stride] = nan;
    std::vector<float> max(rows, 12345.f);
    kernels.row_max(input.data(), rows, size, stride, max.data());
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_EQ(max[r], RefRowMax(input.data() + r * stride, size) + BoundRowMax()) << "row " << r;
    }
  }
}

TEST_P(TransformerKernelsTest, ExpShiftedMatchesReference) {
  const TransformerKernels& kernels = *GetParam();
  uint32_t seed = 2027;
  for (int64_t size : kLengths) {
    for (float range : {1.f, 8.f, 60.f, 200.f}) {
      SCOPED_TRACE(std::string(kernels.name) + " size " + std::to_string(size) + " range " +
                   std::to_string(range) + " seed " + std::to_string(seed));
      std::mt19937 rng(seed++);
      std::uniform_real_distribution<float> values(-range, range);
      const int64_t rows = 3, stride = size + 3, output_stride = size + 7;
      std::vector<float> input(rows * stride);
      for (float& value : input) value = values(rng);
      // Shifted by the row's maximum, by a value above it and by one below.
      const float offsets[rows] = {0.f, 3.5f, -2.f};
      std::vector<float> shift(rows);
      for (int64_t r = 0; r < rows; ++r) {
        shift[r] = static_cast<float>(RefRowMax(input.data() + r * stride, size)) + offsets[r];
      }
      std::vector<float> output(rows * output_stride, 12345.f), sums(rows, 12345.f);
      kernels.exp_shifted(input.data(), rows, size, stride, shift.data(), output.data(),
                          output_stride, sums.data());
      for (int64_t r = 0; r < rows; ++r) {
        double sum = 0.0;
        for (int64_t k = 0; k < size; ++k) {
          const float x = input[r * stride + k];
          const double expected = RefExpShifted(x, shift[r]);
          sum += expected;
          ASSERT_LE(std::fabs(output[r * output_stride + k] - expected),
                    BoundExpShifted(x, shift[r], expected))
              << "row " << r << " at " << k << " x " << x << " shift " << shift[r];
        }
        for (int64_t k = size; k < output_stride; ++k) {
          ASSERT_EQ(output[r * output_stride + k], 12345.f) << "written past the row";
        }
        EXPECT_LE(std::fabs(sums[r] - sum), 1e-6 * sum) << "row " << r;
      }
    }
  }
}

// -inf gives 0 and no share of the sum; NaN gives NaN and a NaN sum; a
// shift of +inf makes the row NaN.
TEST_P(TransformerKernelsTest, ExpShiftedSpecialValues) {
  const TransformerKernels& kernels = *GetParam();
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t size : {int64_t{1}, int64_t{17}, int64_t{40}}) {
    SCOPED_TRACE(std::string(kernels.name) + " size " + std::to_string(size));
    std::vector<float> input = RandomInput(3 * size, 9);
    input[size / 2] = -inf;
    input[size + size / 3] = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> shift = {1.f, 0.f, inf};
    std::vector<float> output(3 * size), sums(3);
    kernels.exp_shifted(input.data(), 3, size, size, shift.data(), output.data(), size,
                        sums.data());
    EXPECT_EQ(output[size / 2], 0.f);
    EXPECT_TRUE(std::isfinite(sums[0]));
    EXPECT_TRUE(std::isnan(output[size + size / 3]));
    EXPECT_TRUE(std::isnan(sums[1]));
    for (int64_t k = 0; k < size; ++k) {
      EXPECT_EQ(output[2 * size + k], 0.f) << "e^(x - inf) at " << k;
    }
  }
}

// Attention's transposed scores at column counts around the vector widths
// and the GEMM panels' (8, 12, 16, 32), with no mask, an additive one, and
// keys dropped by a keep mask; NaN and infinities in some columns.
TEST_P(TransformerKernelsTest, ColumnsScaleMaxAndExpMatchReference) {
  const TransformerKernels& kernels = *GetParam();
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  uint32_t seed = 5150;
  for (int64_t width : {1, 3, 4, 8, 12, 16, 17, 32, 33}) {
    for (int64_t keys : {1, 7, 64, 65, 200}) {
      for (int mask = 0; mask < 3; ++mask) {
        SCOPED_TRACE(std::string(kernels.name) + " width " + std::to_string(width) + " keys " +
                     std::to_string(keys) + " mask " + std::to_string(mask) + " seed " +
                     std::to_string(seed));
        std::mt19937 rng(seed++);
        std::uniform_real_distribution<float> values(-20.f, 20.f), offsets(-4.f, 0.f);
        std::vector<float> scores(keys * width);
        for (float& value : scores) value = values(rng);
        std::vector<float> add(keys);
        std::vector<uint8_t> keep(keys);
        for (int64_t k = 0; k < keys; ++k) {
          add[k] = k % 5 == 3 ? -inf : offsets(rng);
          keep[k] = k % 4 != 1;
        }
        if (width > 2 && keys > 2) {
          scores[1 * width + 2] = nan;          // column 2 keeps its largest finite value
          scores[2 * width + width - 1] = inf;  // the last column's maximum
        }
        const float scale = 0.125f, fill = mask == 2 ? -1e4f : 0.f;
        const float* add_data = mask == 1 ? add.data() : nullptr;
        const uint8_t* keep_data = mask == 2 ? keep.data() : nullptr;
        std::vector<float> expected_values;
        std::vector<double> expected_max;
        RefColumnsScaleMax(scores, keys, width, scale, add_data, keep_data, fill, &expected_values,
                           &expected_max);
        std::vector<float> actual = scores, max(width + 1, 12345.f);
        kernels.columns_scale_max(actual.data(), keys, width, scale, add_data, keep_data, fill,
                                  max.data());
        ASSERT_EQ(max[width], 12345.f) << "written past the maxima";
        for (int64_t j = 0; j < keys * width; ++j) {
          const double expected = expected_values[j];
          if (std::isnan(expected) || std::isinf(expected)) {
            ASSERT_TRUE(std::isnan(expected) ? std::isnan(actual[j]) : actual[j] == expected)
                << "at " << j << ": " << actual[j] << ", reference " << expected;
          } else {
            ASSERT_LE(std::fabs(actual[j] - expected), BoundColumnsScaleMax(expected))
                << "at " << j;
          }
        }
        for (int64_t i = 0; i < width; ++i) {
          // The maximum is one of the kernel's values: its own column's.
          double own = -inf;
          for (int64_t k = 0; k < keys; ++k) own = std::fmax(own, actual[k * width + i]);
          ASSERT_EQ(max[i], own) << "column " << i;
          if (std::isinf(expected_max[i])) {
            ASSERT_EQ(max[i], expected_max[i]) << "column " << i;
          } else {
            ASSERT_LE(std::fabs(max[i] - expected_max[i]), BoundColumnsScaleMax(expected_max[i]))
                << "column " << i;
          }
        }
        // The exponentials shifted by the maxima (the last column's +inf
        // shift makes it NaN, as e^(x - inf) of an infinite x is).
        std::vector<float> shift(width), sums(width + 1, 12345.f);
        for (int64_t i = 0; i < width; ++i) shift[i] = max[i] > -inf ? max[i] : 0.f;
        const std::vector<float> shifted_input = actual;
        kernels.columns_exp(actual.data(), keys, width, shift.data(), sums.data());
        ASSERT_EQ(sums[width], 12345.f) << "written past the sums";
        for (int64_t i = 0; i < width; ++i) {
          double sum = 0.0;
          for (int64_t k = 0; k < keys; ++k) {
            const float x = shifted_input[k * width + i];
            const double expected = RefColumnsExp(x, shift[i]);
            const float value = actual[k * width + i];
            sum += expected;
            if (std::isnan(expected)) {
              ASSERT_TRUE(std::isnan(value)) << "column " << i << " key " << k;
            } else if (std::isinf(x) || std::isinf(shift[i])) {
              ASSERT_EQ(value, expected) << "column " << i << " key " << k;  // e^(+-inf)
            } else {
              ASSERT_LE(std::fabs(value - expected), BoundColumnsExp(x, shift[i], expected))
                  << "column " << i << " key " << k << " x " << x << " shift " << shift[i];
            }
          }
          if (std::isnan(sum)) {
            EXPECT_TRUE(std::isnan(sums[i])) << "column " << i;
          } else {
            EXPECT_LE(std::fabs(sums[i] - sum), 1e-6 * sum) << "column " << i;
          }
        }
      }
    }
  }
}

// Rows of every length, with and without scale and bias, around 0 and
// around a large offset (where the mean's rounding matters).
TEST_P(TransformerKernelsTest, LayerNormMatchesReference) {
  const TransformerKernels& kernels = *GetParam();
  uint32_t seed = 77;
  for (int64_t size : kLengths) {
    for (float offset : {0.f, 1000.f}) {
      for (int affine = 0; affine < 4; ++affine) {
        SCOPED_TRACE(std::string(kernels.name) + " size " + std::to_string(size) + " offset " +
                     std::to_string(offset) + " affine " + std::to_string(affine) + " seed " +
                     std::to_string(seed));
        const int64_t rows = 3;
        std::vector<float> input = RandomInput(rows * size, seed++);
        for (float& value : input) value = value / 8.f + offset;
        const std::vector<float> scale_values = RandomInput(size, seed++);
        const std::vector<float> bias_values = RandomInput(size, seed++);
        const float* scale = affine & 1 ? scale_values.data() : nullptr;
        const float* bias = affine & 2 ? bias_values.data() : nullptr;
        const float epsilon = 1e-5f;
        std::vector<float> output(rows * size, 12345.f), mean(rows), inv(rows);
        kernels.layer_norm(input.data(), rows, size, scale, bias, epsilon, output.data(),
                           mean.data(), inv.data());
        std::vector<double> expected(size);
        for (int64_t r = 0; r < rows; ++r) {
          double want_mean, want_inv;
          RefLayerNorm(input.data() + r * size, size, scale, bias, epsilon, expected.data(),
                       &want_mean, &want_inv);
          for (int64_t k = 0; k < size; ++k) {
            ASSERT_LE(std::fabs(output[r * size + k] - expected[k]), BoundLayerNorm(expected[k]))
                << "row " << r << " at " << k;
          }
          EXPECT_LE(std::fabs(mean[r] - want_mean), 1e-6 * std::fmax(1.0, std::fabs(want_mean)));
          EXPECT_LE(std::fabs(inv[r] - want_inv), 1e-6 * want_inv);
        }
        // The statistics are optional.
        std::vector<float> again(rows * size);
        kernels.layer_norm(input.data(), rows, size, scale, bias, epsilon, again.data(), nullptr,
                           nullptr);
        EXPECT_EQ(again, output);
      }
    }
  }
}

// Rows of every length: random values in ranges on both sides of 0, only
// above or below it, around a large offset, with a NaN or an infinity,
// all zeros; the range exact, the bytes those of the row's own scale and
// zero point (ref::RowDynamic's arithmetic, as QuantizeRowDynamic).
TEST_P(TransformerKernelsTest, RowRangeAndQuantizeRowMatchReference) {
  const TransformerKernels& kernels = *GetParam();
  const float kInf = std::numeric_limits<float>::infinity();
  uint32_t seed = 131;
  for (int64_t size : kLengths) {
    for (int kind = 0; kind < 7; ++kind) {
      SCOPED_TRACE(std::string(kernels.name) + " size " + std::to_string(size) + " kind " +
                   std::to_string(kind) + " seed " + std::to_string(seed));
      std::vector<float> row = RandomInput(size, seed++);
      for (float& x : row) {
        if (kind == 1) x = std::fabs(x) + 0.5f;
        if (kind == 2) x = -std::fabs(x) * 3.f;
        if (kind == 3) x = x / 64.f + 100.f;
        if (kind == 6) x = 0.f;
      }
      if (kind == 4) row[size / 2] = std::nanf("");
      if (kind == 5) row[size - 1] = size % 2 ? kInf : -kInf;
      float low = 1.f, high = -1.f, want_low, want_high;
      const bool finite = kernels.row_range(row.data(), size, &low, &high);
      const bool want_finite = RefRowRange(row.data(), size, &want_low, &want_high);
      ASSERT_EQ(finite, want_finite);
      if (!finite) continue;
      ASSERT_EQ(low, want_low);
      ASSERT_EQ(high, want_high);
      const float span = high - low;
      const float scale = span == 0.f ? 1.f : span / 255.f;
      const float factor = 1.f / scale;
      const float zero = std::fmin(std::fmax(std::nearbyint(-low * factor), 0.f), 255.f);
      std::vector<uint8_t> q(size + 1, 77);
      kernels.quantize_row(row.data(), size, factor, zero, q.data());
      for (int64_t k = 0; k < size; ++k) {
        ASSERT_EQ(q[k], RefQuantizeRowValue(row[k], factor, zero))
            << "at " << k << ": " << row[k] << " factor " << factor << " zero " << zero;
      }
      EXPECT_EQ(q[size], 77) << "wrote past the row";
    }
  }
  // Values at half steps (x * factor exactly k + 0.5), where only ties to
  // even decide, and past both ends of the range.
  std::vector<float> halves;
  for (int k = -300; k <= 300; ++k) halves.push_back((k + 0.5f) * 0.25f);
  std::vector<uint8_t> q(halves.size());
  kernels.quantize_row(halves.data(), static_cast<int64_t>(halves.size()), 4.f, 37.f, q.data());
  for (size_t k = 0; k < halves.size(); ++k) {
    ASSERT_EQ(q[k], RefQuantizeRowValue(halves[k], 4.f, 37.f)) << halves[k];
  }
}

// Bit for bit on every length, for uint8, int8, uint16 and int16 ranges with
// zero points inside and at the ends, scales that divide exactly (where
// ties to even decide) and that do not, and special values: signed zeros,
// infinities, NaN, denormals, values past both ends of the range.
TEST_P(TransformerKernelsTest, FakeQuantizeMatchesReference) {
  const TransformerKernels& kernels = *GetParam();
  struct Range {
    float zero_point, low, high;
  };
  const Range ranges[] = {{0.f, 0.f, 255.f},        {128.f, 0.f, 255.f},   {255.f, 0.f, 255.f},
                          {0.f, -128.f, 127.f},     {-3.f, -128.f, 127.f}, {0.f, 0.f, 65535.f},
                          {-7.f, -32768.f, 32767.f}};
  const float scales[] = {1.f / 255.f, 0.05f, 0.5f, 0.125f, 3.7f, 1e-30f};
  const float kInf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.f,   -0.f,   kInf,    -kInf,  std::nanf(""), 1e-40f, -1e-40f,
                            0.25f, -0.25f, 0.75f,   -0.75f, 1.25f,         1e30f,  -1e30f,
                            6.4f,  -6.4f,  0.0625f, 127.5f, 128.5f,        -128.5f};
  uint32_t seed = 91;
  for (const Range& range : ranges) {
    for (float scale : scales) {
      for (int64_t size : kLengths) {
        SCOPED_TRACE(std::string(kernels.name) + " size " + std::to_string(size) + " scale " +
                     std::to_string(scale) + " zero point " + std::to_string(range.zero_point) +
                     " seed " + std::to_string(seed));
        std::vector<float> input = RandomInput(size, seed++);
        // Around the range: the random values span +-30, times a sixth of
        // the range's width in steps.
        const float spread = scale * (range.high - range.low) / 6.f;
        for (float& value : input) value *= spread / 4.f;
        for (size_t i = 0; i < input.size(); i += 3) {
          input[i] = specials[(i / 3) % (sizeof(specials) / sizeof(specials[0]))];
        }
        // Half-integers times the scale and their float neighbours, where
        // a quotient computed another way than x / scale could round to
        // the other integer.
        std::vector<float> halves;
        for (float k : {-3.f, -1.f, 0.f, 2.f, 7.f, range.low - range.zero_point,
                        range.high - range.zero_point - 1.f, 100.f, 1000.f, 30000.f}) {
          const float half = (k + 0.5f) * scale;
          halves.insert(halves.end(),
                        {half, std::nextafter(half, kInf), std::nextafter(half, -kInf)});
        }
        for (size_t i = 1; i < input.size(); i += 5) input[i] = halves[(i / 5) % halves.size()];
        std::vector<float> output(size, 12345.f);
        kernels.fake_quantize(input.data(), size, scale, range.low - range.zero_point,
                              range.high - range.zero_point, output.data());
        for (int64_t i = 0; i < size; ++i) {
          const float want =
              RefFakeQuantize(input[i], scale, range.zero_point, range.low, range.high);
          uint32_t got_bits, want_bits;
          std::memcpy(&got_bits, &output[i], sizeof(got_bits));
          std::memcpy(&want_bits, &want, sizeof(want_bits));
          ASSERT_EQ(got_bits, want_bits)
              << "at " << i << ": " << input[i] << " gives " << output[i] << ", reference " << want;
        }
        // In place.
        kernels.fake_quantize(input.data(), size, scale, range.low - range.zero_point,
                              range.high - range.zero_point, input.data());
        EXPECT_EQ(input, output);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, TransformerKernelsTest,
                         ::testing::ValuesIn(AvailableTransformerKernels()),
                         [](const ::testing::TestParamInfo<const TransformerKernels*>& info) {
                           return std::string(info.param->name);
                         });

TEST(TransformerKernelsVariantsTest, PortableFirstAndEveryIsaOfTheCpu) {
  const std::vector<const TransformerKernels*> variants = AvailableTransformerKernels();
  ASSERT_FALSE(variants.empty());
  EXPECT_EQ(variants[0], PortableTransformerKernels());
  for (KernelIsa isa : {KernelIsa::kAvx2Fma, KernelIsa::kAvx512, KernelIsa::kNeon}) {
    const bool supported = SupportsKernelIsa(DetectCpuFeatures(), isa);
    EXPECT_EQ(TransformerKernelsFor(isa) != nullptr, supported) << KernelIsaName(isa);
    std::printf("%s: %s\n", KernelIsaName(isa), supported ? "tested" : "not on this CPU");
  }
  EXPECT_EQ(TransformerKernelsFor(KernelIsa::kReference), nullptr);
}

}  // namespace
}  // namespace ops
}  // namespace mace
