// The fused stem and pooling against the reference convolution followed by
// the reference pooling: every table with blocked kernels, a padded window
// (ResNet-18's 7x7 stride-2 stem, read from a padded copy) and an unpadded
// one (SqueezeNet 1.1's 3x3 stride-2 stem, read in place), partial channel
// blocks, max and average pooling with padding, ceil mode (a last window
// that sticks out) and stride 1, more than one image, bands of one pooling
// row up to the whole map (the rows a band shares with the one above
// carried over), and 1 to 3 threads (with several, bands cut shorter so
// that their count is a multiple of the threads).
#include "mace/ops/cpu/conv_2d_pool_blocked.h"

#include <cmath>
#include <memory>
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
  int64_t batch, in_channels, out_channels, h, w;
  int64_t kernel, stride, pad;                           // the convolution
  int64_t pool_kernel, pool_stride, pool_pad, pool_end;  // pool_end: pad after (ceil mode)
  ref::PoolingType type;
  ActivationType activation;
};

const Case kCases[] = {
    // ResNet-18's stem and max pooling, cut short: 15 x 65 convolution rows.
    {1, 3, 64, 30, 130, 7, 2, 3, 3, 2, 1, 1, ref::PoolingType::MAX, ActivationType::RELU},
    // SqueezeNet 1.1's, whose pooling's last window sticks out (ceil mode).
    {1, 3, 64, 41, 133, 3, 2, 0, 3, 2, 0, 1, ref::PoolingType::MAX, ActivationType::RELU},
    // Partial blocks, two images, average pooling with padding.
    {2, 3, 33, 20, 140, 3, 2, 0, 3, 2, 1, 1, ref::PoolingType::AVG, ActivationType::NOOP},
    // A 2x2 stride-1 pooling (bands overlap by one row) of a 5x5 window.
    {1, 4, 20, 17, 70, 5, 1, 0, 2, 1, 0, 0, ref::PoolingType::MAX, ActivationType::RELUX},
};

std::vector<float> Unpack(const std::vector<float>& blocked, int64_t batch, int64_t channels,
                          int64_t plane, int block) {
  std::vector<float> plain(batch * channels * plane);
  UnpackChannelBlocks(blocked.data(), batch, channels, plane, block, plain.data(), nullptr);
  return plain;
}

