// The fast uint8 3x3 depthwise convolution of every kernel table that has
// its row kernels (AVX2, AVX-512 BW, NEON) against ref::quantized::DepthwiseConv2d, bit
// for bit: channel counts and widths around the 8-lane tail and the
// AVX-512 rows' 16- and 32-output steps, W = 1 and
// H = 1, stride 1 and 2 (also stride 2 in one direction only), padding 0
// and 1, channel multipliers 1 and 2, zero points 0 and 255, uint8 and
// per-channel int8 filters, biases large enough to need the scalar output
// step, a multiplier above 1, with 1, 2 and 3 threads; with the fused rows
// and without them (narrow stride-1 outputs run flat only with them). The fused rows also against naive integers alone.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/depthwise_conv_2d_uint8_fast.h"
#include "mace/ops/cpu/depthwise_uint8_block_variants.h"
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
  // The uint8 filter's values (taps within int8 of the zero point run on
  // the channel-blocked kernel too).
  int32_t filter_lo = 0, filter_hi = 255;
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
      testing::RandomValues<uint8_t>(out_channels * 9, c.filter_lo, c.filter_hi, rng);
  const std::vector<int8_t> filter_i8 =
      testing::RandomValues<int8_t>(out_channels * 9, -128, 127, rng);
  const std::vector<int32_t> bias =
      testing::RandomValues<int32_t>(out_channels, -c.bias_limit, c.bias_limit, rng);
  ref::quantized::ConvQuantization quant;
  const double low = c.big_multiplier ? 3.5 : 0.00005, high = c.big_multiplier ? 3.5001 : 0.01;
  ASSERT_TRUE(testing::RandomQuantization(c.input_zp, c.filter_zp, c.int8, out_channels, low,
                                          high, rng, &quant));
  // A clamp below the zero point, one at it (a fused RELU) and one above
  // it: the AVX-512 output step drops the sign steps for the last two.
  const OutputClamp clamps[] = {{64, 10, 250}, {64, 64, 250}, {64, 90, 200}};
  for (const OutputClamp& clamp : clamps) {
    SCOPED_TRACE(::testing::Message() << "clamp " << clamp.min << ".." << clamp.max);
    quant.output = clamp;
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
    // Stride-1 outputs up to 16 wide run flat (the plane as one row):
    // its edges, a multiplier above 1 and saturating sums there.
    {2, 3, 6, 16, 2, 1, 1, 1, 128, 120, false, 40000, false},   // 16: the widest flat
    {1, 2, 5, 17, 1, 1, 1, 1, 3, 250, true, 40000, false},      // 17: not flat
    {1, 3, 9, 9, 1, 1, 1, 0, 255, 0, false, 40000, false},      // 7 without padding
    {1, 4, 7, 7, 1, 1, 1, 1, 31, 200, false, 1000, true},       // multiplier above 1
    {1, 4, 7, 7, 1, 1, 1, 1, 255, 0, true, 2147000000, false},  // saturating sums
};

// Each table as it is (the fused rows where it has them) and without its
// fused rows (the row kernels' sums, then requantize_row), so both paths
// are checked on a host that has the fused ones.
std::vector<KernelTable> DepthwiseTables() {
  std::vector<KernelTable> tables;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->depthwise3x3_uint8_s1 == nullptr) continue;
    tables.push_back(*table);
    if (table->depthwise3x3_uint8_planar != nullptr) {
      tables.push_back(*table);
      tables.back().depthwise3x3_uint8_planar = nullptr;
    }
    KernelTable rows = *table;
    rows.depthwise3x3_uint8_block = nullptr;
    rows.depthwise3x3_uint8_planar = nullptr;
    if (table->depthwise3x3_uint8_block != nullptr) tables.push_back(rows);
    if (table->depthwise3x3_uint8_requant_s1 != nullptr) {
      KernelTable two_pass = rows;
      two_pass.depthwise3x3_uint8_requant_s1 = nullptr;
      two_pass.depthwise3x3_uint8_requant_s2 = nullptr;
      tables.push_back(two_pass);
    }
  }
  return tables;
}

TEST(DepthwiseUint8Fast, MatchesReferenceExactly) {
  const std::vector<KernelTable> tables = DepthwiseTables();
  for (const KernelTable& table : tables) {
    std::mt19937 rng(7767517);
    for (const Case& c : kCases) {
      SCOPED_TRACE(::testing::Message()
                   << table.name << (table.depthwise3x3_uint8_planar ? " planar" : "")
                   << (table.depthwise3x3_uint8_block ? " blocked" : "")
                   << (table.depthwise3x3_uint8_requant_s1 ? " fused" : " two-pass")
                   << " channels " << c.channels << " " << c.in_h << "x" << c.in_w << " stride "
                   << c.stride_h << "x" << c.stride_w << " pad " << c.pad << " mult "
                   << c.multiplier << " int8 " << c.int8);
      RunCase(table, c, &rng);
    }
  }
  if (tables.empty()) GTEST_SKIP() << "no uint8 depthwise row kernel on this CPU";
}

