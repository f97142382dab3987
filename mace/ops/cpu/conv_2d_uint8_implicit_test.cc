// The implicit-GEMM uint8 convolution of every kernel table that has one
// (AVX-512 VNNI) against ref::quantized::Conv2D, bit for bit: input channels
// that end mid-quad, output channels around the 12-row tile, flat positions
// around the 32-position strip, odd heights and widths, W = 1 and H = 1,
// strides 1 and 2 (also in one direction only), padding 0 to 3 (also
// uneven), windows 3x3, 2x2, 1x3, 5x5 and 7x7, zero points 0 and 255,
// uint8 and per-channel int8 filters, batches, with 1, 2 and 3 threads. A
// bias the fused output step cannot take makes Run return false without
// writing anything.
#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/conv_2d_uint8_implicit.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/quantized_conv_test_data.h"
#include "mace/ops/ref/quantized/conv_2d.h"

namespace mace {
namespace ops {
namespace {

struct Case {
  int64_t batch, in_c, in_h, in_w, out_c, kh, kw, sh, sw, pad_top, pad_left;
  int64_t pad_bottom, pad_right;
  int32_t input_zp, filter_zp;
  bool int8;
};

std::vector<const KernelTable*> ImplicitTables() {
  std::vector<const KernelTable*> tables;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->quantized_conv_taps != nullptr) tables.push_back(table);
  }
  return tables;
}

ref::Conv2DParams Params(const Case& c) {
  ref::Conv2DParams p;
  p.batch = c.batch;
  p.in_channels = c.in_c;
  p.in_h = c.in_h;
  p.in_w = c.in_w;
  p.out_channels = c.out_c;
  p.kernel_h = c.kh;
  p.kernel_w = c.kw;
  p.stride_h = c.sh;
  p.stride_w = c.sw;
  p.pad_top = c.pad_top;
  p.pad_left = c.pad_left;
  p.out_h = (c.in_h + c.pad_top + c.pad_bottom - c.kh) / c.sh + 1;
  p.out_w = (c.in_w + c.pad_left + c.pad_right - c.kw) / c.sw + 1;
  return p;
}

// Output clamps: a plain range, a fused RELU and a RELU6-like one.
const OutputClamp kClamps[] = {{64, 10, 250}, {64, 64, 255}, {37, 37, 90}};

void RunCase(const KernelTable& table, const Case& c, const OutputClamp& clamp,
             std::mt19937* rng) {
  const ref::Conv2DParams p = Params(c);
  const int64_t depth = c.in_c * c.kh * c.kw;
  // Every other case has inputs and weights at their extremes only.
  const bool extreme = (*rng)() % 2 == 0;
  const testing::QuantizedConvData d = testing::RandomQuantizedConv(
      c.batch * c.in_c * c.in_h * c.in_w, c.out_c, depth, c.input_zp, c.filter_zp, c.int8, clamp,
      extreme, rng);
  const std::vector<uint8_t>& input = d.input;
  const std::vector<int32_t>& bias = d.bias;
  const ref::quantized::ConvQuantization& quant = d.quant;
  std::unique_ptr<Conv2dUint8Implicit> fast =
      Conv2dUint8Implicit::Create(table, p, quant, d.filter(), c.int8);
  ASSERT_NE(fast, nullptr);
  const int64_t outputs = c.batch * c.out_c * p.out_h * p.out_w;
  std::vector<uint8_t> expected(outputs);
  const int32_t* const biases[] = {nullptr, bias.data()};
  for (const int32_t* b : biases) {
    if (c.int8) {
      ref::quantized::Conv2D(p, quant, input.data(), d.filter_i8.data(), b, expected.data());
    } else {
      ref::quantized::Conv2D(p, quant, input.data(), d.filter_u8.data(), b, expected.data());
    }
    const std::string mismatch =
        testing::FirstMismatch(expected, [&](ThreadPool* pool, uint8_t* out) {
          ASSERT_TRUE(fast->Run(input.data(), b, out, pool));
        });
    ASSERT_EQ(mismatch, "") << table.name << (b == nullptr ? " no bias" : " bias");
  }
  // A bias whose total may saturate: no fused output step, nothing written.
  std::vector<int32_t> big_bias = bias;
  big_bias[c.out_c - 1] = INT32_MAX - 5;
  std::vector<uint8_t> untouched(outputs, 0xA5);
  EXPECT_FALSE(fast->Run(input.data(), big_bias.data(), untouched.data()));
  EXPECT_EQ(std::count(untouched.begin(), untouched.end(), 0xA5), outputs);
}

const Case kCases[] = {
    // batch in_c h w out_c kh kw sh sw pad t l b r zq zw int8
    // SqueezeNet-like: the 3-channel stem (stride 2, no padding), fire
    // expand 3x3 with padding 1; ResNet-like stride-2 3x3.
    {1, 3, 23, 23, 64, 3, 3, 2, 2, 0, 0, 0, 0, 128, 120, false},
    {1, 16, 11, 11, 64, 3, 3, 1, 1, 1, 1, 1, 1, 0, 255, false},
    {1, 32, 13, 13, 128, 3, 3, 1, 1, 1, 1, 1, 1, 77, 0, true},
    {1, 64, 14, 14, 40, 3, 3, 2, 2, 1, 1, 1, 1, 255, 0, true},
    // Channels that end mid-quad, out_c around the 12-row tile.
    {1, 1, 7, 9, 1, 3, 3, 1, 1, 1, 1, 1, 1, 13, 14, false},
    {1, 5, 9, 11, 12, 3, 3, 2, 2, 1, 1, 1, 1, 131, 7, false},
    {1, 7, 10, 9, 20, 3, 3, 1, 1, 1, 1, 1, 1, 0, 255, false},
    {2, 6, 13, 7, 26, 3, 3, 2, 2, 1, 1, 1, 1, 64, 0, true},
    {1, 9, 6, 5, 13, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, true},
    {1, 17, 8, 8, 5, 3, 3, 1, 1, 0, 0, 0, 0, 200, 17, false},
    {1, 130, 4, 4, 17, 3, 3, 1, 1, 1, 1, 1, 1, 77, 0, true},
    // W = 1, H = 1, a single output, padding wider than the input.
    {1, 4, 9, 1, 8, 3, 3, 1, 1, 1, 1, 1, 1, 3, 250, false},
    {1, 6, 1, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 250, 3, true},
    {1, 3, 1, 1, 5, 3, 3, 1, 1, 1, 1, 1, 1, 100, 50, false},
    {1, 2, 3, 3, 5, 3, 3, 1, 1, 3, 3, 3, 3, 100, 50, false},
    {1, 8, 2, 2, 4, 3, 3, 2, 2, 1, 1, 1, 1, 9, 0, true},
    // Stride in one direction only, uneven padding (TF SAME with stride 2
    // pads the bottom and right), windows other than 3x3.
    {1, 5, 9, 12, 7, 3, 3, 1, 2, 1, 0, 1, 1, 60, 0, true},
    {1, 5, 12, 9, 7, 3, 3, 2, 1, 0, 1, 2, 0, 60, 199, false},
    {1, 8, 10, 10, 8, 3, 3, 2, 2, 0, 0, 1, 1, 128, 128, false},
    {1, 6, 7, 8, 9, 2, 2, 1, 1, 0, 0, 1, 1, 31, 200, false},
    {1, 4, 6, 11, 10, 1, 3, 1, 1, 0, 1, 0, 1, 0, 0, true},
    {1, 3, 15, 14, 16, 5, 5, 2, 2, 2, 2, 2, 2, 1, 0, true},
    {1, 3, 19, 18, 8, 7, 7, 2, 2, 3, 3, 3, 3, 128, 3, false},
    // Many strips and rows: threads split strips and row ranges; widths
    // around the 32-position strip.
    {1, 24, 27, 27, 36, 3, 3, 1, 1, 1, 1, 1, 1, 5, 0, true},
    {1, 12, 30, 30, 16, 3, 3, 1, 1, 1, 1, 1, 1, 255, 255, false},
    {1, 16, 31, 29, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0, 128, false},
    {1, 48, 7, 7, 100, 3, 3, 1, 1, 1, 1, 1, 1, 9, 0, true},
    {1, 20, 64, 65, 6, 3, 3, 2, 2, 1, 1, 1, 1, 17, 0, true},
    // SqueezeNet's 13 x 13 expand: 195 flat positions, a last strip of 3
    // (the 16-position tile); 27 x 27: a last strip of exactly 15.
    {1, 20, 13, 13, 28, 3, 3, 1, 1, 1, 1, 1, 1, 90, 0, true},
    {1, 9, 27, 27, 16, 3, 3, 1, 1, 1, 1, 1, 1, 4, 200, false},
    // Few strips, many row tiles: units of a strip's row range (9 tiles
    // split 5 or 7 ways); inputs of 64 KiB and more, whose (quad, row)
    // pairs the threads pack: a one-quad stem of odd size, and padded
    // stride 2 over two images.
    {1, 24, 13, 13, 100, 3, 3, 1, 1, 1, 1, 1, 1, 90, 0, true},
    {1, 3, 151, 149, 8, 3, 3, 2, 2, 0, 0, 0, 0, 128, 120, false},
    {2, 5, 120, 111, 4, 3, 3, 2, 2, 1, 1, 1, 1, 7, 0, true},
};

TEST(Conv2dUint8Implicit, MatchesReferenceExactly) {
  const std::vector<const KernelTable*> tables = ImplicitTables();
  if (tables.empty()) GTEST_SKIP() << "no implicit uint8 convolution on this CPU";
  for (const KernelTable* table : tables) {
    std::mt19937 rng(7767517);
    int index = 0;
    for (const Case& c : kCases) {
      // Every clamp: the output step differs for a low end at or above the
      // zero point.
      for (const OutputClamp& clamp : kClamps) {
        SCOPED_TRACE(::testing::Message()
                     << table->name << " case " << index << " in_c " << c.in_c << " " << c.in_h
                     << "x" << c.in_w << " out_c " << c.out_c << " k " << c.kh << "x" << c.kw
                     << " s " << c.sh << "x" << c.sw << " clamp " << clamp.min << ".."
                     << clamp.max);
        RunCase(*table, c, clamp, &rng);
      }
      ++index;
    }
  }
}

// The quad packing both convolutions read (QuantizedQuadPackKernel)
// against the rule byte by byte: steps 1 and 2, counts around its 16-,
// 32- and 64-position steps, rows that end exactly at the last byte the
// rule reads, and nothing written past `count` words.
TEST(Conv2dUint8Implicit, QuadPackMatchesRule) {
  std::mt19937 rng(3301);
  int tested = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->quantized_quad_pack == nullptr) continue;
    ++tested;
    for (int64_t step : {1, 2}) {
      for (int64_t count = 0; count <= 200; ++count) {
        const int64_t length = count == 0 ? 0 : step * (count - 1) + 1;
        std::vector<std::vector<uint8_t>> data(4);
        const uint8_t* rows[4];
        for (int l = 0; l < 4; ++l) {
          data[l] = testing::RandomValues<uint8_t>(length, 0, 255, &rng);
          rows[l] = data[l].data();
        }
        std::vector<int32_t> got(count + 16, 0x5A5A5A5A);
        table->quantized_quad_pack(rows, step, count, got.data());
        for (int64_t i = 0; i < count; ++i) {
          const uint32_t want = uint32_t{rows[0][step * i]} | uint32_t{rows[1][step * i]} << 8 |
                                uint32_t{rows[2][step * i]} << 16 |
                                uint32_t{rows[3][step * i]} << 24;
          ASSERT_EQ(static_cast<uint32_t>(got[i]), want)
              << table->name << " step " << step << " count " << count << " at " << i;
        }
        for (int64_t i = count; i < count + 16; ++i) {
          ASSERT_EQ(got[i], 0x5A5A5A5A) << table->name << " wrote past " << count;
        }
      }
    }
  }
  if (tested == 0) GTEST_SKIP() << "no quad packing on this CPU";
}

