// uint8 FullyConnected and MatMul against the expanded zero-point form
// computed on explicitly transposed operands, requantized by exact
// division (test_util.h).
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/ref/quantized/mat_mul.h"
#include "mace/ops/ref/quantized/test_util.h"

namespace mace {
namespace ops {
namespace {

using quantized_testing::Multiplier;
using quantized_testing::OracleOutput;
using quantized_testing::RandomInts;

// sum over k of (a - za)(b - zb) as sum(ab) - zb*sum(a) - za*sum(b) + k*za*zb.
int64_t ExpandedDot(const std::vector<int64_t>& a, const std::vector<int64_t>& b, int64_t za,
                    int64_t zb) {
  int64_t ab = 0, sa = 0, sb = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    ab += a[k] * b[k];
    sa += a[k];
    sb += b[k];
  }
  return ab - zb * sa - za * sb + static_cast<int64_t>(a.size()) * za * zb;
}

template <typename W>
void RunFullyConnected(int64_t batch, int64_t depth, int64_t units, int32_t zq, int32_t zw,
                       bool with_bias, std::mt19937* rng) {
  const bool int8 = std::is_same<W, int8_t>::value;
  const std::vector<uint8_t> input = RandomInts<uint8_t>(rng, batch * depth, 0, 255);
  const std::vector<W> weight = int8 ? RandomInts<W>(rng, units * depth, -127, 127)
                                     : RandomInts<W>(rng, units * depth, 0, 255);
  const std::vector<int32_t> bias = RandomInts<int32_t>(rng, units, -30000, 30000);
  ref::quantized::ConvQuantization quant;
  quant.input_zero_point = zq;
  quant.filter_zero_point = int8 ? 0 : zw;
  std::uniform_real_distribution<double> real(0.0001, 0.01);
  for (int64_t u = 0; u < (int8 ? units : 1); ++u) quant.multipliers.push_back(Multiplier(real(*rng)));
  quant.output = OutputClamp{zq, 0, 255};
  std::vector<uint8_t> output(batch * units);
  ref::quantized::FullyConnected({batch, depth, units}, quant, input.data(), weight.data(),
                                 with_bias ? bias.data() : nullptr, output.data());
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t u = 0; u < units; ++u) {
      std::vector<int64_t> a(input.begin() + n * depth, input.begin() + (n + 1) * depth);
      std::vector<int64_t> b(weight.begin() + u * depth, weight.begin() + (u + 1) * depth);
      const int64_t sum = (with_bias ? bias[u] : 0) + ExpandedDot(a, b, zq, quant.filter_zero_point);
      ASSERT_EQ(output[n * units + u],
                OracleOutput(sum, quant.multipliers[int8 ? u : 0], quant.output))
          << n << " " << u;
    }
  }
}

TEST(QuantizedFullyConnected, MatchesExpandedOracle) {
  std::mt19937 rng(7767517);
  RunFullyConnected<uint8_t>(1, 1, 1, 0, 0, true, &rng);
  RunFullyConnected<uint8_t>(3, 17, 10, 128, 131, true, &rng);
  RunFullyConnected<uint8_t>(2, 1000, 33, 255, 0, false, &rng);
  RunFullyConnected<uint8_t>(1, 65, 7, 0, 255, true, &rng);
  RunFullyConnected<int8_t>(2, 31, 9, 128, 0, true, &rng);
  RunFullyConnected<int8_t>(1, 512, 16, 255, 0, false, &rng);
}

void RunMatMul(int64_t batch, int64_t rows, int64_t depth, int64_t cols, bool ta, bool tb,
               int32_t za, int32_t zb, std::mt19937* rng) {
  const std::vector<uint8_t> a = RandomInts<uint8_t>(rng, batch * rows * depth, 0, 255);
  const std::vector<uint8_t> b = RandomInts<uint8_t>(rng, batch * depth * cols, 0, 255);
  ref::quantized::ConvQuantization quant;
  quant.input_zero_point = za;
  quant.filter_zero_point = zb;
  quant.multipliers = {Multiplier(0.37 / depth)};
  quant.output = OutputClamp{100, 0, 255};
  std::vector<uint8_t> output(batch * rows * cols);
  ref::quantized::MatMul({batch, rows, depth, cols, ta, tb}, quant, a.data(), b.data(),
                         output.data());
  for (int64_t n = 0; n < batch; ++n) {
    // Row i of A and column j of B as plain vectors, from their storage.
    for (int64_t i = 0; i < rows; ++i) {
      std::vector<int64_t> row(depth);
      for (int64_t k = 0; k < depth; ++k) {
        row[k] = a[n * rows * depth + (ta ? k * rows + i : i * depth + k)];
      }
      for (int64_t j = 0; j < cols; ++j) {
        std::vector<int64_t> column(depth);
        for (int64_t k = 0; k < depth; ++k) {
          column[k] = b[n * depth * cols + (tb ? j * depth + k : k * cols + j)];
        }
        ASSERT_EQ(output[(n * rows + i) * cols + j],
                  OracleOutput(ExpandedDot(row, column, za, zb), quant.multipliers[0],
                               quant.output));
      }
    }
  }
}

TEST(QuantizedMatMul, MatchesExpandedOracle) {
  std::mt19937 rng(7767517);
  RunMatMul(1, 5, 7, 3, false, false, 128, 128, &rng);
  RunMatMul(2, 4, 33, 9, true, false, 0, 255, &rng);
  RunMatMul(3, 1, 16, 17, false, true, 255, 0, &rng);
  RunMatMul(1, 13, 1, 2, true, true, 7, 200, &rng);
}

}  // namespace
}  // namespace ops
}  // namespace mace
