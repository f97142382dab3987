// Max pooling with the Indices output: the CPU kernel against
// ref::MaxPoolingWithIndices over window sizes 1 to 4, strides 1 to 3,
// dilations 1 and 2, no, asymmetric and wide padding (windows of padding
// only), ceil-mode sizes, both storage orders, ties and thread counts;
// hand-worked ONNX cases; and the op with its two outputs.
#include <cmath>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/pooling_indices.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::RandomFloats;

int64_t OutputSize(int64_t size, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                   int64_t pad_end, bool ceil_mode) {
  const int64_t span = size + pad_begin + pad_end - ((kernel - 1) * dilation + 1);
  if (!ceil_mode) return span / stride + 1;
  int64_t out = (span + stride - 1) / stride + 1;
  if ((out - 1) * stride >= size + pad_begin) --out;
  return out;
}

struct Case {
  int64_t batch = 1, channels = 1, h = 1, w = 1;
  int64_t kernel_h = 2, kernel_w = 2, stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool ceil_mode = false;
};

ref::PoolingParams Params(const Case& c) {
  ref::PoolingParams p;
  p.type = ref::PoolingType::MAX;
  p.batch = c.batch;
  p.channels = c.channels;
  p.in_h = c.h;
  p.in_w = c.w;
  p.kernel_h = c.kernel_h;
  p.kernel_w = c.kernel_w;
  p.stride_h = c.stride_h;
  p.stride_w = c.stride_w;
  p.dilation_h = c.dilation_h;
  p.dilation_w = c.dilation_w;
  p.pad_top = c.pad_top;
  p.pad_left = c.pad_left;
  p.pad_bottom = c.pad_bottom;
  p.pad_right = c.pad_right;
  p.out_h = OutputSize(c.h, c.kernel_h, c.stride_h, c.dilation_h, c.pad_top, c.pad_bottom,
                       c.ceil_mode);
  p.out_w = OutputSize(c.w, c.kernel_w, c.stride_w, c.dilation_w, c.pad_left, c.pad_right,
                       c.ceil_mode);
  return p;
}

// Values on a coarse grid make equal maxima in most windows, so the
// first-wins rule is exercised.
std::vector<float> Input(const ref::PoolingParams& p, uint32_t seed, bool coarse) {
  std::vector<float> values = RandomFloats(p.batch * p.channels * p.in_h * p.in_w, seed);
  if (coarse) {
    for (float& v : values) v = std::round(v * 2.f);
  }
  return values;
}

void Check(const ref::PoolingParams& p, uint32_t seed, bool coarse) {
  ASSERT_GE(p.out_h, 1);
  ASSERT_GE(p.out_w, 1);
  const std::vector<float> input = Input(p, seed, coarse);
  const int64_t count = p.batch * p.channels * p.out_h * p.out_w;
  // The values alone must be what plain max pooling gives.
  std::vector<float> plain(count);
  ref::Pooling(p, input.data(), plain.data());
  for (bool column_major : {false, true}) {
    std::vector<float> expected(count);
    std::vector<int32_t> expected_indices(count);
    ref::MaxPoolingWithIndices(p, column_major, input.data(), expected.data(),
                               expected_indices.data());
    ASSERT_EQ(expected, plain);
    const MaxPoolingIndicesKernel kernel(p, column_major);
    for (const auto& pool : testing::PoolsUnderTest()) {
      SCOPED_TRACE(::testing::Message()
                   << "threads " << NumThreads(pool.get()) << " column_major " << column_major
                   << " " << p.batch << "x" << p.channels << "x" << p.in_h << "x" << p.in_w
                   << " window " << p.kernel_h << "x" << p.kernel_w << " stride " << p.stride_h
                   << "," << p.stride_w << " dilation " << p.dilation_h << "," << p.dilation_w
                   << " pads " << p.pad_top << "," << p.pad_left << "," << p.pad_bottom << ","
                   << p.pad_right << " out " << p.out_h << "x" << p.out_w);
      std::vector<float> output(count, std::nanf(""));
      std::vector<int32_t> indices(count, 12345);
      kernel.Run(input.data(), output.data(), indices.data(), pool.get());
      EXPECT_EQ(output, expected);
      EXPECT_EQ(indices, expected_indices);
    }
  }
}

