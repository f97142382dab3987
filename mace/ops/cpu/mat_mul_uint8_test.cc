// uint8 MatMul on the uint8 GEMM of every kernel table that has one against
// ref::quantized::MatMul and against a naive integer computation (the
// zero-point-shifted triple loop and the rounding rule by division with
// remainder), bit for bit: rows around the GEMM's row tiles, depths that end
// mid-word, one column (matrix-vector) and column tails, both transposes,
// zero points 0 and 255, a multiplier near 1 and clamps; with 1, 2 and 3
// threads, and with the same A reused and a new one.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/mat_mul_uint8_gemm.h"
#include "mace/ops/ref/quantized/mat_mul.h"

namespace mace {
namespace ops {
namespace {

struct Case {
  int64_t rows, depth, cols;
  bool transpose_a, transpose_b;
  int32_t a_zp, b_zp;
  double multiplier;
};

void RunCase(const KernelTable& table, const Case& c, std::mt19937* rng) {
  ref::quantized::MatMulShape shape;
  shape.batch = 1;
  shape.rows = c.rows;
  shape.depth = c.depth;
  shape.cols = c.cols;
  shape.transpose_a = c.transpose_a;
  shape.transpose_b = c.transpose_b;
  ref::quantized::ConvQuantization quant;
  quant.input_zero_point = c.a_zp;  // as ref::quantized::MatMul names them
  quant.filter_zero_point = c.b_zp;
  quant.multipliers.resize(1);
  ASSERT_TRUE(MakeQuantizedMultiplier(c.multiplier, "test", &quant.multipliers[0]).ok());
  quant.output = OutputClamp{77, 5, 250};
  const QuantizedMultiplier& m = quant.multipliers[0];
  MatMulUint8Gemm fast(table, shape, quant);
  const std::vector<uint8_t> a = testing::RandomValues<uint8_t>(c.rows * c.depth, 0, 255, rng);
  for (int round = 0; round < 2; ++round) {
    // Round 1 keeps A (packed once) and draws a new B.
    const std::vector<uint8_t> b = testing::RandomValues<uint8_t>(c.depth * c.cols, 0, 255, rng);
    std::vector<uint8_t> expected(c.rows * c.cols), naive(c.rows * c.cols);
    ref::quantized::MatMul(shape, quant, a.data(), b.data(), expected.data());
    for (int64_t r = 0; r < c.rows; ++r) {
      for (int64_t j = 0; j < c.cols; ++j) {
        int64_t sum = 0;
        for (int64_t k = 0; k < c.depth; ++k) {
          const int64_t av = c.transpose_a ? a[k * c.rows + r] : a[r * c.depth + k];
          const int64_t bv = c.transpose_b ? b[j * c.depth + k] : b[k * c.cols + j];
          sum += (av - c.a_zp) * (bv - c.b_zp);
        }
        naive[r * c.cols + j] = testing::NaiveRequantize(sum, m, quant.output);
      }
    }
    ASSERT_EQ(expected, naive) << "the reference and the naive product disagree";
    bool ran = true;
    const std::string mismatch =
        testing::FirstMismatch(expected, [&](ThreadPool* pool, uint8_t* out) {
          ran = ran && fast.Run(a.data(), false, b.data(), out, pool);
        });
    ASSERT_TRUE(ran) << table.name;
    ASSERT_EQ(mismatch, "") << table.name << " round " << round;
  }
}

const Case kCases[] = {
    // rows depth cols transpose_a transpose_b a_zp b_zp multiplier
    {1, 1, 1, false, false, 128, 128, 0.01},
    {5, 33, 1, false, false, 0, 255, 0.002},    // matrix-vector
    {1000, 64, 1, false, true, 131, 120, 0.0005},
    {12, 64, 32, false, false, 255, 0, 0.001},
    {13, 17, 33, true, false, 3, 250, 0.003},
    {26, 130, 31, true, true, 128, 0, 0.0004},
    {7, 9, 70, false, true, 255, 255, 0.9999},
    {64, 300, 17, true, true, 100, 90, 0.00002},
};

TEST(MatMulUint8Gemm, MatchesReferenceAndNaiveExactly) {
  int tested = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->quantized_gemm == nullptr) continue;
    ++tested;
    std::mt19937 rng(7767517);
    for (const Case& c : kCases) {
      SCOPED_TRACE(::testing::Message() << table->name << " " << c.rows << "x" << c.depth << "x"
                                        << c.cols << " transposes " << c.transpose_a << " "
                                        << c.transpose_b);
      RunCase(*table, c, &rng);
    }
  }
  if (tested == 0) GTEST_SKIP() << "no uint8 GEMM on this CPU";
}

TEST(MatMulUint8Gemm, DeclinesWithoutGemm) {
  KernelTable table;  // no uint8 GEMM
  ref::quantized::MatMulShape shape;
  shape.batch = shape.rows = shape.depth = shape.cols = 2;
  ref::quantized::ConvQuantization quant;
  quant.multipliers.resize(1);
  ASSERT_TRUE(MakeQuantizedMultiplier(0.01, "test", &quant.multipliers[0]).ok());
  MatMulUint8Gemm fast(table, shape, quant);
  std::vector<uint8_t> a(4, 1), b(4, 2), out(4, 9);
  EXPECT_FALSE(fast.Run(a.data(), true, b.data(), out.data(), nullptr));
  EXPECT_EQ(out, std::vector<uint8_t>(4, 9));
}

}  // namespace
}  // namespace ops
}  // namespace mace