// The channel-blocked kernel (16 channels per vector) and its transposes
// at their edges: channel counts around the 16-channel block, input widths
// 1 to 70 (rows shorter and longer than a 16-position transpose step),
// strides 1 and 2 each way, padding 0 and 1, int8 filters and uint8
// filters within int8 of their zero point, and through RunCase 1 to 3
// threads. Tables without the kernel run their rows (checked above too).
// Its variants (depthwise_uint8_block_variants.h) are checked as well.
TEST(DepthwiseUint8Fast, BlockedMatchesReferenceExactly) {
  std::vector<KernelTable> tables;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->depthwise3x3_uint8_block == nullptr) continue;
    // The planar kernel takes these small planes where the table has it:
    // the blocked kernel is checked without it.
    tables.push_back(*table);
    tables.back().depthwise3x3_uint8_planar = nullptr;
    for (const DepthwiseUint8BlockVariant& variant :
         DepthwiseUint8BlockVariants(table->depthwise3x3_uint8_block)) {
      tables.push_back(tables.back());
      tables.back().depthwise3x3_uint8_block = variant.kernel;
      tables.back().name = variant.name;
    }
  }
  int tested = 0;
  for (const KernelTable* table = tables.data(); table != tables.data() + tables.size(); ++table) {
    ++tested;
    std::mt19937 rng(31337);
    const int64_t channels[] = {1, 15, 16, 17, 33, 40};
    for (int64_t w = 1; w <= 70; ++w) {
      for (int64_t stride = 1; stride <= 2; ++stride) {
        Case c{1 + w % 5 / 4, channels[w % 6], 3 + w % 4, w, 1, stride, 3 - stride, w % 3 ? 1 : 0,
               static_cast<int32_t>(w * 37 % 256), 0, w % 4 != 0, 40000, false};
        if (c.in_h + 2 * c.pad < 3 || c.in_w + 2 * c.pad < 3) continue;
        if (!c.int8) {
          c.filter_zp = 150;
          c.filter_lo = 23;
          c.filter_hi = 255;
        }
        if (w % 7 == 0) c.stride_w = stride;  // both ways
        SCOPED_TRACE(::testing::Message()
                     << table->name << " channels " << c.channels << " " << c.in_h << "x"
                     << c.in_w << " stride " << c.stride_h << "x" << c.stride_w << " pad "
                     << c.pad << " int8 " << c.int8);
        RunCase(*table, c, &rng);
      }
    }
  }
  if (tested == 0) GTEST_SKIP() << "no channel-blocked uint8 depthwise kernel on this CPU";
}

// The planar kernel (small planes in place, byte permutes from a 64- or
// 128-byte window) at its edges: input planes around the 64- and 128-byte
// windows (loaded once per channel up to one window, per step above), output
// planes around the 16-output vector and the 64-output store (1 to 1024
// outputs), widths 1 to 40, strides 1 and 2 each way, padding 0 and 1,
// channels around 16, batches 1 and 2, int8 and uint8 filters, clamps
// below, at and above the zero point, and through RunCase 1 to 3 threads.
// Layers whose 16 outputs span more than 128 input bytes (stride 2 on
// wide planes) or more than 1024 outputs take the blocked kernel and are
// checked the same way.
TEST(DepthwiseUint8Fast, PlanarMatchesReferenceExactly) {
  std::vector<KernelTable> tables;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->depthwise3x3_uint8_planar != nullptr) tables.push_back(*table);
  }
  int cases = 0;
  for (const KernelTable& table : tables) {
    std::mt19937 rng(4242);
    const int64_t channels[] = {1, 3, 16, 17, 33};
    const int64_t shapes[][2] = {{1, 1},  {1, 5},  {2, 31}, {7, 7},   {8, 8},   {9, 7},
                                 {4, 16}, {8, 16}, {9, 14}, {11, 12}, {13, 13}, {14, 14},
                                 {3, 40}, {16, 16}, {28, 28}, {32, 32}, {33, 31}, {64, 3},
                                 {5, 64}, {2, 100}, {36, 36}, {13, 5}, {5, 13}};
    int k = 0;
    for (const auto& shape : shapes) {
      for (int64_t stride = 1; stride <= 2; ++stride) {
        for (int64_t pad = 0; pad <= 1; ++pad, ++k) {
          Case c{1 + k % 7 / 6, channels[k % 5], shape[0], shape[1], 1, stride,
                 k % 3 == 2 ? 3 - stride : stride, pad, static_cast<int32_t>(k * 53 % 256), 0,
                 k % 4 != 1, 40000, false};
          if (c.in_h + 2 * c.pad < 3 || c.in_w + 2 * c.pad < 3) continue;
          if (!c.int8) {
            c.filter_zp = 100;
            c.filter_lo = 0;
            c.filter_hi = 227;
          }
          SCOPED_TRACE(::testing::Message()
                       << table.name << " channels " << c.channels << " batch " << c.batch << " "
                       << c.in_h << "x" << c.in_w << " stride " << c.stride_h << "x"
                       << c.stride_w << " pad " << c.pad << " int8 " << c.int8);
          RunCase(table, c, &rng);
          ++cases;
        }
      }
    }
  }
  if (tables.empty()) GTEST_SKIP() << "no planar uint8 depthwise kernel on this CPU";
  EXPECT_GT(cases, 60);
}

