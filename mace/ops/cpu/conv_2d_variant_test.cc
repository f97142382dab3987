// The chooser of Conv2D's CPU kernels (cpu/conv_2d_variant.h) picks the
// variant its order says for representative shapes, on every table with
// blocked kernels: a 3x3 stride-2 stem with the pooling it absorbed (and
// without), a 1x1 expansion with the depthwise and 1x1 pair it absorbed, a
// 1x1 blocked and plain, a 3x3 stride-1 convolution the converter allowed
// Winograd for, a filter computed at run time, a grouped convolution, and
// the reference where the engine has no kernel family. The kernels' results
// are their own tests'.
#include "mace/ops/cpu/conv_2d_variant.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/conv_2d_pool_blocked.h"
#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::RandomFloats;

ref::Conv2DParams Conv(int64_t in_channels, int64_t out_channels, int64_t size, int64_t kernel,
                       int64_t stride, int64_t pad, int64_t group = 1) {
  ref::Conv2DParams p;
  p.batch = 1;
  p.in_channels = in_channels;
  p.out_channels = out_channels;
  p.in_h = p.in_w = size;
  p.kernel_h = p.kernel_w = kernel;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = pad;
  p.out_h = p.out_w = (size + 2 * pad - kernel) / stride + 1;
  p.group = group;
  return p;
}

int64_t FilterSize(const ref::Conv2DParams& p) {
  return p.out_channels * (p.in_channels / p.group) * p.kernel_h * p.kernel_w;
}

// A choice for `params` with a constant filter and bias (kept alive by
// `weights`), plain unless `blocked`.
Conv2dChoice Choice(const KernelTable* table, const ref::Conv2DParams& params, bool blocked,
                    bool blocked_input, std::vector<std::vector<float>>* weights) {
  weights->push_back(RandomFloats(FilterSize(params), 5));
  weights->push_back(RandomFloats(params.out_channels, 6));
  Conv2dChoice choice;
  choice.table = table;
  choice.params = params;
  choice.filter = (*weights)[weights->size() - 2].data();
  choice.filter_size = FilterSize(params);
  choice.bias = weights->back().data();
  choice.blocked = blocked;
  choice.blocked_input = blocked_input;
  return choice;
}

Conv2dVariantKind Chosen(const Conv2dChoice& choice) {
  const std::unique_ptr<Conv2dVariant> variant = ChooseConv2dVariant(choice);
  EXPECT_NE(variant, nullptr);
  return variant != nullptr ? variant->kind() : Conv2dVariantKind::kReference;
}

std::vector<const KernelTable*> BlockedTables() {
  std::vector<const KernelTable*> tables;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->channel_block > 0 && table->blocked_conv != nullptr) tables.push_back(table);
  }
  return tables;
}

TEST(Conv2dVariantTest, StemWithAndWithoutItsPooling) {
  int fused = 0;
  for (const KernelTable* table : BlockedTables()) {
    SCOPED_TRACE(table->name);
    std::vector<std::vector<float>> weights;
    // A 3x3 stride-2 stem (SqueezeNet 1.1's) on a plain input.
    const ref::Conv2DParams stem = Conv(3, 64, 225, 3, 2, 0);
    Conv2dChoice choice = Choice(table, stem, true, false, &weights);
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kBlockedDirect);
    ref::PoolingParams pooling;
    pooling.batch = 1;
    pooling.channels = 64;
    pooling.in_h = pooling.in_w = stem.out_h;
    pooling.kernel_h = pooling.kernel_w = 3;
    pooling.stride_h = pooling.stride_w = 2;
    pooling.out_h = pooling.out_w = (stem.out_h - 3) / 2 + 1;
    if (table->blocked_window == nullptr ||
        !BlockedConvPool::Supports(*table, BlockedConv2d(*table, stem, choice.filter, nullptr, false),
                                   pooling)) {
      continue;
    }
    choice.pooling = &pooling;
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kBlockedConvPool);
    // Plain, the absorbed reader is not the chooser's to take.
    choice.blocked = false;
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kFast);
    ++fused;
  }
  if (fused == 0) GTEST_SKIP() << "no blocked stem and pooling on this CPU";
}