// The filter packing, word by word, against a plain packing: word (quad q,
// tap t) of row oc sits in the row's block of kQuantConvRows rows, byte l
// the weight of channel 4q + l as int8 (uint8 weights minus 128).
TEST(Conv2dUint8Implicit, PacksFiltersAsThePlainLoop) {
  const std::vector<const KernelTable*> tables = ImplicitTables();
  if (tables.empty()) GTEST_SKIP() << "no implicit uint8 convolution on this CPU";
  std::mt19937 rng(20261126);
  for (const Case& c : kCases) {
    const ref::Conv2DParams p = Params(c);
    const int64_t taps = c.kh * c.kw, quads = (c.in_c + 3) / 4;
    const testing::QuantizedConvData d = testing::RandomQuantizedConv(
        c.in_c * c.in_h * c.in_w, c.out_c, c.in_c * taps, c.input_zp, c.filter_zp, c.int8,
        kClamps[0], false, &rng);
    std::unique_ptr<Conv2dUint8Implicit> fast =
        Conv2dUint8Implicit::Create(*tables[0], p, d.quant, d.filter(), c.int8);
    if (fast == nullptr) continue;
    const int64_t rows = (c.out_c + kQuantGemmRows - 1) / kQuantGemmRows * kQuantGemmRows;
    std::vector<uint32_t> words(rows * quads * taps, 0);
    std::vector<int64_t> sums(c.out_c, 0);
    for (int64_t oc = 0; oc < c.out_c; ++oc) {
      const int64_t block = oc / kQuantConvRows * kQuantConvRows;
      const int64_t block_rows = std::min<int64_t>(kQuantConvRows, rows - block);
      for (int64_t ic = 0; ic < c.in_c; ++ic) {
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t k = (oc * c.in_c + ic) * taps + t;
          const int32_t w = c.int8 ? d.filter_i8[k] : d.filter_u8[k];
          sums[oc] += w - d.quant.filter_zero_point;
          const uint32_t byte = static_cast<uint8_t>(static_cast<int8_t>(w - (c.int8 ? 0 : 128)));
          words[block * quads * taps + ((ic / 4) * taps + t) * block_rows + oc - block] |=
              byte << (8 * (ic % 4));
        }
      }
    }
    ASSERT_EQ(fast->packed_filter().size(), words.size());
    for (size_t i = 0; i < words.size(); ++i) {
      ASSERT_EQ(static_cast<uint32_t>(fast->packed_filter()[i]), words[i]) << i;
    }
    EXPECT_EQ(fast->filter_sums(), sums);
  }
}