// The fused row kernels on their own against a naive sum of the nine
// products and the naive rule (testing::NaiveRequantize): every count from
// 1 to 70 (all tails of the 8-, 16- and 32-output steps), both strides,
// random and extreme inputs and taps (+-255), biases up to the exact-int32
// limit, two output rows per call; no byte at or past count of a row is
// written.
TEST(DepthwiseUint8Fast, FusedRowsMatchNaiveIntegers) {
  int tested = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    for (int stride = 1; stride <= 2; ++stride) {
      const DepthwiseUint8RequantRowKernel kernel = stride == 1
                                                        ? table->depthwise3x3_uint8_requant_s1
                                                        : table->depthwise3x3_uint8_requant_s2;
      if (kernel == nullptr) continue;
      ++tested;
      std::mt19937 rng(20240611 + stride);
      std::uniform_int_distribution<int32_t> value(-255, 255), coin(0, 3);
      for (int64_t count = 1; count <= 70; ++count) {
        SCOPED_TRACE(::testing::Message() << table->name << " stride " << stride << " count "
                                          << count);
        const int64_t padded = (count + kDepthwiseUint8Lanes - 1) / kDepthwiseUint8Lanes *
                               kDepthwiseUint8Lanes;
        const int64_t width = stride * padded + 3;
        const bool extreme = count % 5 == 0;
        // Two output rows: the second reads input rows 1 to 3.
        std::vector<int16_t> rows(4 * width);
        for (int16_t& v : rows) {
          v = static_cast<int16_t>(extreme ? (coin(rng) == 0 ? -255 : 255) : value(rng));
        }
        DepthwiseUint8RequantRow fused;
        for (int i = 0; i < 3; ++i) fused.row.rows[i] = rows.data() + i * width;
        for (int t = 0; t < 9; ++t) {
          fused.row.taps[t] = static_cast<int16_t>(extreme ? (t % 2 ? 255 : -255) : value(rng));
        }
        fused.row.count = count;
        const int64_t max_products = 9 * 255 * 255;
        const int64_t bias = extreme ? (int64_t{1} << 31) - 1 - max_products
                                     : std::uniform_int_distribution<int64_t>(-100000,
                                                                              100000)(rng);
        QuantizedMultiplier m;
        ASSERT_TRUE(MakeQuantizedMultiplier(extreme ? 0.9999 : 0.0003 + 0.001 * count, "row", &m)
                        .ok());
        // The clamp below, at (a fused RELU) and above the zero point.
        const int32_t zero_point = static_cast<int32_t>(count * 3 % 200);
        const int32_t lo = count % 3 == 0 ? 3 : count % 3 == 1 ? zero_point : zero_point + 7;
        const OutputClamp clamp{zero_point, lo, 251};
        fused.output.row_term = static_cast<int32_t>(bias);
        fused.output.multiplier = m.multiplier;
        fused.output.right_shift = m.right_shift;
        fused.output.zero_point = clamp.zero_point;
        fused.output.lo = clamp.min;
        fused.output.hi = clamp.max;
        const int64_t out_step = count + 20;
        std::vector<uint8_t> out(2 * out_step, 0xA5);
        fused.output.out = out.data();
        fused.out_rows = 2;
        fused.input_step = width;
        fused.output_step = out_step;
        kernel(fused);
        for (int64_t r = 0; r < 2; ++r) {
          for (int64_t x = 0; x < count; ++x) {
            int64_t sum = bias;
            for (int i = 0; i < 3; ++i) {
              for (int j = 0; j < 3; ++j) {
                sum += int64_t{fused.row.taps[3 * i + j]} *
                       rows[(r + i) * width + stride * x + j];
              }
            }
            const uint8_t got = out[r * out_step + x];
            ASSERT_EQ(got, testing::NaiveRequantize(sum, m, clamp))
                << "row " << r << " x " << x;
            ASSERT_EQ(got, RequantizeToUint8(static_cast<int32_t>(sum), m, clamp))
                << "row " << r << " x " << x;
          }
          for (int64_t x = count; x < out_step; ++x) {
            ASSERT_EQ(out[r * out_step + x], 0xA5) << "row " << r << " x " << x;
          }
        }
      }
    }
  }
  if (tested == 0) GTEST_SKIP() << "no fused uint8 depthwise row kernel on this CPU";
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