TEST(Conv2dVariantTest, PointwiseBlockedPlainAndExpanded) {
  int fused = 0;
  for (const KernelTable* table : BlockedTables()) {
    SCOPED_TRACE(table->name);
    std::vector<std::vector<float>> weights;
    // MobileNet v2's 16 -> 96 expansion on 112x112.
    const ref::Conv2DParams expand = Conv(16, 96, 112, 1, 1, 0);
    Conv2dChoice choice = Choice(table, expand, true, true, &weights);
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kBlockedDirect);
    choice.blocked = false;
    choice.blocked_input = false;
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kFast);
    // The depthwise (3x3, stride 1) and 1x1 (96 -> 24) pair reading it.
    Conv2dExpandedPair pair;
    pair.depthwise.batch = 1;
    pair.depthwise.channels = 96;
    pair.depthwise.in_h = pair.depthwise.in_w = 112;
    pair.depthwise.out_h = pair.depthwise.out_w = 112;
    pair.depthwise.kernel_h = pair.depthwise.kernel_w = 3;
    pair.depthwise.pad_top = pair.depthwise.pad_left = 1;
    pair.pointwise = Conv(96, 24, 112, 1, 1, 0);
    const std::vector<float> depthwise_filter = RandomFloats(96 * 9, 7);
    const std::vector<float> pointwise_filter = RandomFloats(24 * 96, 8);
    pair.depthwise_filter = depthwise_filter.data();
    pair.pointwise_filter = pointwise_filter.data();
    if (!BlockedDepthwisePointwise::Supports(*table, pair.depthwise, pair.pointwise) ||
        !BlockedDepthwisePointwise::SupportsExpand(*table, expand, pair.depthwise)) {
      continue;
    }
    choice.blocked = true;
    choice.blocked_input = true;
    choice.pair = &pair;
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kBlockedDepthwisePointwise);
    ++fused;
  }
  if (fused == 0) GTEST_SKIP() << "no blocked depthwise and 1x1 pair on this CPU";
}

TEST(Conv2dVariantTest, WinogradEligible) {
  int checked = 0;
  for (const KernelTable* table : BlockedTables()) {
    SCOPED_TRACE(table->name);
    std::vector<std::vector<float>> weights;
    // A 3x3 stride-1 convolution of ResNet-18's first stage.
    const ref::Conv2DParams conv = Conv(64, 64, 56, 3, 1, 1);
    Conv2dChoice choice = Choice(table, conv, true, true, &weights);
    choice.winograd = 4;
    // Without the tile the op asks for, a blocked run is direct.
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kBlockedDirect);
    choice.winograd_tile = Conv2dBlockedWinogradTile(table, conv, choice.winograd);
    if (choice.winograd_tile == 0) continue;
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kBlockedWinograd);
    choice.blocked = false;
    choice.winograd_tile = 0;
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kFast);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no blocked Winograd on this CPU";
}

TEST(Conv2dVariantTest, NoTileWithoutWinogradOrTable) {
  const ref::Conv2DParams conv = Conv(64, 64, 56, 3, 1, 1);
  for (const KernelTable* table : BlockedTables()) {
    EXPECT_EQ(Conv2dBlockedWinogradTile(table, conv, 0), 0);
  }
  EXPECT_EQ(Conv2dBlockedWinogradTile(nullptr, conv, 4), 0);
}

TEST(Conv2dVariantTest, ComputedFilterGroupedAndReference) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    SCOPED_TRACE(table->name);
    std::vector<std::vector<float>> weights;
    // A filter computed at run time runs the fast kernel built on it.
    Conv2dChoice choice = Choice(table, Conv(32, 64, 28, 1, 1, 0), false, false, &weights);
    choice.filter = nullptr;
    EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kFastComputedFilter);
    // A grouped convolution runs the fast kernel that takes it, if any,
    // else the reference.
    const ref::Conv2DParams grouped = Conv(16, 32, 20, 3, 1, 1, 4);
    choice = Choice(table, grouped, false, false, &weights);
    const bool fast = CreateConv2dKernel(*table, grouped, choice.filter, 0) != nullptr;
    EXPECT_EQ(Chosen(choice), fast ? Conv2dVariantKind::kFast : Conv2dVariantKind::kReference);
  }
  // No kernel family: the reference, for any shape, constant filter or not.
  std::vector<std::vector<float>> weights;
  Conv2dChoice choice = Choice(nullptr, Conv(32, 64, 28, 1, 1, 0), false, false, &weights);
  EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kReference);
  choice.filter = nullptr;
  EXPECT_EQ(Chosen(choice), Conv2dVariantKind::kReference);
  EXPECT_STREQ(Conv2dVariantName(Conv2dVariantKind::kReference), "reference");
}

}  // namespace
}  // namespace ops
}  // namespace mace