TEST(MaxPoolingIndicesTest, EveryWindowStrideDilationAndPadding) {
  int index = 0;
  for (int64_t kernel = 1; kernel <= 4; ++kernel) {
    for (int64_t stride = 1; stride <= 3; ++stride) {
      for (int64_t dilation = 1; dilation <= 2; ++dilation) {
        for (int64_t pad = 0; pad <= 2; ++pad) {
          for (int64_t h : {1, 2, 5}) {
            for (int64_t w : {1, 3, 7, 10}) {
              Case c;
              c.kernel_h = kernel;
              c.kernel_w = kernel == 4 ? 3 : kernel + 1;
              c.stride_h = stride;
              c.stride_w = stride == 3 ? 1 : stride + 1;
              c.dilation_h = dilation;
              c.dilation_w = 3 - dilation;
              c.h = h;
              c.w = w;
              c.pad_top = pad;
              c.pad_left = pad == 2 ? 0 : pad;
              c.pad_bottom = pad == 1 ? 0 : pad;
              c.pad_right = pad;
              ++index;
              c.ceil_mode = index % 2 == 1;
              c.batch = 1 + index % 3 / 2;
              c.channels = 1 + index % 4;
              const ref::PoolingParams p = Params(c);
              if (p.out_h < 1 || p.out_w < 1) continue;
              Check(p, 100 + index, index % 3 == 0);
            }
          }
        }
      }
    }
  }
}

// Pads wider than the window: outputs whose window is padding only give 0
// and index -1.
TEST(MaxPoolingIndicesTest, WindowsOfOnlyPadding) {
  Case c;
  c.batch = 2;
  c.channels = 3;
  c.h = 3;
  c.w = 4;
  c.kernel_h = c.kernel_w = 2;
  c.pad_top = c.pad_left = 3;
  c.pad_bottom = c.pad_right = 4;
  const ref::PoolingParams p = Params(c);
  Check(p, 7, false);
  std::vector<float> input = Input(p, 7, false);
  std::vector<float> output(p.batch * p.channels * p.out_h * p.out_w);
  std::vector<int32_t> indices(output.size());
  MaxPoolingIndicesKernel(p, false).Run(input.data(), output.data(), indices.data(), nullptr);
  EXPECT_EQ(output[0], 0.f);
  EXPECT_EQ(indices[0], -1);
}

TEST(MaxPoolingIndicesTest, TallPlanesSplitAcrossThreads) {
  Case c;
  c.batch = 2;
  c.channels = 5;
  c.h = 37;
  c.w = 29;
  c.kernel_h = c.kernel_w = 3;
  c.stride_h = c.stride_w = 2;
  c.pad_top = c.pad_left = c.pad_bottom = c.pad_right = 1;
  Check(Params(c), 11, false);
  Check(Params(c), 12, true);
}

// ONNX's test_maxpool_with_argmax_2d_precomputed_pads and _strides, worked
// by hand: 5x5 of 1..25.
TEST(MaxPoolingIndicesTest, OnnxExamples) {
  std::vector<float> input(25);
  for (int i = 0; i < 25; ++i) input[i] = static_cast<float>(i + 1);
  Case pads;
  pads.h = pads.w = 5;
  pads.kernel_h = pads.kernel_w = 5;
  pads.pad_top = pads.pad_left = pads.pad_bottom = pads.pad_right = 2;
  ref::PoolingParams p = Params(pads);
  std::vector<float> output(25);
  std::vector<int32_t> indices(25);
  MaxPoolingIndicesKernel(p, false).Run(input.data(), output.data(), indices.data(), nullptr);
  EXPECT_EQ(output, (std::vector<float>{13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25,
                                        25, 25, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25}));
  EXPECT_EQ(indices, (std::vector<int32_t>{12, 13, 14, 14, 14, 17, 18, 19, 19, 19, 22, 23, 24,
                                           24, 24, 22, 23, 24, 24, 24, 22, 23, 24, 24, 24}));
  Case strides;
  strides.h = strides.w = 5;
  strides.stride_h = strides.stride_w = 2;
  p = Params(strides);
  output.assign(4, 0.f);
  indices.assign(4, 0);
  MaxPoolingIndicesKernel(p, true).Run(input.data(), output.data(), indices.data(), nullptr);
  EXPECT_EQ(output, (std::vector<float>{7, 9, 17, 19}));
  // Column-major: (h, w) lies at w * 5 + h.
  EXPECT_EQ(indices, (std::vector<int32_t>{6, 16, 8, 18}));
}

