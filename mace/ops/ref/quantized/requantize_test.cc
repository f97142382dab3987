// The scheme of common/quantize.h: multiplier encoding, the rounding rule
// against exact division, clamps, float conversion and validation.
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "mace/ops/common/quantize.h"
#include "mace/ops/ref/quantized/test_util.h"

namespace mace {
namespace ops {
namespace {

using quantized_testing::OracleRequantize;

TEST(QuantizedMultiplier, EncodesWithin31Bits) {
  for (double real : {1e-9, 2.4e-10, 0.0003, 0.25, 0.5, 0.7071, 0.99999999, 1.0, 1.5, 3.0, 1000.0,
                      5e8}) {
    QuantizedMultiplier m;
    ASSERT_TRUE(MakeQuantizedMultiplier(real, "t", &m).ok()) << real;
    EXPECT_GE(m.multiplier, int32_t{1} << 30) << real;
    EXPECT_GE(m.right_shift, 1);
    EXPECT_LE(m.right_shift, 62);
    const double encoded = std::ldexp(static_cast<double>(m.multiplier), -m.right_shift);
    // Rounded to nearest in 31 bits: relative error at most 2^-31.
    EXPECT_LE(std::fabs(encoded - real) / real, std::ldexp(1.0, -31)) << real;
  }
}

TEST(QuantizedMultiplier, RoundsUpToNextPowerOfTwo) {
  QuantizedMultiplier m;
  ASSERT_TRUE(MakeQuantizedMultiplier(std::nextafter(0.5, 0.0), "t", &m).ok());
  EXPECT_EQ(m.multiplier, int32_t{1} << 30);
  EXPECT_EQ(m.right_shift, 31);
}

TEST(QuantizedMultiplier, TinyMultiplierGivesZero) {
  QuantizedMultiplier m;
  ASSERT_TRUE(MakeQuantizedMultiplier(1e-12, "t", &m).ok());
  EXPECT_EQ(m.multiplier, 0);
  for (int32_t x : {INT32_MIN, -1, 0, 1, INT32_MAX}) EXPECT_EQ(Requantize(x, m), 0);
}

TEST(QuantizedMultiplier, RefusesBadValues) {
  QuantizedMultiplier m;
  for (double real : {0.0, -0.5, std::nan(""), std::numeric_limits<double>::infinity(),
                      1073741824.0}) {
    const MaceStatus status = MakeQuantizedMultiplier(real, "conv1 'w'", &m);
    ASSERT_FALSE(status.ok()) << real;
    EXPECT_NE(status.information().find("conv1 'w'"), std::string::npos);
  }
}

TEST(Requantize, MatchesExactDivision) {
  std::mt19937 rng(7767517);
  std::uniform_int_distribution<int32_t> any_int(INT32_MIN, INT32_MAX);
  std::uniform_real_distribution<double> exponent(-34.0, 20.0);
  for (int i = 0; i < 200000; ++i) {
    const QuantizedMultiplier m = quantized_testing::Multiplier(std::exp2(exponent(rng)));
    int32_t x = any_int(rng);
    if (i % 4 == 1) x >>= 16;
    if (i % 4 == 2) x >>= 24;
    ASSERT_EQ(Requantize(x, m), OracleRequantize(x, m)) << x << " " << m.multiplier << " "
                                                        << m.right_shift;
  }
  for (int32_t x : {INT32_MIN, INT32_MIN + 1, -1, 0, 1, INT32_MAX}) {
    for (double real : {1e-10, 0.5, 0.999, 1.0, 7.5, 1e9}) {
      const QuantizedMultiplier m = quantized_testing::Multiplier(real);
      EXPECT_EQ(Requantize(x, m), OracleRequantize(x, m)) << x << " " << real;
    }
  }
}

TEST(Requantize, TiesRoundAwayFromZero) {
  // M = 1/2 exactly, and M = 3/8: products land on exact halves.
  const QuantizedMultiplier half = quantized_testing::Multiplier(0.5);
  EXPECT_EQ(Requantize(1, half), 1);
  EXPECT_EQ(Requantize(-1, half), -1);
  EXPECT_EQ(Requantize(3, half), 2);
  EXPECT_EQ(Requantize(-3, half), -2);
  EXPECT_EQ(Requantize(2, half), 1);
  const QuantizedMultiplier three_eighths = quantized_testing::Multiplier(0.375);
  EXPECT_EQ(Requantize(4, three_eighths), 2);    // 1.5
  EXPECT_EQ(Requantize(-4, three_eighths), -2);  // -1.5
  EXPECT_EQ(Requantize(5, three_eighths), 2);    // 1.875
  // M >= 1.
  const QuantizedMultiplier two_and_half = quantized_testing::Multiplier(2.5);
  EXPECT_EQ(Requantize(3, two_and_half), 8);  // 7.5
  EXPECT_EQ(Requantize(-3, two_and_half), -8);
  EXPECT_EQ(Requantize(INT32_MAX, two_and_half), OracleRequantize(INT32_MAX, two_and_half));
}

TEST(OutputClamp, FoldsReluAndRelu6) {
  QuantParams quant;
  quant.scale = 0.05f;
  quant.zero_point = 20;
  OutputClamp clamp;
  Activation activation;
  ASSERT_TRUE(MakeOutputClamp(activation, quant, "t", &clamp).ok());
  EXPECT_EQ(clamp.min, 0);
  EXPECT_EQ(clamp.max, 255);
  activation.type = ActivationType::RELU;
  ASSERT_TRUE(MakeOutputClamp(activation, quant, "t", &clamp).ok());
  EXPECT_EQ(clamp.min, 20);
  EXPECT_EQ(clamp.max, 255);
  activation.type = ActivationType::RELUX;
  activation.max_limit = 6.f;
  ASSERT_TRUE(MakeOutputClamp(activation, quant, "t", &clamp).ok());
  EXPECT_EQ(clamp.min, 20);
  EXPECT_EQ(clamp.max, 140);  // 20 + 6 / 0.05
  quant.zero_point = 250;
  ASSERT_TRUE(MakeOutputClamp(activation, quant, "t", &clamp).ok());
  EXPECT_EQ(clamp.max, 255);
  activation.type = ActivationType::SIGMOID;
  const MaceStatus status = MakeOutputClamp(activation, quant, "Conv2D 'c'", &clamp);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.information().find("Conv2D 'c'"), std::string::npos);
}

TEST(QuantizeValue, RoundsHalfAwayAndSaturates) {
  EXPECT_EQ(QuantizeValue(0.f, 0.5f, 128), 128);
  EXPECT_EQ(QuantizeValue(0.25f, 0.5f, 128), 129);   // 0.5 -> 1
  EXPECT_EQ(QuantizeValue(-0.25f, 0.5f, 128), 127);  // -0.5 -> -1
  EXPECT_EQ(QuantizeValue(0.74f, 0.5f, 128), 129);
  EXPECT_EQ(QuantizeValue(1e9f, 0.5f, 128), 255);
  EXPECT_EQ(QuantizeValue(-1e9f, 0.5f, 128), 0);
  EXPECT_EQ(QuantizeValue(std::nanf(""), 0.5f, 7), 7);
  EXPECT_EQ(QuantizeValue(-std::numeric_limits<float>::infinity(), 0.5f, 7), 0);
  EXPECT_FLOAT_EQ(DequantizeValue(0, 0.5f, 128), -64.f);
  EXPECT_FLOAT_EQ(DequantizeValue(255, 0.5f, 0), 127.5f);
}

TEST(CheckQuantParams, NamesTheTensor) {
  Tensor tensor("conv1/weights", DT_UINT8);
  tensor.Reshape({4, 1, 1, 1});
  tensor.SetQuantization(0.1f, 3);
  EXPECT_TRUE(CheckQuantParams(tensor).ok());
  for (float scale : {0.f, -1.f, std::nanf(""), std::numeric_limits<float>::infinity()}) {
    tensor.SetQuantization(scale, 3);
    const MaceStatus status = CheckQuantParams(tensor);
    ASSERT_FALSE(status.ok()) << scale;
    EXPECT_NE(status.information().find("'conv1/weights'"), std::string::npos);
    EXPECT_NE(status.information().find("scale"), std::string::npos);
  }
  for (int32_t zero_point : {-1, 256}) {
    tensor.SetQuantization(0.1f, zero_point);
    const MaceStatus status = CheckQuantParams(tensor);
    ASSERT_FALSE(status.ok()) << zero_point;
    EXPECT_NE(status.information().find("zero point"), std::string::npos);
  }
  Tensor weights("w8", DT_INT8);
  weights.Reshape({2, 3});
  weights.SetQuantization(0.f, 0);
  weights.SetChannelScales({0.1f, 0.2f});
  EXPECT_TRUE(CheckQuantParams(weights).ok());
  weights.SetChannelScales({0.1f, 0.f});
  EXPECT_FALSE(CheckQuantParams(weights).ok());
  weights.SetChannelScales({0.1f});
  EXPECT_FALSE(CheckQuantParams(weights).ok());
  weights.SetChannelScales({0.1f, 0.2f});
  weights.SetQuantization(0.f, 1);
  EXPECT_FALSE(CheckQuantParams(weights).ok());
  Tensor floats("f", DT_FLOAT);
  EXPECT_FALSE(CheckQuantParams(floats).ok());
}

}  // namespace
}  // namespace ops
}  // namespace mace