TEST(BlockedConvPoolTest, MatchesConvolutionThenPooling) {
  uint32_t seed = 1700;
  int checked = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->channel_block == 0 || table->blocked_window == nullptr) continue;
    const int block = table->channel_block;
    for (const Case& c : kCases) {
      ref::Conv2DParams conv;
      conv.batch = c.batch;
      conv.in_channels = c.in_channels;
      conv.out_channels = c.out_channels;
      conv.in_h = c.h;
      conv.in_w = c.w;
      conv.kernel_h = conv.kernel_w = c.kernel;
      conv.stride_h = conv.stride_w = c.stride;
      conv.pad_top = conv.pad_left = c.pad;
      conv.out_h = (c.h + 2 * c.pad - c.kernel) / c.stride + 1;
      conv.out_w = (c.w + 2 * c.pad - c.kernel) / c.stride + 1;
      conv.activation.type = c.activation;
      conv.activation.max_limit = 6.f;
      ref::PoolingParams pooling;
      pooling.type = c.type;
      pooling.batch = c.batch;
      pooling.channels = c.out_channels;
      pooling.in_h = conv.out_h;
      pooling.in_w = conv.out_w;
      pooling.kernel_h = pooling.kernel_w = c.pool_kernel;
      pooling.stride_h = pooling.stride_w = c.pool_stride;
      pooling.pad_top = pooling.pad_left = c.pool_pad;
      pooling.pad_bottom = pooling.pad_right = c.pool_end;
      pooling.out_h = (conv.out_h + c.pool_pad + c.pool_end - c.pool_kernel) / c.pool_stride + 1;
      pooling.out_w = (conv.out_w + c.pool_pad + c.pool_end - c.pool_kernel) / c.pool_stride + 1;
      seed += 3;
      const int64_t in_plane = c.h * c.w, mid_plane = conv.out_h * conv.out_w;
      const int64_t out_plane = pooling.out_h * pooling.out_w;
      const std::vector<float> input = RandomFloats(c.batch * c.in_channels * in_plane, seed);
      const std::vector<float> filter =
          RandomFloats(c.out_channels * c.in_channels * c.kernel * c.kernel, seed + 1);
      const std::vector<float> bias = RandomFloats(c.out_channels, seed + 2);
      std::vector<float> middle(c.batch * c.out_channels * mid_plane);
      ref::Conv2D(conv, input.data(), filter.data(), bias.data(), middle.data());
      std::vector<float> expected(c.batch * c.out_channels * out_plane);
      ref::Pooling(pooling, middle.data(), expected.data());
      const int64_t row_bytes = BlockCount(c.out_channels, block) * block * conv.out_w * 4;
      // Bands of one pooling row, of a few, and the whole map in one.
      for (int64_t band_rows : {int64_t{1}, int64_t{5}, int64_t{9}, conv.out_h}) {
        BlockedConvPool fused(
            *table,
            std::make_unique<BlockedConv2d>(*table, conv, filter.data(), bias.data(), false),
            pooling, band_rows * row_bytes);
        ASSERT_TRUE(BlockedConvPool::Supports(
            *table, BlockedConv2d(*table, conv, filter.data(), bias.data(), false), pooling));
        for (const auto& pool : testing::PoolsUnderTest()) {
          SCOPED_TRACE(::testing::Message()
                       << table->name << " seed " << seed << " c" << c.in_channels << "->"
                       << c.out_channels << " " << c.h << "x" << c.w << " k" << c.kernel
                       << " band rows " << band_rows << " threads " << NumThreads(pool.get()));
          std::vector<float> scratch(fused.ScratchBytes(NumThreads(pool.get())) / sizeof(float),
                                     std::nanf(""));
          std::vector<float> out(c.batch * BlockCount(c.out_channels, block) * block * out_plane,
                                 std::nanf(""));
          fused.Run(input.data(), out.data(), pool.get(), scratch.data());
          ExpectNear(Unpack(out, c.batch, c.out_channels, out_plane, block), expected, 1e-4f,
                     1e-4f);
          ++checked;
        }
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "no blocked kernels on this CPU";
}

TEST(BlockedConvPoolTest, SupportsOnlyARowsStemAndItsPooling) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->channel_block == 0 || table->blocked_window == nullptr) continue;
    ref::Conv2DParams conv;
    conv.batch = 1;
    conv.in_channels = 3;
    conv.out_channels = 16;
    conv.in_h = 20;
    conv.in_w = 140;
    conv.kernel_h = conv.kernel_w = 3;
    conv.stride_h = conv.stride_w = 2;
    conv.out_h = 9;
    conv.out_w = 69;
    const std::vector<float> filter(16 * 3 * 9, 0.5f);
    ref::PoolingParams pooling;
    pooling.batch = 1;
    pooling.channels = 16;
    pooling.in_h = 9;
    pooling.in_w = 69;
    pooling.kernel_h = pooling.kernel_w = 3;
    pooling.stride_h = pooling.stride_w = 2;
    pooling.out_h = 4;
    pooling.out_w = 34;
    const BlockedConv2d stem(*table, conv, filter.data(), nullptr, false);
    EXPECT_TRUE(BlockedConvPool::Supports(*table, stem, pooling));
    ref::PoolingParams other = pooling;
    other.channels = 15;
    EXPECT_FALSE(BlockedConvPool::Supports(*table, stem, other));
    other = pooling;
    other.in_w = 68;
    EXPECT_FALSE(BlockedConvPool::Supports(*table, stem, other));
    other = pooling;
    other.type = ref::PoolingType::LP;
    EXPECT_FALSE(BlockedConvPool::Supports(*table, stem, other));
    // A blocked input, and a narrow map (taken across rows), do not run by
    // rows.
    EXPECT_FALSE(BlockedConvPool::Supports(
        *table, BlockedConv2d(*table, conv, filter.data(), nullptr, true), pooling));
    ref::Conv2DParams narrow = conv;
    narrow.in_w = 40;
    narrow.out_w = 19;
    other = pooling;
    other.in_w = 19;
    other.out_w = 9;
    EXPECT_FALSE(BlockedConvPool::Supports(
        *table, BlockedConv2d(*table, narrow, filter.data(), nullptr, false), other));
    // Whether fusing pays: outputs of 2 MiB and more.
    EXPECT_FALSE(ConvPoolingFusionPays(conv, table->channel_block));
    ref::Conv2DParams stem_112 = conv;
    stem_112.out_channels = 64;
    stem_112.out_h = stem_112.out_w = 112;
    EXPECT_TRUE(ConvPoolingFusionPays(stem_112, table->channel_block));
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
