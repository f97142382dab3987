// The fast uint8 Pooling (pooling_uint8_fast.h) against
// ref::quantized::Pooling, bit for bit: max and average, with and without
// count_include_pad, strides 1 to 3, dilation, padding wider than the
// kernel's reach, trailing padding (ceil mode), windows over no input,
// 1x1 and global windows, zero points 0 and 255, with 1, 2 and 3 threads;
// then max pooling again through each kernel table's row kernel
// (max_pool_uint8_row), over widths around its 32- and 64-byte steps.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/pooling_uint8_fast.h"
#include "mace/ops/ref/quantized/pooling.h"

namespace mace {
namespace ops {
namespace {

struct Case {
  int64_t batch, channels, in_h, in_w, kernel_h, kernel_w, stride_h, stride_w, dilation;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
  int32_t zero_point;
};

const Case kCases[] = {
    // b c  h   w   kh kw sh sw dil pt pl pb pr zp
    {1, 3, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 0},     // ResNet's stem pooling
    {1, 5, 7, 7, 7, 7, 1, 1, 1, 0, 0, 0, 0, 128},       // global
    {2, 3, 9, 11, 2, 2, 2, 2, 1, 0, 0, 1, 1, 255},      // ceil mode: trailing taps
    {1, 4, 6, 5, 3, 2, 1, 3, 1, 2, 1, 0, 2, 17},
    {1, 2, 8, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 200},       // dilation 2
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3},
    {1, 3, 4, 4, 3, 3, 3, 3, 1, 3, 3, 3, 3, 90},        // windows over padding only
    {1, 7, 13, 1, 5, 1, 2, 1, 1, 2, 0, 2, 0, 64},
    {1, 9, 13, 13, 13, 13, 1, 1, 1, 0, 0, 0, 0, 200},   // SqueezeNet's global pooling
    {2, 3, 20, 17, 20, 17, 1, 1, 1, 0, 0, 0, 0, 255},   // global, 340 values
    {1, 2, 3, 5, 3, 5, 1, 1, 1, 0, 0, 0, 0, 0},         // global, fewer than 16
};

// Max pooling shapes for the row kernels: SqueezeNet's 3x3 stride 2 ceil
// mode layers (111, 55, 27 wide), ShuffleNet's stem pooling, widths whose
// outputs end just before, on and after a 32-byte step, input rows of 32,
// 16 to 31 and fewer (the row reduction's vector tails), W = 1, kernels 2,
// 4 and 5 (an odd count of even taps at stride 2), padding before and after.
const Case kRowCases[] = {
    // b c  h   w   kh kw sh sw dil pt pl pb pr zp
    {1, 3, 111, 111, 3, 3, 2, 2, 1, 0, 0, 0, 0, 0},
    {1, 5, 55, 55, 3, 3, 2, 2, 1, 0, 0, 1, 1, 9},
    {1, 3, 27, 27, 3, 3, 2, 2, 1, 0, 0, 1, 1, 255},
    {1, 2, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 77},
    {2, 3, 5, 65, 3, 3, 2, 2, 1, 1, 1, 1, 1, 3},     // 33 outputs
    {1, 3, 4, 64, 2, 2, 2, 2, 1, 0, 0, 0, 0, 5},     // 32 outputs
    {1, 3, 4, 63, 3, 3, 2, 2, 1, 0, 0, 0, 0, 5},     // 31 outputs
    {1, 3, 6, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 128},   // 33 outputs, stride 1
    {1, 3, 6, 31, 2, 2, 1, 1, 1, 0, 0, 1, 1, 128},
    {1, 4, 7, 70, 5, 5, 2, 2, 1, 2, 2, 2, 2, 40},
    {1, 4, 7, 70, 4, 4, 1, 1, 1, 1, 2, 2, 1, 41},
    {1, 5, 9, 1, 3, 1, 2, 1, 1, 1, 0, 1, 0, 200},    // W = 1
    {1, 5, 9, 1, 3, 3, 1, 2, 1, 1, 1, 1, 1, 200},    // W = 1, padded across
    {1, 3, 7, 7, 7, 7, 1, 1, 1, 0, 0, 0, 0, 11},     // global
    {1, 2, 3, 200, 1, 9, 1, 2, 1, 0, 4, 0, 4, 12},
    {1, 2, 5, 32, 3, 3, 2, 2, 1, 0, 0, 1, 1, 13},    // input rows of 32, 16 and 15
    {1, 2, 5, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 14},
    {1, 2, 5, 15, 2, 2, 2, 2, 1, 0, 0, 1, 1, 15},
    // Runs of whole windows between padded rows, short rows whose stores
    // spill into the next rows (and not past the plane), stride 3 down.
    {1, 6, 15, 15, 3, 3, 2, 2, 1, 1, 1, 1, 1, 21},
    {2, 4, 10, 21, 3, 3, 1, 2, 1, 0, 1, 0, 1, 33},
    {1, 3, 20, 20, 3, 3, 3, 1, 1, 0, 0, 2, 0, 34},
    {3, 5, 9, 9, 3, 3, 2, 2, 1, 0, 0, 0, 0, 35},     // 4 x 4 planes
    // Around the 64-byte steps: padded lines of 63 to 66 bytes (one vector
    // or the line), 64 and 65 outputs at stride 2 (128 line bytes and
    // more), more taps than the register path keeps, rows past 128 bytes.
    {1, 2, 5, 129, 3, 3, 2, 2, 1, 0, 0, 0, 0, 16},   // 64 outputs
    {1, 2, 5, 131, 3, 3, 2, 2, 1, 0, 0, 0, 0, 17},   // 65 outputs
    {1, 2, 4, 64, 3, 3, 1, 1, 1, 0, 0, 0, 0, 18},    // line of 64
    {1, 2, 4, 63, 3, 3, 1, 1, 1, 1, 1, 1, 1, 19},    // padded line of 65
    {1, 2, 4, 62, 3, 3, 1, 1, 1, 1, 1, 1, 1, 20},    // padded line of 64
    {1, 2, 4, 65, 2, 2, 1, 1, 1, 0, 0, 0, 0, 22},    // 64 outputs, stride 1
    {1, 2, 5, 61, 3, 3, 2, 2, 1, 1, 1, 1, 1, 23},    // 31 outputs, padded line of 63
    {1, 2, 4, 40, 3, 9, 1, 1, 1, 0, 4, 0, 4, 24},    // 9 taps across
    {1, 2, 4, 30, 3, 3, 1, 2, 1, 1, 1, 1, 1, 25},
    {1, 3, 9, 200, 3, 3, 2, 2, 1, 1, 1, 1, 1, 26},   // 100 outputs
    {1, 3, 6, 150, 5, 5, 1, 1, 1, 2, 2, 2, 2, 27},   // 150 outputs, stride 1
    {1, 2, 5, 127, 3, 3, 2, 2, 1, 0, 0, 0, 0, 28},   // windows reach cell 127
    {1, 2, 4, 128, 2, 2, 2, 2, 1, 0, 0, 0, 0, 29},   // 64 outputs, reach 128
    {1, 2, 4, 80, 2, 8, 1, 2, 1, 0, 3, 0, 3, 30},    // 8 taps, padded, two vectors
    {2, 3, 7, 100, 3, 3, 1, 1, 1, 1, 1, 1, 1, 31},   // 100 outputs, stride 1
};

void RunCase(const Case& c, ref::PoolingType type, bool include_pad, std::mt19937* rng,
             MaxPoolUint8RowKernel max_row = nullptr) {
  ref::PoolingParams p;
  p.type = type;
  p.batch = c.batch;
  p.channels = c.channels;
  p.in_h = c.in_h;
  p.in_w = c.in_w;
  p.kernel_h = c.kernel_h;
  p.kernel_w = c.kernel_w;
  p.stride_h = c.stride_h;
  p.stride_w = c.stride_w;
  p.dilation_h = p.dilation_w = c.dilation;
  p.pad_top = c.pad_top;
  p.pad_left = c.pad_left;
  p.pad_bottom = c.pad_bottom;
  p.pad_right = c.pad_right;
  p.count_include_pad = include_pad;
  p.out_h = (c.in_h + c.pad_top + c.pad_bottom - (c.kernel_h - 1) * c.dilation - 1) / c.stride_h + 1;
  p.out_w =
      (c.in_w + c.pad_left + c.pad_right - (c.kernel_w - 1) * c.dilation - 1) / c.stride_w + 1;
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> input(c.batch * c.channels * c.in_h * c.in_w);
  for (uint8_t& v : input) v = static_cast<uint8_t>(byte(*rng));
  std::vector<uint8_t> expected(c.batch * c.channels * p.out_h * p.out_w);
  ref::quantized::Pooling(p, c.zero_point, input.data(), expected.data());
  const std::string mismatch =
      testing::FirstMismatch(expected, [&](ThreadPool* pool, uint8_t* out) {
        PoolingUint8Fast(p, c.zero_point, input.data(), out, pool, max_row);
      });
  EXPECT_EQ(mismatch, "");
}

TEST(PoolingUint8Fast, MatchesReferenceExactly) {
  std::mt19937 rng(20260);
  for (const Case& c : kCases) {
    for (ref::PoolingType type : {ref::PoolingType::MAX, ref::PoolingType::AVG}) {
      for (bool include_pad : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << "in " << c.in_h << "x" << c.in_w << " kernel " << c.kernel_h << "x"
                     << c.kernel_w << " stride " << c.stride_h << "," << c.stride_w << " type "
                     << static_cast<int>(type) << " include_pad " << include_pad);
        RunCase(c, type, include_pad, &rng);
      }
    }
  }
}

TEST(PoolingUint8Fast, MaxRowKernelsMatchReferenceExactly) {
  std::mt19937 rng(20261);
  int tested = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->max_pool_uint8_row == nullptr) continue;
    ++tested;
    for (const Case& c : kRowCases) {
      SCOPED_TRACE(::testing::Message()
                   << table->name << " in " << c.in_h << "x" << c.in_w << " kernel " << c.kernel_h
                   << "x" << c.kernel_w << " stride " << c.stride_h << "," << c.stride_w);
      RunCase(c, ref::PoolingType::MAX, false, &rng, table->max_pool_uint8_row);
    }
    // The cases of the driver's own paths (dilation, stride 3, windows over
    // padding only) still match with the row kernel given.
    for (const Case& c : kCases) {
      SCOPED_TRACE(::testing::Message() << table->name << " general case " << c.in_h << "x"
                                        << c.in_w);
      RunCase(c, ref::PoolingType::MAX, false, &rng, table->max_pool_uint8_row);
    }
  }
  if (tested == 0) GTEST_SKIP() << "no kernel table of this CPU has a uint8 max pooling row kernel";
}

}  // namespace
}  // namespace ops
}  // namespace mace
