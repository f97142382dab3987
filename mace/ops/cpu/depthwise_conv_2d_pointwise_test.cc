// The fused depthwise and 1x1 layers against the reference depthwise layer
// followed by the reference 1x1 layer: every table with blocked kernels,
// channel counts around the blocks (partial last blocks on both sides),
// stride 1 and 2, padding, 1x1 reductions split in parts, more than one
// image, bands that do not divide the rows, inputs read last band first,
// and 1 to 3 threads; and the same with the 1x1 expansion before the
// depthwise layer fused too.
#include "mace/ops/cpu/depthwise_conv_2d_pointwise.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::RandomFloats;

struct Case {
  int64_t batch, channels, out_channels, h, w, stride, pad;
  ActivationType dw_activation, pw_activation;
};

const Case kCases[] = {
    // MobileNet v1's conv_2 and conv_3, and conv_6 and conv_7, cut short.
    {1, 32, 64, 40, 112, 1, 1, ActivationType::RELUX, ActivationType::RELUX},
    {1, 128, 128, 21, 56, 1, 1, ActivationType::RELUX, ActivationType::RELUX},
    // Odd channel counts: partial blocks in and out.
    {1, 17, 33, 9, 7, 1, 1, ActivationType::RELU, ActivationType::NOOP},
    {2, 5, 3, 6, 5, 1, 1, ActivationType::NOOP, ActivationType::RELUX},
    // Stride 2, with padding on both sides and on the right only.
    {1, 24, 40, 17, 30, 2, 1, ActivationType::RELUX, ActivationType::RELU},
    // MobileNet v2's 112 -> 56 block, cut short: bands of a few rows.
    {1, 96, 24, 40, 112, 2, 1, ActivationType::RELUX, ActivationType::NOOP},
    {1, 16, 16, 12, 12, 2, 0, ActivationType::HARDSWISH, ActivationType::HARDSWISH},
    // More than 128 input channels: the 1x1 reduction in parts.
    {1, 300, 20, 5, 6, 1, 1, ActivationType::RELU, ActivationType::RELU},
    // An input of 2 MiB or more, read last band first, at stride 2 with
    // odd channel counts: each band's 1x1 tiles bring the input rows of
    // the band before it toward L2.
    {1, 33, 40, 126, 127, 2, 1, ActivationType::RELUX, ActivationType::RELUX},
    // A 1x1 map and one row.
    {2, 20, 36, 1, 1, 1, 1, ActivationType::NOOP, ActivationType::NOOP},
    {1, 8, 24, 1, 50, 1, 1, ActivationType::RELUX, ActivationType::RELUX},
    // Rows 7 and 14 wide (the narrow-row kernels) and more than one image.
    {3, 48, 64, 7, 7, 1, 1, ActivationType::RELUX, ActivationType::RELUX},
    {1, 64, 32, 14, 14, 1, 1, ActivationType::RELUX, ActivationType::RELUX},
};

std::vector<float> Pack(const std::vector<float>& plain, int64_t batch, int64_t channels,
                        int64_t plane, int block) {
  std::vector<float> blocked(batch * BlockCount(channels, block) * block * plane, std::nanf(""));
  PackChannelBlocks(plain.data(), batch, channels, plane, block, blocked.data(), nullptr);
  return blocked;
}