TEST(Conv2dUint8Implicit, DeclinesWhatItDoesNotRun) {
  const std::vector<const KernelTable*> tables = ImplicitTables();
  if (tables.empty()) GTEST_SKIP() << "no implicit uint8 convolution on this CPU";
  ref::quantized::ConvQuantization quant;
  quant.input_zero_point = 3;
  QuantizedMultiplier m;
  ASSERT_TRUE(MakeQuantizedMultiplier(0.001, "test", &m).ok());
  quant.multipliers.push_back(m);
  const Case base = {1, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 3, 0, true};
  const std::vector<int8_t> filter(8 * 8 * 9 * 9, 1);
  for (const KernelTable* table : tables) {
    ASSERT_NE(Conv2dUint8Implicit::Create(*table, Params(base), quant, filter.data(), true),
              nullptr);
    ref::Conv2DParams p = Params(base);
    p.kernel_h = p.kernel_w = 1;  // one tap: the GEMM's
    EXPECT_EQ(Conv2dUint8Implicit::Create(*table, p, quant, filter.data(), true), nullptr);
    p = Params(base);
    p.dilation_h = 2;
    EXPECT_EQ(Conv2dUint8Implicit::Create(*table, p, quant, filter.data(), true), nullptr);
    p = Params(base);
    p.group = 2;
    EXPECT_EQ(Conv2dUint8Implicit::Create(*table, p, quant, filter.data(), true), nullptr);
    p = Params(base);
    p.stride_w = 3;
    EXPECT_EQ(Conv2dUint8Implicit::Create(*table, p, quant, filter.data(), true), nullptr);
    p = Params(base);
    p.in_channels = 7300;  // 7300 x 9 > 65,000: int32 sums could overflow
    EXPECT_EQ(Conv2dUint8Implicit::Create(*table, p, quant, filter.data(), true), nullptr);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
