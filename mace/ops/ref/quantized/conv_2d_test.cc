// The uint8 convolutions against an independent computation: the input is
// padded explicitly with its zero point, unrolled into columns (im2col), and
// each output is the expanded form sum(q*w) - zw*sum(q) - zq*sum(w) +
// taps*zq*zw in int64, requantized by exact division (test_util.h).
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/ops/ref/quantized/test_util.h"

namespace mace {
namespace ops {
namespace {

using quantized_testing::Multiplier;
using quantized_testing::OracleOutput;
using quantized_testing::RandomInts;

struct Case {
  int64_t batch, in_c, in_h, in_w, out_c, k_h, k_w, stride, dilation, pad, group;
  int32_t input_zp, filter_zp;
  bool per_channel_int8;
  bool relu6;
};

// Columns of one image: [in_c * k_h * k_w, out_h * out_w], padding = zp.
std::vector<int64_t> Im2Col(const std::vector<uint8_t>& image, const Case& c, int64_t out_h,
                            int64_t out_w) {
  const int64_t ph = c.in_h + 2 * c.pad, pw = c.in_w + 2 * c.pad;
  std::vector<int64_t> padded(c.in_c * ph * pw, c.input_zp);
  for (int64_t ch = 0; ch < c.in_c; ++ch)
    for (int64_t y = 0; y < c.in_h; ++y)
      for (int64_t x = 0; x < c.in_w; ++x)
        padded[(ch * ph + y + c.pad) * pw + x + c.pad] = image[(ch * c.in_h + y) * c.in_w + x];
  std::vector<int64_t> columns;
  for (int64_t ch = 0; ch < c.in_c; ++ch)
    for (int64_t ky = 0; ky < c.k_h; ++ky)
      for (int64_t kx = 0; kx < c.k_w; ++kx)
        for (int64_t oy = 0; oy < out_h; ++oy)
          for (int64_t ox = 0; ox < out_w; ++ox)
            columns.push_back(padded[(ch * ph + oy * c.stride + ky * c.dilation) * pw +
                                     ox * c.stride + kx * c.dilation]);
  return columns;
}

template <typename W>
void RunCase(const Case& c, std::mt19937* rng) {
  const int64_t out_h = (c.in_h + 2 * c.pad - (c.k_h - 1) * c.dilation - 1) / c.stride + 1;
  const int64_t out_w = (c.in_w + 2 * c.pad - (c.k_w - 1) * c.dilation - 1) / c.stride + 1;
  const int64_t in_per_group = c.in_c / c.group, out_per_group = c.out_c / c.group;
  const int64_t taps = in_per_group * c.k_h * c.k_w;
  const int64_t positions = out_h * out_w;
  const std::vector<uint8_t> input = RandomInts<uint8_t>(rng, c.batch * c.in_c * c.in_h * c.in_w, 0, 255);
  const std::vector<W> filter = c.per_channel_int8 ? RandomInts<W>(rng, c.out_c * taps, -127, 127)
                                                   : RandomInts<W>(rng, c.out_c * taps, 0, 255);
  const std::vector<int32_t> bias = RandomInts<int32_t>(rng, c.out_c, -20000, 20000);

  ref::quantized::ConvQuantization quant;
  quant.input_zero_point = c.input_zp;
  quant.filter_zero_point = c.per_channel_int8 ? 0 : c.filter_zp;
  std::uniform_real_distribution<double> real(0.0002, 0.02);
  const int64_t multipliers = c.per_channel_int8 ? c.out_c : 1;
  for (int64_t i = 0; i < multipliers; ++i) quant.multipliers.push_back(Multiplier(real(*rng)));
  quant.output = OutputClamp{77, c.relu6 ? 77 : 0, c.relu6 ? 200 : 255};

  ref::Conv2DParams p;
  p.batch = c.batch;
  p.in_channels = c.in_c;
  p.in_h = c.in_h;
  p.in_w = c.in_w;
  p.out_channels = c.out_c;
  p.out_h = out_h;
  p.out_w = out_w;
  p.kernel_h = c.k_h;
  p.kernel_w = c.k_w;
  p.stride_h = p.stride_w = c.stride;
  p.dilation_h = p.dilation_w = c.dilation;
  p.pad_top = p.pad_left = c.pad;
  p.group = c.group;
  std::vector<uint8_t> output(c.batch * c.out_c * positions);
  ref::quantized::Conv2D(p, quant, input.data(), filter.data(), bias.data(), output.data());

  for (int64_t n = 0; n < c.batch; ++n) {
    const std::vector<uint8_t> image(input.begin() + n * c.in_c * c.in_h * c.in_w,
                                     input.begin() + (n + 1) * c.in_c * c.in_h * c.in_w);
    const std::vector<int64_t> columns = Im2Col(image, c, out_h, out_w);
    for (int64_t oc = 0; oc < c.out_c; ++oc) {
      const int64_t first_row = (oc / out_per_group) * taps;
      const int64_t zq = c.input_zp, zw = quant.filter_zero_point;
      int64_t weight_sum = 0;
      for (int64_t t = 0; t < taps; ++t) weight_sum += filter[oc * taps + t];
      for (int64_t pos = 0; pos < positions; ++pos) {
        int64_t dot = 0, input_sum = 0;
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t q = columns[(first_row + t) * positions + pos];
          dot += q * filter[oc * taps + t];
          input_sum += q;
        }
        const int64_t sum = bias[oc] + dot - zw * input_sum - zq * weight_sum + taps * zq * zw;
        const uint8_t expected =
            OracleOutput(sum, quant.multipliers[multipliers == 1 ? 0 : oc], quant.output);
        ASSERT_EQ(output[(n * c.out_c + oc) * positions + pos], expected)
            << "n " << n << " oc " << oc << " pos " << pos;
      }
    }
  }
}

const Case kCases[] = {
    // batch in_c h w out_c kh kw stride dil pad group zq zw int8 relu6
    {1, 3, 7, 9, 5, 3, 3, 1, 1, 1, 1, 128, 120, false, false},
    {2, 5, 8, 8, 7, 3, 3, 2, 1, 1, 1, 0, 255, false, true},
    {1, 4, 9, 7, 6, 1, 1, 1, 1, 0, 1, 255, 0, false, false},
    {1, 6, 9, 11, 6, 3, 3, 1, 2, 2, 2, 13, 200, false, false},
    {1, 8, 6, 6, 4, 5, 5, 2, 1, 2, 4, 255, 3, false, true},
    {1, 17, 5, 5, 19, 1, 1, 1, 1, 0, 1, 100, 0, false, false},
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, false, false},
    {1, 3, 7, 7, 5, 3, 3, 1, 1, 1, 1, 128, 0, true, false},
    {2, 9, 6, 5, 13, 3, 3, 2, 1, 1, 1, 0, 0, true, true},
    {1, 4, 5, 5, 4, 3, 3, 1, 1, 1, 2, 255, 0, true, false},
};

TEST(QuantizedConv2D, MatchesIm2ColOracle) {
  std::mt19937 rng(7767517);
  for (const Case& c : kCases) {
    SCOPED_TRACE(testing::Message() << "in_c " << c.in_c << " out_c " << c.out_c << " k " << c.k_h
                                    << " stride " << c.stride << " group " << c.group);
    if (c.per_channel_int8) {
      RunCase<int8_t>(c, &rng);
    } else {
      RunCase<uint8_t>(c, &rng);
    }
  }
}

// A depthwise convolution is a grouped convolution with group = channels:
// the oracle is Conv2D's, after reordering the filter from [multiplier,
// channels, kh, kw] to [channels * multiplier, 1, kh, kw].
template <typename W>
void RunDepthwise(int64_t channels, int64_t multiplier, int64_t size, int64_t stride,
                  int64_t pad, int32_t input_zp, int32_t filter_zp, std::mt19937* rng) {
  const int64_t k = 3, out = (size + 2 * pad - k) / stride + 1;
  const int64_t out_c = channels * multiplier;
  const bool int8 = std::is_same<W, int8_t>::value;
  const std::vector<uint8_t> input = RandomInts<uint8_t>(rng, channels * size * size, 0, 255);
  const std::vector<W> filter =
      int8 ? RandomInts<W>(rng, out_c * k * k, -127, 127) : RandomInts<W>(rng, out_c * k * k, 0, 255);
  const std::vector<int32_t> bias = RandomInts<int32_t>(rng, out_c, -5000, 5000);
  ref::quantized::ConvQuantization quant;
  quant.input_zero_point = input_zp;
  quant.filter_zero_point = int8 ? 0 : filter_zp;
  std::uniform_real_distribution<double> real(0.001, 0.05);
  for (int64_t i = 0; i < (int8 ? out_c : 1); ++i) quant.multipliers.push_back(Multiplier(real(*rng)));
  quant.output = OutputClamp{30, 0, 255};

  ref::DepthwiseConv2dParams p;
  p.batch = 1;
  p.channels = channels;
  p.in_h = p.in_w = size;
  p.multiplier = multiplier;
  p.out_h = p.out_w = out;
  p.kernel_h = p.kernel_w = k;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = pad;
  std::vector<uint8_t> output(out_c * out * out);
  ref::quantized::DepthwiseConv2d(p, quant, input.data(), filter.data(), bias.data(), output.data());

  std::vector<W> grouped(filter.size());
  for (int64_t m = 0; m < multiplier; ++m)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t t = 0; t < k * k; ++t)
        grouped[(c * multiplier + m) * k * k + t] = filter[(m * channels + c) * k * k + t];
  const Case c{1, channels, size, size, out_c, k, k, stride, 1, pad, channels, input_zp,
               quant.filter_zero_point, int8, false};
  const std::vector<int64_t> columns = Im2Col(input, c, out, out);
  for (int64_t oc = 0; oc < out_c; ++oc) {
    const int64_t channel = oc / multiplier;
    for (int64_t pos = 0; pos < out * out; ++pos) {
      int64_t sum = bias[oc];
      for (int64_t t = 0; t < k * k; ++t) {
        sum += (columns[(channel * k * k + t) * out * out + pos] - input_zp) *
               (int64_t{grouped[oc * k * k + t]} - quant.filter_zero_point);
      }
      ASSERT_EQ(output[oc * out * out + pos],
                OracleOutput(sum, quant.multipliers[int8 ? oc : 0], quant.output))
          << "oc " << oc << " pos " << pos;
    }
  }
}

