// The uint8 GEMM convolution of every kernel table that has one (AVX2's
// and NEON's int16 pairs, AVX-512 VNNI's and the arm64 dot product's quads)
// against ref::quantized::Conv2D, bit
// for bit, at tile edges: output channels around the 4-row tile, positions
// around the 32-column tile, reductions that end mid-word, padding, stride,
// dilation, groups, zero points 0 and 255, uint8 and per-channel int8
// filters, stride-2 rows of 17 to 35 outputs, with 1, 2 and 3 threads.
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/conv_2d_uint8_gemm.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/quantized_conv_test_data.h"
#include "mace/ops/cpu/quantized_output.h"
#include "mace/ops/ref/quantized/conv_2d.h"

namespace mace {
namespace ops {
namespace {

struct Case {
  int64_t batch, in_c, in_h, in_w, out_c, k, stride, dilation, pad, group;
  int32_t input_zp, filter_zp;
  bool int8;
};

std::vector<const KernelTable*> QuantizedTables() {
  std::vector<const KernelTable*> tables;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->quantized_gemm != nullptr) tables.push_back(table);
  }
  return tables;
}

// Output clamps: a plain range, a fused RELU (from the zero point up) and a
// RELU6-like one (a narrow range above the zero point), and one whose low
// end lies above the zero point.
const OutputClamp kClamps[] = {{64, 10, 250}, {64, 64, 255}, {37, 37, 90}, {50, 61, 200}};
constexpr int kClampCount = sizeof(kClamps) / sizeof(kClamps[0]);

void RunCase(const KernelTable& table, const Case& c, const OutputClamp& clamp,
             std::mt19937* rng) {
  ref::Conv2DParams p;
  p.batch = c.batch;
  p.in_channels = c.in_c;
  p.in_h = c.in_h;
  p.in_w = c.in_w;
  p.out_channels = c.out_c;
  p.kernel_h = p.kernel_w = c.k;
  p.stride_h = p.stride_w = c.stride;
  p.dilation_h = p.dilation_w = c.dilation;
  p.pad_top = p.pad_left = c.pad;
  p.group = c.group;
  p.out_h = (c.in_h + 2 * c.pad - (c.k - 1) * c.dilation - 1) / c.stride + 1;
  p.out_w = (c.in_w + 2 * c.pad - (c.k - 1) * c.dilation - 1) / c.stride + 1;
  const int64_t depth = c.in_c / c.group * c.k * c.k;
  testing::QuantizedConvData d = testing::RandomQuantizedConv(
      c.batch * c.in_c * c.in_h * c.in_w, c.out_c, depth, c.input_zp, c.filter_zp, c.int8, clamp,
      false, rng);
  const std::vector<uint8_t>& input = d.input;
  const std::vector<uint8_t>& filter_u8 = d.filter_u8;
  const std::vector<int8_t>& filter_i8 = d.filter_i8;
  const std::vector<int32_t>& bias = d.bias;
  const ref::quantized::ConvQuantization& quant = d.quant;
  const void* filter = d.filter();
  std::unique_ptr<Conv2dUint8Gemm> fast = Conv2dUint8Gemm::Create(table, p, quant, filter, c.int8);
  ASSERT_NE(fast, nullptr);
  const int64_t outputs = c.batch * c.out_c * p.out_h * p.out_w;
  std::vector<uint8_t> expected(outputs), got(outputs, 0);
  // A bias so large in one channel that its total may saturate: that group
  // leaves the fused output step for the scalar rule.
  std::vector<int32_t> big_bias = bias;
  big_bias[c.out_c - 1] = INT32_MAX - 5;
  // The first run takes the terms PrepareBias made for its bias; the
  // others pass other biases, which make their own.
  const int32_t* const biases[] = {bias.data(), nullptr, big_bias.data(), bias.data()};
  fast->PrepareBias(bias.data());
  for (const int32_t* b : biases) {
    if (c.int8) {
      ref::quantized::Conv2D(p, quant, input.data(), filter_i8.data(), b, expected.data());
    } else {
      ref::quantized::Conv2D(p, quant, input.data(), filter_u8.data(), b, expected.data());
    }
    for (const auto& pool : testing::PoolsUnderTest()) {
      std::fill(got.begin(), got.end(), 0);
      fast->Run(input.data(), b, got.data(), pool.get());
      for (int64_t i = 0; i < outputs; ++i) {
        ASSERT_EQ(got[i], expected[i]) << table.name << " " << fast->name() << " threads "
                                       << NumThreads(pool.get()) << " at " << i;
      }
    }
  }
}

const Case kCases[] = {
    // batch in_c h w out_c k stride dil pad group zq zw int8
    {1, 3, 7, 9, 5, 3, 1, 1, 1, 1, 128, 120, false},
    {1, 16, 8, 4, 4, 1, 1, 1, 0, 1, 0, 255, false},     // 32 positions: one full tile
    {1, 16, 3, 11, 8, 1, 1, 1, 0, 1, 255, 0, false},    // 33 positions
    {2, 5, 9, 9, 7, 3, 2, 1, 1, 1, 0, 0, false},
    {1, 7, 6, 6, 3, 5, 1, 2, 4, 1, 200, 17, false},
    {1, 8, 10, 10, 12, 3, 2, 1, 1, 4, 90, 255, false},
    {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 13, 14, false},
    {1, 64, 5, 7, 33, 1, 1, 1, 0, 1, 128, 128, false},
    {1, 3, 7, 7, 5, 3, 1, 1, 1, 1, 128, 0, true},
    {2, 9, 6, 5, 13, 3, 2, 1, 1, 1, 0, 0, true},
    {1, 6, 5, 5, 6, 3, 1, 1, 1, 3, 255, 0, true},
    {1, 130, 4, 4, 17, 3, 1, 1, 1, 1, 77, 0, true},
    // Deep enough for column blocks (L2-sized), with a partial last block.
    {1, 130, 17, 19, 6, 3, 1, 1, 1, 1, 77, 0, true},
    {1, 200, 16, 15, 5, 3, 1, 1, 1, 1, 3, 250, false},
    // Row tails of the 6-row AVX2 tile (out_c 5, 9, 14, 22: 6 + 2, 6 + 6,
    // 12 + 4, 24 rows), odd pointwise depths (a lane past the depth) and
    // widths around the 16-value packing step.
    {1, 7, 9, 13, 5, 1, 1, 1, 0, 1, 31, 200, false},
    {1, 9, 5, 17, 9, 1, 1, 1, 0, 1, 0, 0, true},
    {1, 8, 9, 9, 14, 1, 2, 1, 0, 1, 128, 3, false},
    {1, 5, 11, 37, 22, 3, 1, 1, 1, 1, 60, 0, true},
    {1, 4, 12, 31, 9, 3, 2, 1, 1, 1, 255, 255, false},
    {1, 3, 4, 16, 6, 3, 1, 2, 2, 1, 1, 0, true},
    // Padding wider than the input: whole rows of taps fall outside.
    {1, 2, 3, 3, 5, 3, 1, 1, 3, 1, 100, 50, false},
    // Several column blocks for 1 to 3 threads, the last one partial.
    {1, 3, 64, 65, 10, 3, 1, 1, 1, 1, 17, 0, true},
    // Fewer column blocks than threads: threads split the rows.
    {1, 32, 5, 5, 40, 3, 1, 1, 1, 1, 128, 0, true},
    // Column blocks that would leave a thread idle (7 strips of 32 in
    // blocks of 4 and 3): with enough rows the threads split the rows, in
    // pieces of 12 with a tail; also a 3x3 grouped convolution.
    {1, 24, 14, 14, 80, 1, 1, 1, 0, 1, 3, 0, true},
    {1, 13, 13, 15, 118, 1, 1, 1, 0, 1, 200, 7, false},
    {1, 8, 16, 14, 160, 3, 1, 1, 1, 2, 50, 0, true},
    // Pointwise layers whose threads pack their own column blocks: a depth
    // that ends mid-quad, groups, a partial last block.
    {1, 10, 20, 30, 20, 1, 1, 1, 0, 1, 40, 0, true},
    {1, 12, 9, 20, 18, 1, 1, 1, 0, 3, 7, 0, true},
    // Row tails of the 12-row VNNI tile (out_c 12, 16, 20, 26: 12, 12 + 4,
    // 12 + 8, 24 + 4 rows), depths that end mid-quad (5 x 9 = 45, 11, 7 x 9),
    // stride 2 and padding.
    {1, 5, 9, 11, 12, 3, 2, 1, 1, 1, 131, 7, false},
    {1, 11, 6, 13, 16, 1, 1, 1, 0, 1, 255, 0, true},
    {1, 7, 10, 9, 20, 3, 1, 1, 1, 1, 0, 255, false},
    {2, 6, 13, 7, 26, 3, 2, 1, 2, 1, 64, 0, true},
    // The fused output step: odd channel counts against the 12-row tile and
    // column tails of 1, 17 and 31 past a 32-column tile (33, 49, 63
    // positions), per-channel int8 and uint8 filters, groups.
    {1, 13, 3, 11, 27, 1, 1, 1, 0, 1, 5, 0, true},
    {1, 3, 7, 7, 7, 3, 1, 1, 1, 1, 200, 0, true},
    {1, 21, 9, 7, 35, 1, 1, 1, 0, 1, 99, 31, false},
    {1, 10, 13, 13, 19, 3, 2, 1, 1, 1, 1, 0, true},
    {1, 12, 5, 5, 30, 3, 1, 1, 1, 3, 250, 128, false},
    // Stride-2 rows long enough for the im2col's 16-output step: 35 and 17
    // outputs, and 33 without padding, whose last tap reads the last byte
    // of its input row.
    {1, 3, 9, 70, 8, 3, 2, 1, 1, 1, 128, 0, true},
    {1, 3, 6, 34, 32, 3, 2, 1, 1, 1, 0, 255, false},
    {1, 2, 7, 67, 5, 3, 2, 1, 0, 1, 9, 0, true},
    // Splits chosen by scheduling the work as the pool would: 64 rows of
    // 14 x 14 in pieces of 32 (12 + 12 + 8 rows) for two threads, 70 rows
    // (72 with the padding), 28 x 28 and 56 x 56 in column blocks narrower
    // than an even share (192 and 800 columns for two threads), and a 3x3
    // convolution whose rows split.
    {1, 48, 14, 14, 64, 1, 1, 1, 0, 1, 9, 0, true},
    {1, 37, 14, 14, 70, 1, 1, 1, 0, 1, 201, 90, false},
    {1, 32, 28, 28, 192, 1, 1, 1, 0, 1, 128, 0, true},
    {1, 144, 56, 56, 24, 1, 1, 1, 0, 1, 60, 0, true},
    {1, 16, 14, 14, 64, 3, 1, 1, 1, 1, 3, 140, false},
};

TEST(Conv2dUint8Gemm, MatchesReferenceExactly) {
  const std::vector<const KernelTable*> tables = QuantizedTables();
  if (tables.empty()) GTEST_SKIP() << "no uint8 GEMM on this CPU";
  for (const KernelTable* table : tables) {
    std::mt19937 rng(7767517);
    int index = 0;
    for (const Case& c : kCases) {
      const OutputClamp& clamp = kClamps[index++ % kClampCount];
      SCOPED_TRACE(::testing::Message() << table->name << " in_c " << c.in_c << " out_c "
                                        << c.out_c << " k " << c.k << " group " << c.group
                                        << " clamp " << clamp.min << ".." << clamp.max);
      RunCase(*table, c, clamp, &rng);
    }
  }
}

// The vectorized output step against the scalar rule, over the whole int32
// range, multipliers from tiny to just below 1, and every tail length.
// Trials whose row has no other terms, so INT32_MIN itself can be tested.
bool RowTermFree(int trial) { return trial % 3 == 0; }

TEST(RequantizeRow, MatchesScalarRule) {
  std::mt19937 rng(7767517);
  std::uniform_int_distribution<int32_t> any_int(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<double> exponent(-33.0, -0.0001);
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->requantize_row == nullptr) continue;
    for (int trial = 0; trial < 400; ++trial) {
      const int64_t count = trial % 40;
      std::vector<int32_t> sums(count), columns(count);
      for (int64_t i = 0; i < count; ++i) {
        // Keep sums + columns + row term in int32, as the driver does.
        sums[i] = any_int(rng) >> (trial % 3 == 0 ? 0 : 2);
        columns[i] = trial % 3 == 0 ? 0 : any_int(rng) >> 2;
      }
      if (count > 0 && trial % 5 == 0 && RowTermFree(trial)) sums[0] = INT32_MIN;
      const int32_t row_term = trial % 3 == 0 ? 0 : any_int(rng) >> 2;
      QuantizedMultiplier m;
      ASSERT_TRUE(MakeQuantizedMultiplier(std::exp2(exponent(rng)), "test", &m).ok());
      if (m.multiplier == 0) continue;
      int lo = byte(rng), hi = byte(rng);
      if (lo > hi) std::swap(lo, hi);
      const OutputClamp clamp{byte(rng), lo, hi};
      std::vector<uint8_t> got(count + 1, 0xAB), expected(count);
      const RequantizeRow row = MakeRequantizeRow(
          sums.data(), trial % 3 == 0 ? nullptr : columns.data(), row_term, m, clamp, count,
          got.data());
      table->requantize_row(row);
      for (int64_t i = 0; i < count; ++i) {
        const int64_t x = int64_t{sums[i]} + row_term + (row.column_terms ? columns[i] : 0);
        ASSERT_EQ(got[i], RequantizeToUint8(static_cast<int32_t>(x), m, clamp))
            << table->name << " trial " << trial << " i " << i << " x " << x;
      }
      ASSERT_EQ(got[count], 0xAB) << "wrote past the row";
    }
  }
}

