// Every variant of the transformer element-wise kernels this build and CPU
// run (portable, AVX2, AVX-512, NEON) against the plain references in
// double, entry by entry of MACE_TRANSFORMER_KERNELS.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/transformer_kernels.h"

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

struct Entry {
  const char* name;
  FloatMapKernel TransformerKernels::*field;
  double (*reference)(double);
  double (*bound)(double);
};

// The map kernels of the list; the softmax entry is checked by its own
// tests below, through its field.
void AddEntry(std::vector<Entry>* entries, const char* name,
              FloatMapKernel TransformerKernels::*field, double (*reference)(double),
              double (*bound)(double)) {
  entries->push_back({name, field, reference, bound});
}
void AddEntry(std::vector<Entry>* /*entries*/, const char* /*name*/,
              SoftmaxRowsKernel TransformerKernels::* /*field*/,
              void (*/*reference*/)(const float*, int64_t, bool, double*),
              double (*/*bound*/)(double, bool)) {}

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
  const std::vector<float> special = {
      0.f,       -0.f,      inf,   -inf,      std::numeric_limits<float>::quiet_NaN(),
      10.f,      -10.f,     0.5f,  -0.5f,     denormal,
      -denormal, 1e-39f,    -1e-39f, std::numeric_limits<float>::min(),
      3e38f,     -3e38f,    1e-20f, -1e-20f,  4.f,
      -4.f,      13.9f,     -13.9f, 14.1f,    -14.1f};
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