TEST(QuantizedDepthwiseConv2d, MatchesGroupedOracle) {
  std::mt19937 rng(7767517);
  RunDepthwise<uint8_t>(5, 1, 7, 1, 1, 128, 128, &rng);
  RunDepthwise<uint8_t>(3, 2, 9, 2, 1, 0, 255, &rng);
  RunDepthwise<uint8_t>(17, 1, 4, 2, 0, 255, 0, &rng);
  RunDepthwise<int8_t>(7, 1, 6, 1, 1, 3, 0, &rng);
  RunDepthwise<int8_t>(4, 3, 5, 2, 1, 255, 0, &rng);
}

TEST(QuantizedConv2D, SaturatesTheAccumulator) {
  // 1x1 conv over 40000 channels of (255 - 0) * (255 - 0): the exact sum
  // 2.6e9 exceeds int32 and saturates before requantization.
  ref::Conv2DParams p;
  p.batch = p.in_h = p.in_w = p.out_channels = p.out_h = p.out_w = 1;
  p.kernel_h = p.kernel_w = 1;
  p.in_channels = 40000;
  std::vector<uint8_t> input(40000, 255), filter(40000, 255);
  ref::quantized::ConvQuantization quant;
  quant.multipliers = {Multiplier(1.0 / (1 << 24))};
  quant.output = OutputClamp{0, 0, 255};
  uint8_t output = 0;
  ref::quantized::Conv2D(p, quant, input.data(), filter.data(), nullptr, &output);
  EXPECT_EQ(output, 128);  // (2^31 - 1) / 2^24 = 127.99... -> 128
}

}  // namespace
}  // namespace ops
}  // namespace mace