// The GEMM micro-kernel of every table on its own, against the plain
// product of the packed words in its format (int16 pairs, uint8 x int8 or
// uint8 x uint8 quads): row counts around each kernel's tile (4 to 28 rows),
// 32 to 96 columns, odd word counts, random and extreme bytes.
int32_t WordProduct(QuantGemmFormat format, uint32_t a, uint32_t b) {
  int32_t sum = 0;
  if (format == kQuantPairsInt16) {
    for (int i = 0; i < 2; ++i) {
      sum += static_cast<int16_t>(a >> (16 * i)) * static_cast<int16_t>(b >> (16 * i));
    }
    return sum;
  }
  for (int i = 0; i < 4; ++i) {
    const int32_t weight = format == kQuantQuadsUint8 ? static_cast<int8_t>(a >> (8 * i))
                                                      : static_cast<uint8_t>(a >> (8 * i));
    sum += weight * static_cast<uint8_t>(b >> (8 * i));
  }
  return sum;
}

TEST(QuantizedGemmKernel, MatchesPlainProduct) {
  const std::vector<const KernelTable*> tables = QuantizedTables();
  if (tables.empty()) GTEST_SKIP() << "no uint8 GEMM on this CPU";
  std::mt19937 rng(20240611);
  for (const KernelTable* table : tables) {
    const QuantGemmFormat format = table->quantized_format;
    for (int64_t rows = 4; rows <= 28; rows += 4) {
      for (int64_t groups : {1, 2, 7, 33}) {
        for (int64_t cols : {32, 64, 96}) {
          for (int extreme = 0; extreme < 2; ++extreme) {
            std::vector<int32_t> a(rows * groups), b(groups * cols);
            // Extreme: int16 -255 against 255 for the pairs; 0x80 or 0xFF
            // weight bytes against 0xFF inputs for the quads.
            const uint32_t a_word = format == kQuantPairsInt16
                                        ? 0xFF01FF01u
                                        : format == kQuantQuadsUint8 ? 0x80808080u : 0xFFFFFFFFu;
            const uint32_t b_word = format == kQuantPairsInt16 ? 0x00FF00FFu : 0xFFFFFFFFu;
            for (int32_t& v : a) v = static_cast<int32_t>(extreme ? a_word : rng());
            for (int32_t& v : b) v = static_cast<int32_t>(extreme ? b_word : rng());
            if (format == kQuantPairsInt16 && !extreme) {
              // Pairs hold values minus a zero point: within +-255.
              for (int32_t& v : a) v = static_cast<int32_t>(0x00FF00FFu & static_cast<uint32_t>(v)) - 0x00800080;
              for (int32_t& v : b) v = static_cast<int32_t>(0x00FF00FFu & static_cast<uint32_t>(v)) - 0x00800080;
            }
            std::vector<int32_t> got(rows * cols, 0x5A5A5A5A);
            table->quantized_gemm(a.data(), b.data(), rows, groups, cols, got.data());
            for (int64_t r = 0; r < rows; ++r) {
              for (int64_t col = 0; col < cols; ++col) {
                int32_t expected = 0;
                for (int64_t g = 0; g < groups; ++g) {
                  expected += WordProduct(format, static_cast<uint32_t>(a[r * groups + g]),
                                          static_cast<uint32_t>(b[g * cols + col]));
                }
                ASSERT_EQ(got[r * cols + col], expected)
                    << table->name << " rows " << rows << " groups " << groups << " cols "
                    << cols << " extreme " << extreme << " at " << r << "," << col;
              }
            }
          }
        }
      }
    }
  }
  const KernelTable* avx512 = KernelTableFor(KernelIsa::kAvx512);
  if (avx512 == nullptr || avx512->quantized_format != kQuantQuadsUint8) {
    std::printf("note: no AVX-512 VNNI on this CPU, the VNNI GEMM kernel was not run\n");
  }
}