// A NaN met first stays the maximum (a later value replaces it only when
// greater); a NaN met later is passed over.
TEST(MaxPoolingIndicesTest, NaNFollowsTheFirstWinsRule) {
  Case c;
  c.h = 1;
  c.w = 4;
  c.kernel_h = 1;
  c.kernel_w = 2;
  c.stride_w = 2;
  const ref::PoolingParams p = Params(c);
  const std::vector<float> input = {std::nanf(""), 5.f, 1.f, std::nanf("")};
  std::vector<float> output(2);
  std::vector<int32_t> indices(2);
  MaxPoolingIndicesKernel(p, false).Run(input.data(), output.data(), indices.data(), nullptr);
  EXPECT_TRUE(std::isnan(output[0]));
  EXPECT_EQ(indices[0], 0);
  EXPECT_EQ(output[1], 1.f);
  EXPECT_EQ(indices[1], 2);
}

testing::OpTester& MaxPoolOp(testing::OpTester* tester, const std::vector<int64_t>& shape,
                             const std::vector<float>& input, int type = 2) {
  return tester->Input("x", shape, input)
      .Output("y")
      .Output("i", DT_INT32)
      .Arg("pooling_type", type)
      .Args("kernels", std::vector<int64_t>{3, 2})
      .Args("strides", std::vector<int64_t>{2, 1})
      .Args("pads", std::vector<int64_t>{1, 0, 1, 1})
      .Arg("ceil_mode", 1);
}

TEST(MaxPoolingIndicesTest, OpGivesValuesAndIndices) {
  const std::vector<int64_t> shape = {2, 3, 6, 5};
  const std::vector<float> input = RandomFloats(2 * 3 * 6 * 5, 21);
  for (int order : {0, 1}) {
    for (int threads : {0, 2}) {
      SCOPED_TRACE(::testing::Message() << "storage_order " << order << " threads " << threads);
      std::unique_ptr<testing::TestCpuRuntime> runtime;
      if (threads > 0) runtime = std::make_unique<testing::TestCpuRuntime>(threads);
      testing::OpTester tester("Pooling", RegisterPooling);
      MaxPoolOp(&tester, shape, input).WithRuntime(runtime.get()).Arg("storage_order", order);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      const std::vector<int64_t> out_shape = tester.OutputShape("y");
      ASSERT_EQ(out_shape, (std::vector<int64_t>{2, 3, 4, 5}));
      ASSERT_EQ(tester.OutputShape("i"), out_shape);
      ref::PoolingParams p;
      p.batch = 2;
      p.channels = 3;
      p.in_h = 6;
      p.in_w = 5;
      p.out_h = 4;
      p.out_w = 5;
      p.kernel_h = 3;
      p.kernel_w = 2;
      p.stride_h = 2;
      p.pad_top = 1;
      p.pad_bottom = 1;
      p.pad_right = 1;
      std::vector<float> expected(2 * 3 * 4 * 5);
      std::vector<int32_t> expected_indices(expected.size());
      ref::MaxPoolingWithIndices(p, order == 1, input.data(), expected.data(),
                                 expected_indices.data());
      EXPECT_EQ(tester.OutputData("y"), expected);
      EXPECT_EQ(tester.OutputInts("i"), expected_indices);
    }
  }
}

TEST(MaxPoolingIndicesTest, OnlyMaxHasIndices) {
  testing::OpTester tester("Pooling", RegisterPooling);
  MaxPoolOp(&tester, {1, 1, 4, 4}, RandomFloats(16, 3), 1);
  const MaceStatus status = tester.Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("only MAX pooling"), std::string::npos)
      << status.information();
}

TEST(MaxPoolingIndicesTest, IndicesMustBeDeclaredInt32) {
  testing::OpTester tester("Pooling", RegisterPooling);
  tester.Input("x", {1, 1, 4, 4}, RandomFloats(16, 4))
      .Output("y")
      .Output("i")
      .Arg("pooling_type", 2)
      .Args("kernels", std::vector<int64_t>{2, 2});
  EXPECT_FALSE(tester.Run().ok());
}

}  // namespace
}  // namespace ops
}  // namespace mace
