// Pooling on half tensors against the reference pooling of the same values
// as floats: max pooling exactly (the maximum of halves is a half), global
// average pooling within the rounding of a float sum and one rounding to
// half. Needs the fp16 table (ARMv8.2 FP16: qemu's default CPU).
#include "mace/ops/cpu/pooling_half.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

const KernelTable* Fp16Table() { return Fp16KernelTableFor(KernelIsa::kNeon); }

ref::PoolingParams Params(ref::PoolingType type, int64_t channels, int64_t h, int64_t w,
                          int64_t kernel, int64_t stride, int64_t pad, bool ceil_mode) {
  ref::PoolingParams p;
  p.type = type;
  p.batch = 1;
  p.channels = channels;
  p.in_h = h;
  p.in_w = w;
  p.kernel_h = p.kernel_w = kernel;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  const auto out = [&](int64_t size) {
    const int64_t span = size + 2 * pad - kernel;
    return (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  };
  p.out_h = out(h);
  p.out_w = out(w);
  return p;
}

// Values to halves and back through the table.
std::vector<uint16_t> ToHalves(const std::vector<float>& values) {
  std::vector<uint16_t> halves(values.size());
  Fp16Table()->fp16_from_float(values.data(), values.size(), halves.data());
  return halves;
}
std::vector<float> FromHalves(const std::vector<uint16_t>& halves) {
  std::vector<float> values(halves.size());
  Fp16Table()->fp16_to_float(halves.data(), halves.size(), values.data());
  return values;
}

// `table` (default: the fp16 one) runs the kernel.
void CheckMax(const ref::PoolingParams& p, uint32_t seed, const KernelTable* table = nullptr) {
  if (table == nullptr) table = Fp16Table();
  ASSERT_TRUE(HalfPooling::Supports(*table, p));
  std::vector<float> input =
      testing::RandomFloats(p.batch * p.channels * p.in_h * p.in_w, seed, -300.f, 300.f);
  // Signed zeros, infinities and tiny values among them.
  const float specials[] = {0.f, -0.f, INFINITY, -INFINITY, 1e-7f, -1e-7f, 65504.f, -65504.f};
  for (size_t i = 0; i < input.size(); i += 7) input[i] = specials[(i / 7) % 8];
  const std::vector<uint16_t> half_input = ToHalves(input);
  const std::vector<float> rounded = FromHalves(half_input);
  std::vector<float> want(p.batch * p.channels * p.out_h * p.out_w);
  ref::Pooling(p, rounded.data(), want.data());
  HalfPooling kernel(*table, p);
  for (auto& pool : testing::PoolsUnderTest()) {
    SCOPED_TRACE(::testing::Message() << p.channels << "x" << p.in_h << "x" << p.in_w << " k "
                                      << p.kernel_h << " s " << p.stride_h << " pad "
                                      << p.pad_top << " out " << p.out_h << "x" << p.out_w
                                      << " threads " << NumThreads(pool.get()));
    std::vector<float> scratch(kernel.ScratchBytes(NumThreads(pool.get())) / 4 + 1);
    std::vector<uint16_t> output(want.size() + 1, 0x7e00);  // NaN
    kernel.Run(half_input.data(), output.data(), pool.get(), scratch.data());
    EXPECT_EQ(output.back(), 0x7e00) << "wrote past the end";
    output.pop_back();
    const std::vector<float> got = FromHalves(output);
    for (size_t i = 0; i < want.size(); ++i) {
      // -0 and +0 compare equal: either may be the maximum of both.
      ASSERT_EQ(got[i], want[i]) << "output " << i;
    }
  }
}

TEST(HalfPoolingTest, MaxMatchesTheReference) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  using ref::PoolingType;
  uint32_t seed = 40;
  CheckMax(Params(PoolingType::MAX, 5, 23, 23, 3, 2, 0, true), seed += 3);   // SqueezeNet's
  CheckMax(Params(PoolingType::MAX, 4, 22, 22, 3, 2, 0, true), seed += 3);   // ceil: past the end
  CheckMax(Params(PoolingType::MAX, 3, 17, 17, 3, 2, 1, false), seed += 3);  // ResNet-18's
  CheckMax(Params(PoolingType::MAX, 3, 7, 9, 3, 1, 1, false), seed += 3);    // stride 1, w 9
  CheckMax(Params(PoolingType::MAX, 7, 6, 5, 2, 2, 0, false), seed += 3);    // 2x2, outputs < 8
  CheckMax(Params(PoolingType::MAX, 2, 9, 40, 2, 1, 0, true), seed += 3);    // several vectors
  CheckMax(Params(PoolingType::MAX, 1, 5, 33, 5, 2, 2, false), seed += 3);   // a wider window
  CheckMax(Params(PoolingType::MAX, 3, 1, 1, 1, 1, 0, false), seed += 3);    // one pixel
}