// The fused GEMM and output step of every table that has one, against the
// plain product of the packed words followed by the scalar rule: row
// counts around the tile (4 to 28), valid rows and columns short of the
// call's (tails of 1 to 31 columns, whole column tiles past the valid
// ones), per-row multipliers and terms, column terms or none, plain and
// RELU-like clamps, rows whose values lie far outside the clamp; nothing
// outside the valid rows and columns is written.
TEST(QuantizedGemmRequantKernel, MatchesProductAndRule) {
  std::mt19937 rng(5151);
  // Terms and multipliers that keep most outputs inside the clamp, so that
  // an error of one in the total shows in the rounding.
  std::uniform_int_distribution<int32_t> term(-(1 << 20), 1 << 20);
  std::uniform_real_distribution<double> exponent(-17.0, -12.0);
  int checked = 0;
  for (const KernelTable* table : QuantizedTables()) {
    if (table->quantized_gemm_requant == nullptr) continue;
    const QuantGemmFormat format = table->quantized_format;
    for (int64_t rows = 4; rows <= 28; rows += 4) {
      for (int64_t groups : {1, 3, 17}) {
        for (int64_t cols : {32, 64, 96}) {
          for (int64_t short_cols : {0, 1, 15, 16, 17, 31, 33}) {
            if (short_cols >= cols) continue;
            const int64_t count = cols - short_cols;
            const int64_t valid_rows = std::max<int64_t>(1, rows - (short_cols % 4));
            std::vector<int32_t> a(rows * groups), b(groups * cols);
            for (int32_t& v : a) v = static_cast<int32_t>(rng());
            for (int32_t& v : b) v = static_cast<int32_t>(rng());
            if (format == kQuantPairsInt16) {
              for (int32_t& v : a) v = static_cast<int32_t>(0x00FF00FFu & static_cast<uint32_t>(v)) - 0x00800080;
              for (int32_t& v : b) v = static_cast<int32_t>(0x00FF00FFu & static_cast<uint32_t>(v)) - 0x00800080;
            }
            std::vector<int32_t> row_terms(rows), multipliers(rows), shifts(rows);
            std::vector<QuantizedMultiplier> scales(rows);
            for (int64_t r = 0; r < rows; ++r) {
              // Every fifth row far beyond the clamp both ways (past the
              // int16 range, where a kernel narrows with saturation).
              const double e = exponent(rng);
              ASSERT_TRUE(
                  MakeQuantizedMultiplier(std::exp2(r % 5 == 4 ? -3.0 : e), "test", &scales[r]).ok());
              if (scales[r].multiplier == 0) scales[r] = QuantizedMultiplier{1 << 30, 40};
              row_terms[r] = term(rng);
              multipliers[r] = scales[r].multiplier;
              shifts[r] = scales[r].right_shift;
            }
            std::vector<int32_t> column_terms(cols);
            for (int32_t& v : column_terms) v = term(rng);
            const bool with_columns = (rows + groups) % 2 == 0;
            const OutputClamp clamp = kClamps[(rows / 4 + cols / 32) % kClampCount];
            const int64_t stride = cols + 3;
            std::vector<uint8_t> out(rows * stride, 0xAB);
            RequantizeTile tile;
            tile.row_terms = row_terms.data();
            tile.multipliers = multipliers.data();
            tile.right_shifts = shifts.data();
            tile.column_terms = with_columns ? column_terms.data() : nullptr;
            tile.zero_point = clamp.zero_point;
            tile.lo = clamp.min;
            tile.hi = clamp.max;
            tile.valid_rows = valid_rows;
            tile.count = count;
            tile.out = out.data();
            tile.out_stride = stride;
            table->quantized_gemm_requant(a.data(), b.data(), rows, groups, cols, tile);
            for (int64_t r = 0; r < rows; ++r) {
              for (int64_t col = 0; col < stride; ++col) {
                const uint8_t got = out[r * stride + col];
                if (r >= valid_rows || col >= count) {
                  ASSERT_EQ(got, 0xAB) << table->name << " wrote row " << r << " col " << col;
                  continue;
                }
                int32_t sum = 0;
                for (int64_t g = 0; g < groups; ++g) {
                  sum += WordProduct(format, static_cast<uint32_t>(a[r * groups + g]),
                                     static_cast<uint32_t>(b[g * cols + col]));
                }
                const int32_t x = sum + row_terms[r] + (with_columns ? column_terms[col] : 0);
                ASSERT_EQ(got, RequantizeToUint8(x, scales[r], clamp))
                    << table->name << " rows " << rows << " groups " << groups << " cols " << cols
                    << " count " << count << " at " << r << "," << col;
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  const KernelTable* avx512 = KernelTableFor(KernelIsa::kAvx512);
  if (avx512 != nullptr && avx512->quantized_format == kQuantQuadsUint8) {
    EXPECT_GT(checked, 0) << "the VNNI table has no fused kernel";
  }
}

// Where the CPU has VNNI, the AVX-512 table uses it (so the test above ran
// both x86 formats).
TEST(Conv2dUint8Gemm, VnniChosenWhereAvailable) {
  const CpuFeatures features = DetectCpuFeatures();
  const KernelTable* avx512 = KernelTableFor(KernelIsa::kAvx512);
  if (avx512 == nullptr) GTEST_SKIP() << "no AVX-512";
  EXPECT_EQ(avx512->quantized_format,
            features.avx512_vnni ? kQuantQuadsUint8 : kQuantPairsInt16);
}

// Likewise the arm64 dot product.
TEST(Conv2dUint8Gemm, DotProductChosenWhereAvailable) {
  const CpuFeatures features = DetectCpuFeatures();
  const KernelTable* neon = KernelTableFor(KernelIsa::kNeon);
  if (neon == nullptr) GTEST_SKIP() << "no NEON";
  EXPECT_EQ(neon->quantized_format,
            features.neon_dotprod ? kQuantQuadsUint8Unsigned : kQuantPairsInt16);
}

// The extremes of the int32 sums: every input 255 against every weight at
// the end of its range, over a deep reduction.
TEST(Conv2dUint8Gemm, ExtremeValuesMatch) {
  for (const KernelTable* table : QuantizedTables()) {
    for (bool int8 : {false, true}) {
      ref::Conv2DParams p;
      p.batch = p.in_h = p.in_w = p.out_h = p.out_w = 1;
      p.kernel_h = p.kernel_w = 1;
      p.in_channels = 32000;
      p.out_channels = 2;
      std::vector<uint8_t> input(p.in_channels, 255), filter_u8(2 * p.in_channels);
      std::vector<int8_t> filter_i8(2 * p.in_channels);
      for (int64_t i = 0; i < p.in_channels; ++i) {
        filter_u8[i] = 255;
        filter_u8[p.in_channels + i] = 0;
        filter_i8[i] = 127;
        filter_i8[p.in_channels + i] = -128;
      }
      ref::quantized::ConvQuantization quant;
      quant.input_zero_point = 0;
      quant.filter_zero_point = int8 ? 0 : 0;
      QuantizedMultiplier m;
      ASSERT_TRUE(MakeQuantizedMultiplier(1.0 / (1 << 23), "test", &m).ok());
      quant.multipliers = {m};
      quant.output = OutputClamp{128, 0, 255};
      const void* filter = int8 ? static_cast<const void*>(filter_i8.data()) : filter_u8.data();
      std::unique_ptr<Conv2dUint8Gemm> fast = Conv2dUint8Gemm::Create(*table, p, quant, filter, int8);
      ASSERT_NE(fast, nullptr);
      uint8_t expected[2], got[2];
      if (int8) {
        ref::quantized::Conv2D(p, quant, input.data(), filter_i8.data(), nullptr, expected);
      } else {
        ref::quantized::Conv2D(p, quant, input.data(), filter_u8.data(), nullptr, expected);
      }
      fast->Run(input.data(), nullptr, got);
      EXPECT_EQ(got[0], expected[0]) << table->name << " int8 " << int8;
      EXPECT_EQ(got[1], expected[1]) << table->name << " int8 " << int8;
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
