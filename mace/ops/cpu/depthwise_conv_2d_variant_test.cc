// The chooser of DepthwiseConv2d's CPU kernels
// (cpu/depthwise_conv_2d_variant.h) picks the variant its order says, on
// every table with blocked kernels: blocked with and without the 1x1 it
// absorbed, the fast 3x3 kernel, and the reference for a window it has no
// fast kernel for or an engine without a kernel family. The kernels'
// results are their own tests'.
#include "mace/ops/cpu/depthwise_conv_2d_variant.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"
#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::RandomFloats;

ref::DepthwiseConv2dParams Depthwise(int64_t channels, int64_t size, int64_t kernel,
                                     int64_t stride) {
  ref::DepthwiseConv2dParams p;
  p.batch = 1;
  p.channels = channels;
  p.in_h = p.in_w = size;
  p.kernel_h = p.kernel_w = kernel;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = kernel / 2;
  p.out_h = p.out_w = (size + 2 * (kernel / 2) - kernel) / stride + 1;
  return p;
}

DepthwiseConv2dVariantKind Chosen(const DepthwiseConv2dChoice& choice) {
  const std::unique_ptr<DepthwiseConv2dVariant> variant = ChooseDepthwiseConv2dVariant(choice);
  EXPECT_NE(variant, nullptr);
  return variant != nullptr ? variant->kind() : DepthwiseConv2dVariantKind::kReference;
}

TEST(DepthwiseConv2dVariantTest, BlockedPairBlockedAndFast) {
  int checked = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    SCOPED_TRACE(table->name);
    // MobileNet v2's 56x56 depthwise layer and its 144 -> 24 projection.
    const ref::DepthwiseConv2dParams depthwise = Depthwise(144, 56, 3, 1);
    if (table->channel_block == 0 || !BlockedDepthwise::Supports(*table, depthwise)) continue;
    const std::vector<float> filter = RandomFloats(144 * 9, 3);
    const std::vector<float> bias = RandomFloats(144, 4);
    DepthwiseConv2dChoice choice;
    choice.table = table;
    choice.params = depthwise;
    choice.filter = filter.data();
    choice.bias = bias.data();
    if (DepthwiseConv3x3::Supports(*table, depthwise)) {
      EXPECT_EQ(Chosen(choice), DepthwiseConv2dVariantKind::kFast);
    }
    choice.blocked = true;
    EXPECT_EQ(Chosen(choice), DepthwiseConv2dVariantKind::kBlocked);
    ref::Conv2DParams pointwise;
    pointwise.batch = 1;
    pointwise.in_channels = 144;
    pointwise.out_channels = 24;
    pointwise.in_h = pointwise.in_w = pointwise.out_h = pointwise.out_w = 56;
    pointwise.kernel_h = pointwise.kernel_w = 1;
    const std::vector<float> pointwise_filter = RandomFloats(24 * 144, 5);
    if (!BlockedDepthwisePointwise::Supports(*table, depthwise, pointwise)) continue;
    choice.pointwise = &pointwise;
    choice.pointwise_filter = pointwise_filter.data();
    EXPECT_EQ(Chosen(choice), DepthwiseConv2dVariantKind::kBlockedPointwise);
    // Plain, the absorbed 1x1 is not the chooser's to take.
    choice.blocked = false;
    EXPECT_NE(Chosen(choice), DepthwiseConv2dVariantKind::kBlockedPointwise);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no blocked depthwise kernels on this CPU";
}

TEST(DepthwiseConv2dVariantTest, Reference) {
  DepthwiseConv2dChoice choice;
  choice.params = Depthwise(32, 28, 3, 1);
  EXPECT_EQ(Chosen(choice), DepthwiseConv2dVariantKind::kReference);
  // A 5x5 window has no fast kernel.
  choice.params = Depthwise(32, 28, 5, 1);
  for (const KernelTable* table : testing::TablesUnderTest()) {
    choice.table = table;
    EXPECT_EQ(Chosen(choice), DepthwiseConv3x3::Supports(*table, choice.params)
                                  ? DepthwiseConv2dVariantKind::kFast
                                  : DepthwiseConv2dVariantKind::kReference);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
