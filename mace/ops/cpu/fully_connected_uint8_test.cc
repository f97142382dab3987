// FullyConnected on the uint8 GEMM of every kernel table that has one
// (AVX2's and NEON's int16 pairs, AVX-512 VNNI's and the arm64 dot
// product's quads) against ref::quantized::FullyConnected, bit for bit:
// units around the 4-row tile, depths that end mid-word, batches of 1 to
// 3, zero points 0 and 255, uint8 and per-channel int8 weights, biases
// large enough to need the scalar output step, with 1, 2 and 3 threads.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/fully_connected_uint8_gemm.h"
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
  std::unique_ptr<Conv2dUint8Gemm> fast = MakeFullyConnectedGemm(table, shape, quant, weight,
                                                                 c.int8);
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

}  // namespace
}  // namespace ops
}  // namespace mace