// Checks case `c` on `table` against the reference layers, with the 1x1
// expansion from c.channels / 2 + 1 channels before the depthwise layer
// when `expand`; returns how many thread counts it checked.
int CheckCase(const KernelTable& table, const Case& c, bool expand, uint32_t seed) {
  const int block = table.channel_block;
  ref::DepthwiseConv2dParams dw;
  dw.batch = c.batch;
  dw.channels = c.channels;
  dw.in_h = c.h;
  dw.in_w = c.w;
  dw.kernel_h = dw.kernel_w = 3;
  dw.stride_h = dw.stride_w = c.stride;
  dw.pad_top = dw.pad_left = c.pad;
  // Padding `pad` on the left and top, 1 on the right and bottom.
  dw.out_h = (c.h + c.pad + 1 - 3) / c.stride + 1;
  dw.out_w = (c.w + c.pad + 1 - 3) / c.stride + 1;
  dw.activation.type = c.dw_activation;
  dw.activation.max_limit = 6.f;
  ref::Conv2DParams pw;
  pw.batch = c.batch;
  pw.in_channels = c.channels;
  pw.out_channels = c.out_channels;
  pw.in_h = pw.out_h = dw.out_h;
  pw.in_w = pw.out_w = dw.out_w;
  pw.kernel_h = pw.kernel_w = 1;
  pw.activation.type = c.pw_activation;
  pw.activation.max_limit = 6.f;
  // The expansion: the pointwise layer's activation, the depthwise input's
  // map.
  ref::Conv2DParams ex = pw;
  ex.in_channels = c.channels / 2 + 1;
  ex.out_channels = c.channels;
  ex.in_h = ex.out_h = c.h;
  ex.in_w = ex.out_w = c.w;
  EXPECT_TRUE(BlockedDepthwisePointwise::Supports(table, dw, pw));
  EXPECT_TRUE(!expand || BlockedDepthwisePointwise::SupportsExpand(table, ex, dw));
  const int64_t in_channels = expand ? ex.in_channels : c.channels;
  const int64_t in_plane = c.h * c.w, out_plane = dw.out_h * dw.out_w;
  const std::vector<float> input = RandomFloats(c.batch * in_channels * in_plane, seed);
  const std::vector<float> dw_filter = RandomFloats(c.channels * 9, seed + 1);
  const std::vector<float> dw_bias = RandomFloats(c.channels, seed + 2);
  const std::vector<float> pw_filter = RandomFloats(c.out_channels * c.channels, seed + 3);
  const std::vector<float> pw_bias = RandomFloats(c.out_channels, seed + 4);
  const std::vector<float> ex_filter = RandomFloats(c.channels * ex.in_channels, seed + 5);
  const std::vector<float> ex_bias = RandomFloats(c.channels, seed + 6);
  std::vector<float> expanded;
  if (expand) {
    expanded.resize(c.batch * c.channels * in_plane);
    ref::Conv2D(ex, input.data(), ex_filter.data(), ex_bias.data(), expanded.data());
  }
  std::vector<float> middle(c.batch * c.channels * out_plane);
  ref::DepthwiseConv2d(dw, expand ? expanded.data() : input.data(), dw_filter.data(),
                       dw_bias.data(), middle.data());
  std::vector<float> expected(c.batch * c.out_channels * out_plane);
  ref::Conv2D(pw, middle.data(), pw_filter.data(), pw_bias.data(), expected.data());
  BlockedDepthwisePointwise fused(table, dw, dw_filter.data(), dw_bias.data(), pw,
                                  pw_filter.data(), pw_bias.data(), nullptr,
                                  expand ? &ex : nullptr, ex_filter.data(), ex_bias.data());
  const std::vector<float> blocked_input = Pack(input, c.batch, in_channels, in_plane, block);
  int checked = 0;
  for (const auto& pool : testing::PoolsUnderTest()) {
    SCOPED_TRACE(::testing::Message()
                 << table.name << " seed " << seed << (expand ? " expanded from " : " ")
                 << (expand ? std::to_string(ex.in_channels) : "") << " c" << c.channels << "->"
                 << c.out_channels << " " << c.h << "x" << c.w << " s" << c.stride << " pad "
                 << c.pad << " threads " << NumThreads(pool.get()));
    std::vector<float> scratch(fused.ScratchBytes(NumThreads(pool.get())) / sizeof(float),
                               std::nanf(""));
    std::vector<float> out(c.batch * BlockCount(c.out_channels, block) * block * out_plane,
                           std::nanf(""));
    fused.Run(blocked_input.data(), out.data(), pool.get(), scratch.data());
    std::vector<float> got(expected.size());
    UnpackChannelBlocks(out.data(), c.batch, c.out_channels, out_plane, block, got.data(),
                        nullptr);
    ExpectNear(got, expected, 1e-4f, 1e-4f);
    ++checked;
  }
  return checked;
}

TEST(BlockedDepthwisePointwiseTest, MatchesDepthwiseThenPointwise) {
  uint32_t seed = 1300;
  int checked = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->channel_block == 0) continue;
    for (const Case& c : kCases) checked += CheckCase(*table, c, false, seed += 4);
  }
  if (checked == 0) GTEST_SKIP() << "no blocked kernels on this CPU";
}

// The whole inverted residual block: bands that keep the expanded rows the
// band above computed, at stride 1 and 2, expansions from odd channel
// counts and from more than 128 (the reduction in parts).
TEST(BlockedDepthwisePointwiseTest, MatchesExpandThenDepthwiseThenPointwise) {
  uint32_t seed = 2300;
  int checked = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->channel_block == 0) continue;
    for (const Case& c : kCases) checked += CheckCase(*table, c, true, seed += 8);
  }
  if (checked == 0) GTEST_SKIP() << "no blocked kernels on this CPU";
}

TEST(BlockedDepthwisePointwiseTest, SupportsOnlyAFollowingPointwiseLayer) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->channel_block == 0) continue;
    ref::DepthwiseConv2dParams dw;
    dw.batch = 1;
    dw.channels = 16;
    dw.in_h = dw.in_w = dw.out_h = dw.out_w = 8;
    dw.kernel_h = dw.kernel_w = 3;
    dw.pad_top = dw.pad_left = 1;
    ref::Conv2DParams pw;
    pw.batch = 1;
    pw.in_channels = 16;
    pw.out_channels = 8;
    pw.in_h = pw.in_w = pw.out_h = pw.out_w = 8;
    pw.kernel_h = pw.kernel_w = 1;
    EXPECT_TRUE(BlockedDepthwisePointwise::Supports(*table, dw, pw));
    ref::Conv2DParams other = pw;
    other.in_channels = 15;
    EXPECT_FALSE(BlockedDepthwisePointwise::Supports(*table, dw, other));
    other = pw;
    other.kernel_h = other.kernel_w = 3;
    other.pad_top = other.pad_left = 1;
    EXPECT_FALSE(BlockedDepthwisePointwise::Supports(*table, dw, other));
    other = pw;
    other.activation.type = ActivationType::SIGMOID;
    EXPECT_FALSE(BlockedDepthwisePointwise::Supports(*table, dw, other));
    ref::Conv2DParams expand = pw;
    expand.in_channels = 5;
    expand.out_channels = 16;
    EXPECT_TRUE(BlockedDepthwisePointwise::SupportsExpand(*table, expand, dw));
    expand.out_channels = 15;
    EXPECT_FALSE(BlockedDepthwisePointwise::SupportsExpand(*table, expand, dw));
    expand.out_channels = 16;
    expand.stride_h = expand.stride_w = 2;
    expand.in_h = expand.in_w = 16;
    EXPECT_FALSE(BlockedDepthwisePointwise::SupportsExpand(*table, expand, dw));
    ref::DepthwiseConv2dParams multiplied = dw;
    multiplied.multiplier = 2;
    EXPECT_FALSE(BlockedDepthwisePointwise::Supports(*table, multiplied, pw));
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
