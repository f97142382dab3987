// FullyConnected on the uint8 GEMM of every kernel table that has one
// (AVX2's and NEON's int16 pairs, AVX-512 VNNI's and the arm64 dot
// product's quads) against ref::quantized::FullyConnected, bit for bit:
// units around the 4-row tile, depths that end mid-word, batches of 1 to
// 3 and of 70 to 400 (rows over several column tiles), zero points 0 and 255, uint8 and per-channel
// int8 weights, biases large enough to need the scalar output step, with 1, 2 and 3 threads. The
// matrix-vector kernel (batch 1) likewise, and against a naive integer computation with the
// rounding done by division and remainder.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/fully_connected_uint8_gemm.h"
#include "mace/ops/cpu/fully_connected_uint8_gemv.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/ref/quantized/mat_mul.h"

namespace mace {
namespace ops {
namespace {

struct Case {
  int64_t batch, depth, units;
  int32_t input_zp, weight_zp;
  bool int8;
  int32_t bias_limit;
};

void RunCase(const KernelTable& table, const Case& c, std::mt19937* rng) {
  ref::quantized::FullyConnectedShape shape;
  shape.batch = c.batch;
  shape.depth = c.depth;
  shape.units = c.units;
  const std::vector<uint8_t> input =
      testing::RandomValues<uint8_t>(c.batch * c.depth, 0, 255, rng);
  const std::vector<uint8_t> weight_u8 =
      testing::RandomValues<uint8_t>(c.units * c.depth, 0, 255, rng);
  const std::vector<int8_t> weight_i8 =
      testing::RandomValues<int8_t>(c.units * c.depth, -128, 127, rng);
  const std::vector<int32_t> bias =
      testing::RandomValues<int32_t>(c.units, -c.bias_limit, c.bias_limit, rng);
  ref::quantized::ConvQuantization quant;
  ASSERT_TRUE(testing::RandomQuantization(c.input_zp, c.weight_zp, c.int8, c.units, 0.00001,
                                          0.005, rng, &quant));
  quant.output = OutputClamp{100, 0, 255};
  const void* weight = c.int8 ? static_cast<const void*>(weight_i8.data()) : weight_u8.data();
  std::unique_ptr<FullyConnectedUint8Gemm> fast =
      MakeFullyConnectedGemm(table, shape, quant, weight, c.int8);
  ASSERT_NE(fast, nullptr);
  const int64_t outputs = c.batch * c.units;
  std::vector<uint8_t> expected(outputs);
  const int32_t* const biases[] = {nullptr, bias.data()};
  for (const int32_t* b : biases) {
    if (c.int8) {
      ref::quantized::FullyConnected(shape, quant, input.data(), weight_i8.data(), b,
                                     expected.data());
    } else {
      ref::quantized::FullyConnected(shape, quant, input.data(), weight_u8.data(), b,
                                     expected.data());
    }
    const std::string mismatch =
        testing::FirstMismatch(expected, [&](ThreadPool* pool, uint8_t* out) {
          fast->Run(input.data(), b, out, pool);
        });
    ASSERT_EQ(mismatch, "") << table.name << " " << fast->name();
  }
}

const Case kCases[] = {
    // batch depth units zq zw int8 bias_limit
    {1, 64, 10, 128, 120, false, 40000},
    {1, 1, 1, 0, 255, false, 40000},
    {3, 33, 7, 255, 0, false, 40000},
    {2, 130, 17, 13, 200, false, 40000},
    {1, 1024, 100, 128, 0, true, 40000},
    {2, 5, 4, 0, 0, true, 40000},
    {1, 63, 9, 255, 0, true, 2147000000},  // saturating sums
    // Rows over several of the GEMM's column tiles and blocks, as a
    // transformer's projections (the rows are the GEMM's columns).
    {197, 64, 33, 128, 0, true, 40000},
    {70, 130, 9, 3, 77, false, 40000},
    {400, 96, 20, 0, 0, true, 2147000000},
};

TEST(FullyConnectedUint8Gemm, MatchesReferenceExactly) {
  int tested = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->quantized_gemm == nullptr) continue;
    ++tested;
    std::mt19937 rng(7767517);
    for (const Case& c : kCases) {
      SCOPED_TRACE(::testing::Message() << table->name << " batch " << c.batch << " depth "
                                        << c.depth << " units " << c.units << " int8 "
                                        << c.int8);
      RunCase(*table, c, &rng);
    }
  }
  if (tested == 0) GTEST_SKIP() << "no uint8 GEMM on this CPU";
}

void RunGemvCase(const KernelTable& table, const Case& c, std::mt19937* rng) {
  ref::quantized::FullyConnectedShape shape;
  shape.batch = 1;
  shape.depth = c.depth;
  shape.units = c.units;
  const bool extreme = c.depth % 2 == 0;
  const int32_t far = c.input_zp < 128 ? 255 : 0;  // the input farthest from the zero point
  const std::vector<uint8_t> input =
      testing::RandomValues<uint8_t>(c.depth, extreme ? far : 0, extreme ? far : 255, rng);
  const std::vector<uint8_t> weight_u8 =
      testing::RandomValues<uint8_t>(c.units * c.depth, 0, 255, rng);
  const std::vector<int8_t> weight_i8 =
      testing::RandomValues<int8_t>(c.units * c.depth, -128, 127, rng);
  const std::vector<int32_t> bias =
      testing::RandomValues<int32_t>(c.units, -c.bias_limit, c.bias_limit, rng);
  ref::quantized::ConvQuantization quant;
  ASSERT_TRUE(testing::RandomQuantization(c.input_zp, c.weight_zp, c.int8, c.units, 0.00001,
                                          0.005, rng, &quant));
  quant.output = OutputClamp{100, 2, 253};
  const void* weight = c.int8 ? static_cast<const void*>(weight_i8.data()) : weight_u8.data();
  std::unique_ptr<FullyConnectedUint8Gemv> gemv =
      FullyConnectedUint8Gemv::Create(table, shape, quant, weight, c.int8);
  ASSERT_NE(gemv, nullptr);
  std::vector<uint8_t> expected(c.units), naive(c.units);
  const int32_t* const biases[] = {nullptr, bias.data()};
  for (const int32_t* b : biases) {
    if (c.int8) {
      ref::quantized::FullyConnected(shape, quant, input.data(), weight_i8.data(), b,
                                     expected.data());
    } else {
      ref::quantized::FullyConnected(shape, quant, input.data(), weight_u8.data(), b,
                                     expected.data());
    }
    for (int64_t u = 0; u < c.units; ++u) {
      int64_t sum = b != nullptr ? b[u] : 0;
      for (int64_t k = 0; k < c.depth; ++k) {
        const int64_t w = c.int8 ? weight_i8[u * c.depth + k] : weight_u8[u * c.depth + k];
        sum += (int64_t{input[k]} - quant.input_zero_point) * (w - quant.filter_zero_point);
      }
      naive[u] = testing::NaiveRequantize(sum, quant.multiplier(u), quant.output);
    }
    ASSERT_EQ(expected, naive) << "the reference and the naive product disagree";
    const std::string mismatch =
        testing::FirstMismatch(expected, [&](ThreadPool* pool, uint8_t* out) {
          gemv->Run(input.data(), b, out, pool);
        });
    ASSERT_EQ(mismatch, "") << table.name;
  }
}

const Case kGemvCases[] = {
    // batch depth units zq zw int8 bias_limit (batch is 1; an even depth
    // takes the input at the end of the range away from its zero point)
    {1, 1, 1, 128, 120, false, 40000},
    {1, 63, 3, 0, 255, false, 40000},
    {1, 64, 4, 255, 0, false, 40000},
    {1, 65, 5, 13, 200, false, 40000},
    {1, 130, 17, 255, 0, true, 40000},
    {1, 1280, 1000, 128, 0, true, 40000},
    {1, 1024, 37, 0, 255, false, 40000},
    {1, 77, 33, 255, 0, true, 2147000000},  // saturating sums
    {1, 4096, 6, 0, 0, false, 2147000000},
};

TEST(FullyConnectedUint8Gemv, MatchesReferenceAndNaiveExactly) {
  int tested = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->quantized_gemv == nullptr) continue;
    ++tested;
    std::mt19937 rng(20240611);
    for (const Case& c : kGemvCases) {
      SCOPED_TRACE(::testing::Message() << table->name << " depth " << c.depth << " units "
                                        << c.units << " int8 " << c.int8);
      RunGemvCase(*table, c, &rng);
    }
  }
  if (tested == 0) GTEST_SKIP() << "no uint8 matrix-vector kernel on this CPU";
}

TEST(FullyConnectedUint8Gemv, OnlyBatchOneWithinTheDepthLimit) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->quantized_gemv == nullptr) continue;
    ref::quantized::ConvQuantization quant;
    quant.multipliers.resize(1);
    ref::quantized::FullyConnectedShape shape;
    shape.batch = 2;
    shape.depth = 8;
    shape.units = 2;
    std::vector<uint8_t> weight(kQuantGemvMaxDepth + 64, 1);
    EXPECT_EQ(FullyConnectedUint8Gemv::Create(*table, shape, quant, weight.data(), false),
              nullptr);
    shape.batch = 1;
    shape.units = 1;
    shape.depth = kQuantGemvMaxDepth + 1;
    EXPECT_EQ(FullyConnectedUint8Gemv::Create(*table, shape, quant, weight.data(), false),
              nullptr);
    shape.depth = 8;
    EXPECT_NE(FullyConnectedUint8Gemv::Create(*table, shape, quant, weight.data(), false),
              nullptr);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
