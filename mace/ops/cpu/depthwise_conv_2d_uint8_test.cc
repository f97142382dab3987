// The fast uint8 3x3 depthwise convolution of every kernel table that has
// its row kernels (AVX2, AVX-512 BW, NEON) against ref::quantized::DepthwiseConv2d, bit
// for bit: channel counts and widths around the 8-lane tail and the
// AVX-512 rows' 16- and 32-output steps, W = 1 and
// H = 1, stride 1 and 2 (also stride 2 in one direction only), padding 0
// and 1, channel multipliers 1 and 2, zero points 0 and 255, uint8 and
// per-channel int8 filters, biases large enough to need the scalar output
// step, a multiplier above 1, with 1, 2 and 3 threads.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/depthwise_conv_2d_uint8_fast.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/ref/quantized/conv_2d.h"

namespace mace {
namespace ops {
namespace {

struct Case {
  int64_t batch, channels, in_h, in_w, multiplier, stride_h, stride_w, pad;
  int32_t input_zp, filter_zp;
  bool int8;
  int32_t bias_limit;  // biases in [-bias_limit, bias_limit]
  bool big_multiplier;
};

void RunCase(const KernelTable& table, const Case& c, std::mt19937* rng) {
  ref::DepthwiseConv2dParams p;
  p.batch = c.batch;
  p.channels = c.channels;
  p.in_h = c.in_h;
  p.in_w = c.in_w;
  p.multiplier = c.multiplier;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = c.stride_h;
  p.stride_w = c.stride_w;
  p.pad_top = p.pad_left = c.pad;
  p.out_h = (c.in_h + 2 * c.pad - 3) / c.stride_h + 1;
  p.out_w = (c.in_w + 2 * c.pad - 3) / c.stride_w + 1;
  ASSERT_GT(p.out_h, 0);
  ASSERT_GT(p.out_w, 0);
  const int64_t out_channels = c.channels * c.multiplier;
  const std::vector<uint8_t> input =
      testing::RandomValues<uint8_t>(c.batch * c.channels * c.in_h * c.in_w, 0, 255, rng);
  const std::vector<uint8_t> filter_u8 =
      testing::RandomValues<uint8_t>(out_channels * 9, 0, 255, rng);
  const std::vector<int8_t> filter_i8 =
      testing::RandomValues<int8_t>(out_channels * 9, -128, 127, rng);
  const std::vector<int32_t> bias =
      testing::RandomValues<int32_t>(out_channels, -c.bias_limit, c.bias_limit, rng);
  ref::quantized::ConvQuantization quant;
  const double low = c.big_multiplier ? 3.5 : 0.00005, high = c.big_multiplier ? 3.5001 : 0.01;
  ASSERT_TRUE(testing::RandomQuantization(c.input_zp, c.filter_zp, c.int8, out_channels, low,
                                          high, rng, &quant));
  quant.output = OutputClamp{64, 10, 250};
  const void* filter = c.int8 ? static_cast<const void*>(filter_i8.data()) : filter_u8.data();
  std::unique_ptr<DepthwiseUint8Fast> fast =
      DepthwiseUint8Fast::Create(table, p, quant, filter, c.int8);
  ASSERT_NE(fast, nullptr);
  const int64_t outputs = c.batch * out_channels * p.out_h * p.out_w;
  std::vector<uint8_t> expected(outputs);
  const int32_t* const biases[] = {nullptr, bias.data()};
  for (const int32_t* b : biases) {
    if (c.int8) {
      ref::quantized::DepthwiseConv2d(p, quant, input.data(), filter_i8.data(), b,
                                      expected.data());
    } else {
      ref::quantized::DepthwiseConv2d(p, quant, input.data(), filter_u8.data(), b,
                                      expected.data());
    }
    const std::string mismatch =
        testing::FirstMismatch(expected, [&](ThreadPool* pool, uint8_t* out) {
          fast->Run(input.data(), b, out, pool);
        });
    ASSERT_EQ(mismatch, "") << table.name;
  }
}

const Case kCases[] = {
    // batch channels h w mult stride_h stride_w pad zq zw int8 bias_limit big_multiplier
    {1, 3, 7, 9, 1, 1, 1, 1, 128, 120, false, 40000, false},
    {1, 5, 8, 8, 1, 1, 1, 1, 0, 255, false, 40000, false},     // 8 outputs: no tail
    {1, 4, 5, 17, 1, 1, 1, 0, 255, 0, false, 40000, false},    // 15 outputs
    {2, 17, 9, 9, 1, 2, 2, 1, 0, 0, false, 40000, false},
    {1, 6, 12, 33, 1, 2, 2, 1, 77, 3, false, 40000, false},    // 17 outputs
    {1, 3, 10, 11, 2, 2, 1, 1, 200, 17, false, 40000, false},
    {1, 2, 6, 16, 2, 1, 2, 0, 90, 255, false, 40000, false},
    {1, 3, 5, 1, 1, 1, 1, 1, 13, 14, false, 40000, false},     // W = 1
    {1, 2, 1, 10, 1, 1, 1, 1, 13, 14, false, 40000, false},    // H = 1
    {1, 1, 3, 3, 1, 1, 1, 0, 128, 128, false, 40000, false},   // one output
    {1, 7, 7, 7, 1, 1, 1, 1, 128, 0, true, 40000, false},
    {2, 9, 6, 5, 1, 2, 2, 1, 0, 0, true, 40000, false},
    {1, 5, 9, 20, 2, 2, 2, 1, 255, 0, true, 40000, false},
    {1, 4, 6, 9, 1, 1, 1, 1, 255, 0, true, 2147000000, false},  // saturating sums
    {1, 4, 6, 9, 1, 2, 2, 1, 31, 200, false, 1000, true},       // multiplier above 1
    // Widths around the AVX-512 rows' 32 (stride 1) and 16 (stride 2)
    // output steps and their 8-output tails.
    {1, 3, 4, 31, 1, 1, 1, 0, 128, 120, false, 40000, false},   // 29 outputs
    {1, 2, 5, 32, 1, 1, 1, 1, 7, 250, false, 40000, false},     // 32
    {1, 3, 3, 34, 1, 1, 1, 1, 0, 0, true, 40000, false},        // 34
    {1, 2, 4, 72, 1, 1, 1, 1, 255, 255, false, 40000, false},   // 72: 64 + 8
    {1, 3, 4, 50, 1, 1, 1, 1, 5, 128, false, 40000, false},     // 50: 32 + 16 + 8
    {1, 2, 9, 14, 2, 1, 1, 1, 200, 0, true, 40000, false},      // 14: one 16 step
    {1, 3, 5, 33, 1, 2, 2, 1, 60, 9, false, 40000, false},      // 17
    {1, 2, 6, 65, 2, 2, 2, 1, 0, 0, true, 40000, false},        // 33
    {1, 2, 7, 96, 1, 2, 2, 0, 128, 0, true, 40000, false},      // 47
    {1, 2, 3, 113, 1, 1, 2, 1, 99, 1, false, 40000, false},     // 57, stride 2 in W only
};

TEST(DepthwiseUint8Fast, MatchesReferenceExactly) {
  int tested = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->depthwise3x3_uint8_s1 == nullptr) continue;
    ++tested;
    std::mt19937 rng(7767517);
    for (const Case& c : kCases) {
      SCOPED_TRACE(::testing::Message() << table->name << " channels " << c.channels << " "
                                        << c.in_h << "x" << c.in_w << " stride " << c.stride_h
                                        << "x" << c.stride_w << " pad " << c.pad << " mult "
                                        << c.multiplier << " int8 " << c.int8);
      RunCase(*table, c, &rng);
    }
  }
  if (tested == 0) GTEST_SKIP() << "no uint8 depthwise row kernel on this CPU";
}

TEST(DepthwiseUint8Fast, OnlyThreeByThreeWithoutDilation) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->depthwise3x3_uint8_s1 == nullptr) continue;
    ref::DepthwiseConv2dParams p;
    p.batch = p.channels = 1;
    p.in_h = p.in_w = 8;
    p.kernel_h = p.kernel_w = 5;
    p.out_h = p.out_w = 4;
    ref::quantized::ConvQuantization quant;
    quant.multipliers.resize(1);
    std::vector<uint8_t> filter(25);
    EXPECT_EQ(DepthwiseUint8Fast::Create(*table, p, quant, filter.data(), false), nullptr);
    p.kernel_h = p.kernel_w = 3;
    p.dilation_h = p.dilation_w = 2;
    EXPECT_EQ(DepthwiseUint8Fast::Create(*table, p, quant, filter.data(), false), nullptr);
    p.dilation_h = p.dilation_w = 1;
    p.stride_w = 3;
    EXPECT_EQ(DepthwiseUint8Fast::Create(*table, p, quant, filter.data(), false), nullptr);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
