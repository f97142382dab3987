// The fast 3x3 depthwise kernel against ref::DepthwiseConv2d around the
// vector widths (4 and 8) and at every padding/stride combination.
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::RandomFloats;

ref::DepthwiseConv2dParams Params(int64_t batch, int64_t channels, int64_t h, int64_t w,
                                  int64_t multiplier, int64_t stride_h, int64_t stride_w,
                                  int64_t pad_top, int64_t pad_left, int64_t pad_bottom,
                                  int64_t pad_right, ActivationType activation) {
  ref::DepthwiseConv2dParams p;
  p.batch = batch;
  p.channels = channels;
  p.in_h = h;
  p.in_w = w;
  p.multiplier = multiplier;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = stride_h;
  p.stride_w = stride_w;
  p.pad_top = pad_top;
  p.pad_left = pad_left;
  p.out_h = (h + pad_top + pad_bottom - 3) / stride_h + 1;
  p.out_w = (w + pad_left + pad_right - 3) / stride_w + 1;
  p.activation.type = activation;
  p.activation.max_limit = 6.f;
  p.activation.alpha = 0.2f;
  return p;
}

void Check(const ref::DepthwiseConv2dParams& p) {
  const std::vector<float> input = RandomFloats(p.batch * p.channels * p.in_h * p.in_w, 41);
  const std::vector<float> filter = RandomFloats(p.multiplier * p.channels * 9, 42);
  const std::vector<float> bias = RandomFloats(p.channels * p.multiplier, 43);
  const int64_t out_size = p.batch * p.channels * p.multiplier * p.out_h * p.out_w;
  std::vector<float> expected(out_size);
  ref::DepthwiseConv2d(p, input.data(), filter.data(), bias.data(), expected.data());
  for (const KernelTable* table : testing::TablesUnderTest()) {
    ASSERT_TRUE(DepthwiseConv3x3::Supports(*table, p));
    DepthwiseConv3x3 kernel(*table, p);
    for (auto& pool : testing::PoolsUnderTest()) {
      SCOPED_TRACE(::testing::Message()
                   << table->name << " threads " << NumThreads(pool.get()) << " " << p.in_h << "x"
                   << p.in_w << " stride " << p.stride_h << "," << p.stride_w << " pad "
                   << p.pad_top << "," << p.pad_left << " out " << p.out_h << "x" << p.out_w
                   << " multiplier " << p.multiplier);
      std::vector<float> output(out_size, std::nanf(""));
      kernel.Run(input.data(), filter.data(), bias.data(), output.data(), pool.get());
      ExpectNear(output, expected, 2e-5f, 2e-5f);
    }
  }
}

TEST(DepthwiseConv3x3Test, WidthsAroundVectorsStridesAndPads) {
  for (int64_t stride : {1, 2}) {
    for (int64_t w : {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 15, 16, 17, 18, 19, 20, 21, 33}) {
      for (int64_t pad : {0, 1}) {
        if (w + 2 * pad < 3) continue;
        Check(Params(1, 3, 5, w, 1, stride, stride, pad, pad, pad, pad, ActivationType::NOOP));
      }
    }
  }
}

TEST(DepthwiseConv3x3Test, AsymmetricPadsMixedStridesMultiplierBatch) {
  // SAME padding with an odd remainder puts the extra pixel bottom/right.
  Check(Params(1, 4, 8, 16, 1, 2, 2, 0, 0, 1, 1, ActivationType::RELU));
  Check(Params(2, 5, 9, 13, 2, 1, 2, 1, 0, 1, 2, ActivationType::RELUX));
  Check(Params(1, 3, 10, 12, 3, 2, 1, 2, 2, 2, 2, ActivationType::HARDSWISH));
  Check(Params(1, 2, 3, 3, 1, 1, 1, 0, 0, 0, 0, ActivationType::NOOP));
  Check(Params(1, 7, 6, 9, 1, 1, 1, 1, 1, 1, 1, ActivationType::LEAKYRELU));
  Check(Params(1, 7, 6, 9, 1, 2, 2, 1, 1, 1, 1, ActivationType::SIGMOID));
}

TEST(DepthwiseConv3x3Test, OpUsesTheRuntimePool) {
  const ref::DepthwiseConv2dParams p =
      Params(1, 6, 11, 19, 2, 2, 2, 1, 1, 1, 1, ActivationType::RELU);
  const std::vector<float> input = RandomFloats(6 * 11 * 19, 51);
  const std::vector<float> filter = RandomFloats(2 * 6 * 9, 52);
  const std::vector<float> bias = RandomFloats(12, 53);
  std::vector<float> expected(12 * p.out_h * p.out_w);
  ref::DepthwiseConv2d(p, input.data(), filter.data(), bias.data(), expected.data());
  for (int threads : {1, 2, 3}) {
    testing::TestCpuRuntime runtime(threads);
    testing::OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
    tester.WithRuntime(&runtime)
        .Input("input", {1, 6, 11, 19}, input)
        .Weight("filter", {2, 6, 3, 3}, filter)
        .Weight("bias", {12}, bias)
        .Output("output")
        .Args("strides", std::vector<int64_t>{2, 2})
        .Args("pads", std::vector<int64_t>{1, 1, 1, 1})
        .Arg("activation", "RELU");
    ASSERT_TRUE(tester.Run().ok());
    ExpectNear(tester.OutputData("output"), expected, 2e-5f, 2e-5f);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