void CheckMax3x3Stride2(const KernelTable* table) {
  using ref::PoolingType;
  uint32_t seed = 140;
  const auto params = [](int64_t channels, int64_t h, int64_t w, int64_t pad, bool ceil_mode) {
    ref::PoolingParams p = Params(PoolingType::MAX, channels, h, h, 3, 2, pad, ceil_mode);
    p.in_w = w;
    p.out_w = Params(PoolingType::MAX, channels, w, w, 3, 2, pad, ceil_mode).out_w;
    return p;
  };
  CheckMax(params(3, 9, 111, 0, true), seed += 3, table);   // SqueezeNet's: last row copied
  CheckMax(params(6, 27, 27, 0, true), seed += 3, table);   // 13 wide: vector, overlap
  CheckMax(params(4, 11, 20, 0, false), seed += 3, table);  // every row in place
  CheckMax(params(3, 10, 22, 0, true), seed += 3, table);   // ceil: window past the row
  CheckMax(params(2, 12, 45, 1, false), seed += 3, table);  // ResNet-18's padding, 23 wide
  CheckMax(params(2, 10, 12, 2, false), seed += 3, table);  // padding 2
  CheckMax(params(5, 9, 9, 0, false), seed += 3, table);    // 4 wide: scalar
  CheckMax(params(7, 8, 13, 1, true), seed += 3, table);    // scalar, padded, ceil
  ref::PoolingParams batch = params(3, 13, 17, 1, false);
  batch.batch = 2;
  CheckMax(batch, seed += 3, table);
}

// 3x3 windows at stride 2 hold each input row's column triples for the next
// output row: rows read in place (with and without the last row's copy),
// copied (padding, ceil mode), vector tails, scalar rows, thread ranges
// that start inside a plane. With half `fmax` (the fp16 table, rows of 8
// or more) and with int16 keys (a table without half sums, and narrower
// rows).
TEST(HalfPoolingTest, Max3x3Stride2) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  KernelTable keys_only = *Fp16Table();
  keys_only.fp16_add = nullptr;
  for (const KernelTable* table : {Fp16Table(), static_cast<const KernelTable*>(&keys_only)}) {
    SCOPED_TRACE(table == &keys_only ? "int16 keys" : "half fmax");
    CheckMax3x3Stride2(table);
  }
}

TEST(HalfPoolingTest, GlobalAverage) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 70;
  for (int64_t size : {1, 7, 13, 17}) {
    ref::PoolingParams p = Params(ref::PoolingType::AVG, 11, size, size, size, 1, 0, false);
    p.batch = 2;
    ASSERT_TRUE(HalfPooling::Supports(*Fp16Table(), p));
    const std::vector<uint16_t> half_input =
        ToHalves(testing::RandomFloats(p.batch * p.channels * size * size, seed += 3, -8.f, 8.f));
    const std::vector<float> rounded = FromHalves(half_input);
    HalfPooling kernel(*Fp16Table(), p);
    for (auto& pool : testing::PoolsUnderTest()) {
      std::vector<float> scratch(kernel.ScratchBytes(NumThreads(pool.get())) / 4 + 1);
      std::vector<uint16_t> output(p.batch * p.channels + 1, 0x7e00);
      kernel.Run(half_input.data(), output.data(), pool.get(), scratch.data());
      EXPECT_EQ(output.back(), 0x7e00) << "wrote past the end";
      output.pop_back();
      const std::vector<float> got = FromHalves(output);
      for (int64_t plane = 0; plane < p.batch * p.channels; ++plane) {
        double sum = 0, magnitude = 0;
        for (int64_t i = 0; i < size * size; ++i) {
          sum += rounded[plane * size * size + i];
          magnitude += std::fabs(rounded[plane * size * size + i]);
        }
        const double mean = sum / (size * size);
        // Float sums (u = 2^-24 per add), then one rounding to half.
        const double bound = size * size * std::ldexp(magnitude, -24) / (size * size) +
                             std::ldexp(std::fabs(mean), -11) + 1e-7;
        EXPECT_NEAR(got[plane], mean, bound) << "size " << size << " plane " << plane;
      }
    }
  }
}

TEST(HalfPoolingTest, CoversOnlyWindowsOnTheInput) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  using ref::PoolingType;
  // A window of padding alone (pad as wide as the kernel), dilation, a
  // non-global average and stride 3 across take the float kernels.
  EXPECT_FALSE(HalfPooling::Supports(*Fp16Table(), Params(PoolingType::MAX, 1, 8, 8, 2, 2, 2, 0)));
  ref::PoolingParams dilated = Params(PoolingType::MAX, 1, 9, 9, 3, 1, 0, false);
  dilated.dilation_w = 2;
  EXPECT_FALSE(HalfPooling::Supports(*Fp16Table(), dilated));
  EXPECT_FALSE(HalfPooling::Supports(*Fp16Table(), Params(PoolingType::AVG, 1, 8, 8, 3, 2, 0, 0)));
  EXPECT_FALSE(HalfPooling::Supports(*Fp16Table(), Params(PoolingType::MAX, 1, 9, 9, 3, 3, 0, 0)));
}

}  // namespace
}  // namespace ops
}  // namespace mace
