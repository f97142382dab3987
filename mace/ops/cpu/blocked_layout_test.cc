// The channel-blocked kernels against the reference ones: every table with
// blocked kernels, channel counts around the block widths (4, 8, 16) and the
// tile widths (1 to 3 output blocks, 3 to 8 positions), reductions split in
// parts, plain and blocked inputs, 1x1 maps and maps narrower than the window, stride 2, dilation,
// asymmetric padding, every activation, and 1 to 3 threads. Outputs are
// compared after unpacking, so padding lanes may hold anything.
#include "mace/ops/cpu/blocked_layout.h"

#include <cmath>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/conv_2d_blocked.h"
#include "mace/ops/cpu/conv_2d_blocked_winograd.h"
#include "mace/ops/cpu/conv_2d_winograd.h"
#include "mace/ops/cpu/depthwise_conv_2d_blocked.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/pooling_blocked.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::RandomFloats;

std::vector<const KernelTable*> BlockedTables() {
  std::vector<const KernelTable*> tables;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->channel_block > 0) tables.push_back(table);
  }
  return tables;
}

// A blocked buffer of `channels` x `plane` per image, with NaN in the
// padding lanes: a kernel that reads them into a real channel fails.
std::vector<float> Pack(const std::vector<float>& plain, int64_t batch, int64_t channels,
                        int64_t plane, int block) {
  std::vector<float> blocked(batch * BlockCount(channels, block) * block * plane);
  PackChannelBlocks(plain.data(), batch, channels, plane, block, blocked.data(), nullptr);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = channels; c < BlockCount(channels, block) * block; ++c) {
      for (int64_t p = 0; p < plane; ++p) {
        blocked[((n * BlockCount(channels, block) + c / block) * plane + p) * block + c % block] =
            std::nanf("");
      }
    }
  }
  return blocked;
}

std::vector<float> Unpack(const std::vector<float>& blocked, int64_t batch, int64_t channels,
                          int64_t plane, int block) {
  std::vector<float> plain(batch * channels * plane);
  UnpackChannelBlocks(blocked.data(), batch, channels, plane, block, plain.data(), nullptr);
  return plain;
}

int64_t OutSize(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                int64_t pad_end) {
  return (in + pad_begin + pad_end - (kernel - 1) * dilation - 1) / stride + 1;
}

struct Shape {
  int64_t batch, in_channels, out_channels, h, w, kernel_h, kernel_w, stride, dilation;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
};

const Shape kConvShapes[] = {
    // 1x1 over whole planes: channel counts around the blocks and tiles.
    {1, 16, 48, 13, 13, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 5, 7, 3, 5, 1, 1, 1, 1, 0, 0, 0, 0},
    {2, 17, 33, 7, 7, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 64, 100, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 24, 144, 9, 11, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 3, 12, 1, 50, 1, 1, 1, 1, 0, 0, 0, 0},
    // Four output blocks on AVX-512 (all full, and the last padded): one
    // group of the window tiles' width.
    {1, 24, 64, 10, 13, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 19, 57, 6, 9, 1, 1, 1, 1, 0, 0, 0, 0},
    // Maps of at least 128 positions, where AVX-512 runs a 1x1 in the
    // window tiles' groups of four blocks: groups of 4 and 3, of 4 over a
    // small map with a two-part reduction (in chunks of 72 and 71 positions
    // at one thread), and of 4 over chunks of a map larger than 16x16, each
    // with an overlapped last tile.
    {1, 37, 100, 14, 14, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 150, 250, 11, 13, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 40, 120, 17, 19, 1, 1, 1, 1, 0, 0, 0, 0},
    // Reductions split in parts of 128 channels, with tails of every kind.
    {1, 300, 40, 5, 7, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 261, 20, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 130, 50, 7, 7, 1, 1, 1, 1, 0, 0, 0, 0},
    // A single output channel (one block, all but one lane padding), with a
    // reduction tail, and a 3x3 one over a single input channel.
    {1, 150, 1, 4, 5, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 1, 1, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1},
    // Small maps with enough output blocks that each group runs the whole
    // map (positions in tiles one shorter than full ones where that wastes
    // less), prefetching the next part and the next group's weights, the
    // last group narrower than the rest.
    {1, 260, 200, 7, 7, 1, 1, 1, 1, 0, 0, 0, 0},
    {2, 140, 420, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0},
    // The same for 3x3 windows across rows of a narrow map, at strides 1
    // and 2: groups of output blocks of unequal sizes over the whole map.
    {1, 20, 260, 6, 7, 3, 3, 1, 1, 1, 1, 1, 1},
    {1, 33, 300, 13, 11, 3, 3, 2, 1, 1, 1, 1, 1},
    // 1x1 at stride 2, and with padding: row by row.
    {1, 32, 40, 9, 9, 1, 1, 2, 1, 0, 0, 0, 0},
    {1, 8, 8, 4, 6, 1, 1, 1, 1, 1, 1, 1, 1},
    // A stem: 3 channels, 3x3 stride 2, and 7x7 stride 2 pad 3.
    {1, 3, 32, 17, 19, 3, 3, 2, 1, 1, 1, 1, 1},
    {1, 3, 20, 23, 21, 7, 7, 2, 1, 3, 3, 3, 3},
    // 3x3 stride 1 with SAME padding, narrow and 1-wide maps.
    {1, 13, 29, 6, 7, 3, 3, 1, 1, 1, 1, 1, 1},
    {2, 16, 16, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1},
    {1, 9, 10, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1},
    // Asymmetric padding, dilation, non-square kernels.
    {1, 10, 18, 12, 10, 3, 3, 2, 1, 0, 0, 1, 1},
    {1, 6, 20, 11, 12, 3, 3, 1, 2, 2, 2, 2, 2},
    {1, 7, 9, 8, 9, 1, 5, 1, 1, 0, 2, 0, 2},
    {1, 8, 33, 10, 6, 5, 3, 2, 1, 2, 0, 1, 1},
    // Window reductions in parts (whole blocks on a blocked input, as many
    // channels as fit on a plain one), with channels left after the last
    // whole block: across rows, row by row, at stride 2, and a 5x5 kernel.
    {1, 150, 40, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1},
    {1, 70, 20, 6, 30, 3, 3, 2, 1, 1, 1, 1, 1},
    {1, 41, 24, 3, 70, 3, 3, 1, 1, 1, 1, 1, 1},
    {1, 37, 18, 6, 6, 5, 5, 1, 1, 2, 2, 2, 2},
    // Windows on maps narrower than 64 run across rows (all of the above);
    // wider ones row by row.
    {1, 5, 9, 4, 70, 3, 3, 1, 1, 1, 1, 1, 1},
    {1, 6, 10, 3, 140, 1, 1, 2, 1, 0, 0, 0, 0},
    {2, 17, 20, 5, 131, 3, 3, 2, 1, 1, 1, 1, 1},
    // Padded plain inputs on wide maps (stems) are padded band by band in
    // each task when bands overlap little: a 3x3 stride-2 stem, two groups
    // of output blocks over the same band, asymmetric padding, and a 1x3
    // window with two rows per band and a short last band. Taller windows
    // are padded whole first: a 7x7 stride-2 stem with a batch of two, a
    // 3x3 at stride 1, and a dilated one.
    {1, 3, 32, 13, 150, 3, 3, 2, 1, 1, 1, 1, 1},
    {1, 4, 100, 11, 130, 3, 3, 2, 1, 1, 1, 1, 1},
    {1, 3, 24, 10, 140, 3, 3, 2, 1, 0, 0, 1, 1},
    {1, 3, 20, 5, 64, 1, 3, 1, 1, 0, 1, 0, 1},
    {2, 3, 20, 9, 131, 7, 7, 2, 1, 3, 3, 3, 3},
    {1, 4, 100, 11, 64, 3, 3, 1, 1, 1, 1, 1, 1},
    {1, 5, 12, 9, 70, 3, 3, 1, 2, 2, 2, 2, 2},
    // Band-padded plain inputs whose bands inside the input read their
    // inner columns in place and only the edges from padded strips: a 3x3
    // stride-2 stem padded on the top and left only (no right strip), on
    // the bottom and right only (no left strip, the first band inside),
    // wider padding on every side with a batch of two, a 1x3 stride-1
    // window in bands of two rows, a dilated 1x3 at stride 2, and an odd
    // width.
    {1, 3, 32, 12, 160, 3, 3, 2, 1, 1, 1, 0, 0},
    {1, 3, 20, 11, 160, 3, 3, 2, 1, 0, 0, 1, 1},
    {2, 5, 40, 13, 150, 3, 3, 2, 1, 2, 3, 2, 2},
    {1, 3, 20, 6, 64, 1, 3, 1, 1, 0, 1, 0, 1},
    {1, 3, 24, 11, 150, 1, 3, 2, 2, 0, 2, 0, 2},
    {1, 3, 16, 9, 229, 3, 3, 2, 1, 1, 1, 1, 1},
    // Maps whose chunks of positions are made a multiple of the threads,
    // each thread's even share cut into its chunks: 225 positions (5
    // chunks at one thread) at stride 1 and 182 (4 chunks) from a 1x1 at
    // stride 2.
    {1, 20, 36, 15, 15, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 8, 20, 27, 25, 1, 1, 2, 1, 0, 0, 0, 0},
    // Eight groups of four and three blocks (AVX-512) over a 14x14 map
    // with a two-part reduction: at one and two threads each group goes
    // over chunks of 72, 72 and 52 positions, and at two a thread's slots
    // are whole groups.
    {1, 150, 470, 14, 14, 1, 1, 1, 1, 0, 0, 0, 0},
    // Two output blocks of 8 lanes (the AVX2 tiles written in asm) with
    // input channels past the last group of 8: a 1x1 at stride 2 over 28
    // positions (tiles of 6, the last overlapping), a 3x3 with padding over
    // 49 (tiles of 5), and a 1x1 whose one group is all tail.
    {1, 27, 16, 7, 13, 1, 1, 2, 1, 0, 0, 0, 0},
    {1, 21, 16, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1},
    {1, 7, 13, 3, 11, 1, 1, 1, 1, 0, 0, 0, 0},
    // Groups of three output blocks of 8 lanes (the AVX2 4 x 3 tile in asm,
    // for windows and for 1x1s on maps of 128 positions or more) with
    // input channels past the last group of 8: a 1x1 over 143 positions
    // (the last tile of 4 overlapping) with five blocks (groups of three
    // and two), a 1x1 over 144 with three, and a padded 3x3 over 63.
    {1, 13, 40, 13, 11, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 19, 22, 12, 12, 1, 1, 1, 1, 0, 0, 0, 0},
    {1, 21, 24, 9, 7, 3, 3, 1, 1, 1, 1, 1, 1},
};

// The window fields Conv2DParams and DepthwiseConv2dParams share.
template <typename Params>
void SetWindow(const Shape& s, ActivationType activation, Params* p) {
  p->batch = s.batch;
  p->in_h = s.h;
  p->in_w = s.w;
  p->kernel_h = s.kernel_h;
  p->kernel_w = s.kernel_w;
  p->stride_h = p->stride_w = s.stride;
  p->dilation_h = p->dilation_w = s.dilation;
  p->pad_top = s.pad_top;
  p->pad_left = s.pad_left;
  p->out_h = OutSize(s.h, s.kernel_h, s.stride, s.dilation, s.pad_top, s.pad_bottom);
  p->out_w = OutSize(s.w, s.kernel_w, s.stride, s.dilation, s.pad_left, s.pad_right);
  p->activation.type = activation;
}

ref::Conv2DParams ParamsOf(const Shape& s, ActivationType activation) {
  ref::Conv2DParams p;
  SetWindow(s, activation, &p);
  p.in_channels = s.in_channels;
  p.out_channels = s.out_channels;
  p.activation.max_limit = 6.f;
  return p;
}

constexpr ActivationType kActivations[] = {ActivationType::NOOP, ActivationType::RELU,
                                           ActivationType::RELUX, ActivationType::HARDSWISH,
                                           ActivationType::SIGMOID};

// One test per shape, so that test shards split the work (the whole
// sweep runs for minutes under qemu). The data and the reference output
// are made once per activation and reused by every table, input layout and
// pool: under qemu the naive reference costs far more than the kernels.
class BlockedConv2dShapeTest : public ::testing::TestWithParam<int> {};

TEST_P(BlockedConv2dShapeTest, MatchesReference) {
  const Shape& s = kConvShapes[GetParam()];
  const uint32_t seed = 100 + 1000 * GetParam();
  // The reference without an activation, once per shape; each activation's
  // is that output activated, as ref::Conv2D activates each float sum.
  const ref::Conv2DParams plain = ParamsOf(s, ActivationType::NOOP);
  const int64_t in_plane = s.h * s.w, out_plane = plain.out_h * plain.out_w;
  const std::vector<float> input = RandomFloats(s.batch * s.in_channels * in_plane, seed);
  const std::vector<float> filter =
      RandomFloats(s.out_channels * s.in_channels * s.kernel_h * s.kernel_w, seed + 1);
  const std::vector<float> bias = RandomFloats(s.out_channels, seed + 2);
  std::vector<float> sums(s.batch * s.out_channels * out_plane);
  ref::Conv2D(plain, input.data(), filter.data(), bias.data(), sums.data());
  for (ActivationType activation : kActivations) {
    const ref::Conv2DParams p = ParamsOf(s, activation);
    std::vector<float> expected = sums;
    for (float& v : expected) v = p.activation.Apply(v);
    for (const KernelTable* table : BlockedTables()) {
      const int block = table->channel_block;
      ASSERT_TRUE(BlockedConv2d::Supports(*table, p));
      const std::vector<float> packed = Pack(input, s.batch, s.in_channels, in_plane, block);
      for (bool blocked_input : {false, true}) {
        for (const auto& pool : testing::PoolsUnderTest()) {
          SCOPED_TRACE(::testing::Message()
                       << table->name << " seed " << seed << " " << s.in_channels << "->"
                       << s.out_channels << " " << s.h << "x" << s.w << " k" << s.kernel_h << "x"
                       << s.kernel_w << " s" << s.stride << " d" << s.dilation << " blocked input "
                       << blocked_input << " activation " << static_cast<int>(activation)
                       << " pool " << (pool ? pool->num_threads() : 0));
          BlockedConv2d conv(*table, p, filter.data(), bias.data(), blocked_input, nullptr,
                             pool.get());
          std::vector<float> out(s.batch * BlockCount(s.out_channels, block) * block * out_plane,
                                 std::nanf(""));
          std::vector<float> scratch(conv.ScratchBytes() / sizeof(float));
          conv.Run(blocked_input ? packed.data() : input.data(), out.data(), pool.get(),
                   scratch.data());
          ExpectNear(Unpack(out, s.batch, s.out_channels, out_plane, block), expected, 1e-4f,
                     1e-4f);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, BlockedConv2dShapeTest,
                         ::testing::Range(0, static_cast<int>(std::size(kConvShapes))));

// The filter relayout kernel against its definition: lane counts from one
// to a whole block, rows wider than the columns taken.
TEST(BlockedPackTest, MatchesDefinition) {
  int kernels = 0;
  for (const KernelTable* table : BlockedTables()) {
    if (table->blocked_pack == nullptr) continue;
    ++kernels;
    const int block = table->channel_block;
    for (int lanes : {1, block - 1, block}) {
      for (int64_t count : {1, 9, 33}) {
        const int64_t stride = count + 5;
        const std::vector<float> src = RandomFloats(lanes * stride, 77);
        std::vector<float> got(count * block, std::nanf(""));
        table->blocked_pack(src.data(), stride, lanes, count, got.data());
        for (int64_t j = 0; j < count; ++j) {
          for (int l = 0; l < block; ++l) {
            ASSERT_EQ(got[j * block + l], l < lanes ? src[l * stride + j] : 0.f)
                << table->name << " lanes " << lanes << " count " << count << " column " << j
                << " lane " << l;
          }
        }
      }
    }
  }
  // The x86 tables have the kernel (NEON's runs the scalar relayout).
  if (KernelTableFor(KernelIsa::kAvx2Fma) != nullptr) {
    EXPECT_GT(kernels, 0);
  }
}

// BlockedConv2d of `table` on shape s (batch 1) against ref::Conv2D, the
// input, filter and bias random from seed, seed + 1 and seed + 2.
void ExpectConvMatchesReference(const KernelTable& table, const Shape& s, ActivationType activation,
                                bool blocked_input, uint32_t seed) {
  const int block = table.channel_block;
  const ref::Conv2DParams p = ParamsOf(s, activation);
  const int64_t in_plane = s.h * s.w, out_plane = p.out_h * p.out_w;
  const std::vector<float> input = RandomFloats(s.in_channels * in_plane, seed);
  const std::vector<float> filter =
      RandomFloats(s.out_channels * s.in_channels * s.kernel_h * s.kernel_w, seed + 1);
  const std::vector<float> bias = RandomFloats(s.out_channels, seed + 2);
  std::vector<float> expected(s.out_channels * out_plane);
  ref::Conv2D(p, input.data(), filter.data(), bias.data(), expected.data());
  BlockedConv2d conv(table, p, filter.data(), bias.data(), blocked_input);
  std::vector<float> out(BlockCount(s.out_channels, block) * block * out_plane);
  std::vector<float> scratch(conv.ScratchBytes() / sizeof(float));
  conv.Run(blocked_input ? Pack(input, 1, s.in_channels, in_plane, block).data() : input.data(),
           out.data(), nullptr, scratch.data());
  ExpectNear(Unpack(out, 1, s.out_channels, out_plane, block), expected, 1e-4f, 1e-4f);
}

// The scalar relayout, for tables without the kernel: every table with it
// removed, on a 1x1 with a reduction tail and a 3x3 with several buffer
// chunks of channels.
TEST(BlockedConv2dTest, ScalarRelayoutMatchesReference) {
  for (const KernelTable* blocked : BlockedTables()) {
    KernelTable table = *blocked;
    table.blocked_pack = nullptr;
    for (const Shape& s : {Shape{1, 150, 17, 4, 5, 1, 1, 1, 1, 0, 0, 0, 0},
                           Shape{1, 37, 20, 6, 7, 3, 3, 1, 1, 1, 1, 1, 1}}) {
      SCOPED_TRACE(::testing::Message() << table.name << " " << s.in_channels << "->"
                                        << s.out_channels << " k" << s.kernel_h);
      ExpectConvMatchesReference(table, s, ActivationType::NOOP, true, 81);
    }
  }
}

// A window's reduction parts follow the table's L1d: none given (the fixed
// 40 KiB), a 32 KiB L1d, and one so small that every part is one block of
// channels; blocked and plain inputs, a channel tail past the last block.
TEST(BlockedConv2dTest, ReductionPartsFollowL1d) {
  for (const KernelTable* blocked : BlockedTables()) {
    for (int64_t l1d : {int64_t{0}, int64_t{32} << 10, int64_t{2} << 10}) {
      KernelTable table = *blocked;
      table.blocked_l1d_bytes = l1d;
      const int block = table.channel_block;
      const Shape s{1, 3 * block + 5, 2 * block + 3, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1};
      for (bool blocked_input : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << table.name << " l1d " << l1d << " blocked input " << blocked_input);
        ExpectConvMatchesReference(table, s, ActivationType::RELU, blocked_input, 91);
      }
    }
  }
}

// Winograd on blocked tensors: tiles that overhang the output, no and
// asymmetric padding, maps narrower than a tile, channels around the
// blocks, reductions in parts of 128, several groups of output blocks (and
// groups of one where the transformed filter is large), several product
// runs and tasks per image, threads splitting the output blocks of a small
// map instead (64 -> 200 at 6x7), two images, and the activations the output
// transform fuses and one it does not.
struct WinogradShape {
  int64_t batch, in_channels, out_channels, h, w, pad_top, pad_left, pad_bottom, pad_right;
};

const WinogradShape kWinogradShapes[] = {
    {1, 16, 64, 13, 13, 1, 1, 1, 1},
    {1, 5, 7, 7, 5, 1, 1, 1, 1},
    {2, 17, 33, 10, 9, 1, 1, 1, 1},
    {1, 3, 20, 3, 3, 0, 0, 0, 0},
    {1, 8, 100, 30, 31, 1, 1, 1, 1},
    {1, 33, 50, 12, 14, 0, 1, 1, 0},
    {1, 300, 24, 9, 10, 1, 1, 1, 1},
    {1, 130, 40, 2, 1, 1, 1, 1, 1},
    {1, 48, 16, 57, 55, 1, 1, 1, 1},
    {1, 64, 200, 6, 7, 1, 1, 1, 1},
    // Output channels around the filter transform's chunk of 16 lanes (one
    // or two blocks), a single output and a single input channel.
    {1, 9, 15, 8, 8, 1, 1, 1, 1},
    {1, 9, 17, 8, 8, 1, 1, 1, 1},
    {1, 20, 31, 6, 5, 1, 1, 1, 1},
    {1, 12, 1, 7, 7, 1, 1, 1, 1},
    {1, 1, 24, 7, 9, 1, 1, 1, 1},
    // A large filter over several product runs (groups of one block at
    // F(4x4), each run's first prefetching the next part), and over a
    // single run (groups of the kernel's most blocks, five parts of the
    // reduction prefetched across positions).
    {1, 300, 20, 26, 26, 1, 1, 1, 1},
    {1, 520, 40, 5, 6, 1, 1, 1, 1},
    // A transformed filter less than three times V (48 lanes over 25 tiles
    // at F(4x4)): threads split its tiles.
    {1, 20, 36, 18, 17, 1, 1, 1, 1},
};

// As above, one reference per activation for every table, tile and pool.
class BlockedWinogradShapeTest : public ::testing::TestWithParam<int> {};

TEST_P(BlockedWinogradShapeTest, MatchesReference) {
  const WinogradShape& s = kWinogradShapes[GetParam()];
  uint32_t seed = 500 + 1000 * GetParam();
  for (ActivationType activation : {ActivationType::NOOP, ActivationType::RELUX,
                                    ActivationType::HARDSWISH, ActivationType::SIGMOID}) {
    seed += 3;
    const ref::Conv2DParams p = ParamsOf({s.batch, s.in_channels, s.out_channels, s.h, s.w, 3, 3, 1,
                                          1, s.pad_top, s.pad_left, s.pad_bottom, s.pad_right},
                                         activation);
    const int64_t in_plane = s.h * s.w, out_plane = p.out_h * p.out_w;
    const std::vector<float> input = RandomFloats(s.batch * s.in_channels * in_plane, seed);
    const std::vector<float> filter = RandomFloats(s.out_channels * s.in_channels * 9, seed + 1);
    const std::vector<float> bias = RandomFloats(s.out_channels, seed + 2);
    std::vector<float> expected(s.batch * s.out_channels * out_plane);
    ref::Conv2D(p, input.data(), filter.data(), bias.data(), expected.data());
    for (const KernelTable* table : BlockedTables()) {
      const int block = table->channel_block;
      ASSERT_TRUE(BlockedWinograd::Supports(*table, p));
      const std::vector<float> in_data = Pack(input, s.batch, s.in_channels, in_plane, block);
      for (int tile : {2, 4}) {
        for (const auto& pool : testing::PoolsUnderTest()) {
          SCOPED_TRACE(::testing::Message()
                       << table->name << " seed " << seed << " F(" << tile << "x" << tile << ") "
                       << s.in_channels << "->" << s.out_channels << " " << s.h << "x" << s.w
                       << " activation " << static_cast<int>(activation) << " pool "
                       << (pool ? pool->num_threads() : 0));
          // The pool transforms the filter too.
          BlockedWinograd conv(*table, p, filter.data(), bias.data(), tile, nullptr, pool.get());
          std::vector<float> out(s.batch * BlockCount(s.out_channels, block) * block * out_plane,
                                 std::nanf(""));
          const int threads = pool ? pool->num_threads() : 1;
          std::vector<float> scratch(conv.ScratchBytes(threads) / sizeof(float), std::nanf(""));
          conv.Run(in_data.data(), out.data(), pool.get(), scratch.data());
          // F(4x4) rounds more than F(2x2), and error grows with the
          // reduction's length.
          const float tolerance = (tile == 2 ? 1e-4f : 5e-4f) * (s.in_channels > 100 ? 8 : 1);
          ExpectNear(Unpack(out, s.batch, s.out_channels, out_plane, block), expected, tolerance,
                     tolerance);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, BlockedWinogradShapeTest,
                         ::testing::Range(0, static_cast<int>(std::size(kWinogradShapes))));

// The transformed filter's layout, bit for bit: position xi of filter
// (oc, ic) at [xi][oc / block][ic][oc % block], a zero filter's transform
// in the padding lanes,
// each 16-filter chunk transformed by the table's kernel (tested against
// G g G^T in conv_2d_test). Output channels around the block and chunk
// widths, input channels around the gathered group (8) and one channel, on
// the calling thread and on pools.
TEST(BlockedWinogradTest, FilterLayoutMatchesTransform) {
  constexpr int64_t kLanes = kWinogradFilterLanes;
  uint32_t seed = 900;
  for (const KernelTable* table : BlockedTables()) {
    const int64_t block = table->channel_block;
    for (const int64_t out_c : {int64_t{1}, block - 1, block, block + 1, kLanes + 3, 2 * kLanes + 5}) {
      for (const int64_t in_c : {1, 3, 7, 8, 9, 17, 20}) {
        if (out_c < 1) continue;
        for (int tile : {2, 4}) {
          for (const auto& pool : testing::PoolsUnderTest()) {
            ++seed;
            SCOPED_TRACE(::testing::Message() << table->name << " seed " << seed << " F(" << tile
                                              << "x" << tile << ") " << in_c << "->" << out_c
                                              << " pool " << (pool ? pool->num_threads() : 0));
            const ref::Conv2DParams p =
                ParamsOf({1, in_c, out_c, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1}, ActivationType::NOOP);
            ASSERT_TRUE(BlockedWinograd::Supports(*table, p));
            const std::vector<float> filter = RandomFloats(out_c * in_c * 9, seed);
            const BlockedWinograd conv(*table, p, filter.data(), nullptr, tile, nullptr,
                                       pool.get());
            const int64_t positions = (tile + 2) * (tile + 2);
            const int64_t out_blocks = BlockCount(out_c, static_cast<int>(block));
            std::vector<float> expected(positions * out_blocks * in_c * block, std::nanf(""));
            std::vector<float> g(9 * kLanes), u(positions * kLanes);
            for (int64_t oc0 = 0; oc0 < out_c; oc0 += kLanes) {
              for (int64_t ic = 0; ic < in_c; ++ic) {
                for (int64_t l = 0; l < kLanes; ++l) {
                  for (int k = 0; k < 9; ++k) {
                    g[k * kLanes + l] = oc0 + l < out_c ? filter[((oc0 + l) * in_c + ic) * 9 + k] : 0.f;
                  }
                }
                WinogradTransformChunk(*table, g.data(), tile, u.data());
                // Padding lanes hold the transform of a zero filter (some
                // positions -0).
                for (int64_t l = 0; l < kLanes && oc0 + l < out_blocks * block; ++l) {
                  const int64_t oc = oc0 + l;
                  for (int64_t xi = 0; xi < positions; ++xi) {
                    expected[((xi * out_blocks + oc / block) * in_c + ic) * block + oc % block] =
                        u[xi * kLanes + l];
                  }
                }
              }
            }
            const float* got = conv.packed_filter();
            int64_t mismatches = 0;
            for (size_t i = 0; i < expected.size(); ++i) {
              if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0 && mismatches++ < 3) {
                ADD_FAILURE() << "float " << i << ": " << got[i] << " != " << expected[i];
              }
            }
            EXPECT_EQ(mismatches, 0);
          }
        }
      }
    }
  }
}

// The blocked tile rule (see BlockedWinograd::PickTile) on the zoo's layers:
// F(4x4) on large maps, F(2x2) where the transformed filter outweighs the
// tiles, direct where even F(2x2)'s filter does (512 channels at 7x7 on a
// core issuing 32 multiply-adds a cycle whose filters come from memory; a
// core issuing 16 reads the filter at half the cost, and one whose L3 holds
// the filters at two thirds of it: both take F(2x2) there), none for
// shallow layers, and never more than the model allows. Each table is tried
// as it is and at both rates, with no L3, a 32 MiB one and a 260 MiB one,
// so the rule is checked whatever this host's rate and caches.
TEST(BlockedWinogradTest, PicksTileByShape) {
  std::vector<KernelTable> tables;
  for (const KernelTable* table : BlockedTables()) {
    for (int32_t lanes : {table->mac_lanes, 16, 32}) {
      tables.push_back(*table);
      tables.back().mac_lanes = lanes;
    }
  }
  constexpr int64_t kMiB = int64_t{1} << 20;
  for (const KernelTable& entry : tables) {
    for (int64_t l3 : {int64_t{0}, 32 * kMiB, 95 * kMiB, 96 * kMiB, 260 * kMiB}) {
      const KernelTable* table = &entry;
      SCOPED_TRACE(std::string(table->name) + ", " + std::to_string(table->mac_lanes) +
                   " lanes, L3 " + std::to_string(l3 / kMiB) + " MiB");
      auto params = [](int64_t in, int64_t size, int64_t out) {
        ref::Conv2DParams p;
        p.in_channels = in;
        p.out_channels = out;
        p.in_h = p.in_w = p.out_h = p.out_w = size;
        p.kernel_h = p.kernel_w = 3;
        p.pad_top = p.pad_left = 1;
        return p;
      };
      auto pick = [&](const ref::Conv2DParams& p, int requested) {
        return BlockedWinograd::PickTile(*table, p, requested, l3);
      };
      const bool filters_in_l3 = l3 >= 96 * kMiB;
      EXPECT_EQ(pick(params(16, 55, 64), 4), 4);
      EXPECT_EQ(pick(params(64, 56, 64), 4), 4);
      EXPECT_EQ(pick(params(128, 28, 128), 4), 4);
      EXPECT_EQ(pick(params(256, 14, 256), 4), 2);
      EXPECT_EQ(pick(params(512, 7, 512), 4), table->mac_lanes >= 32 && !filters_in_l3 ? 0 : 2);
      EXPECT_EQ(pick(params(64, 13, 256), 4), 2);
      EXPECT_EQ(pick(params(48, 13, 192), 4), 2);
      EXPECT_EQ(pick(params(64, 56, 64), 2), 2);
      EXPECT_EQ(pick(params(64, 56, 64), 0), 0);
      EXPECT_EQ(pick(params(4, 56, 64), 4), 0);
      EXPECT_EQ(pick(params(8, 5, 8), 4), 0);
      ref::Conv2DParams strided = params(64, 56, 64);
      strided.stride_h = strided.stride_w = 2;
      EXPECT_EQ(pick(strided, 4), 0);
    }
  }
}

TEST(BlockedDepthwiseTest, MatchesReference) {
  uint32_t seed = 500;
  const Shape shapes[] = {
      {1, 32, 32, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 17, 17, 9, 7, 3, 3, 2, 1, 1, 1, 1, 1},
      {2, 5, 5, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 48, 48, 8, 8, 3, 3, 2, 1, 0, 0, 1, 1},
      {1, 20, 20, 11, 13, 5, 5, 1, 1, 2, 2, 2, 2},
      {1, 9, 9, 10, 10, 3, 3, 1, 2, 2, 2, 2, 2},
      {1, 8, 8, 3, 21, 3, 3, 1, 1, 0, 0, 0, 0},
      // Rows of at most a tile, 7 and 3 wide, each one tile clipped on both
      // sides.
      {1, 40, 40, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 16, 16, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1},
      // Rows of 19 and 14 in tiles of near-equal size, the first clipped on
      // the left and the last on the right.
      {1, 18, 18, 5, 19, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 16, 16, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1},
      // Stride 2 with padding on both sides (the last window is inside) and
      // on the right only (it is clipped), and padding of 2, which stays
      // with the per-column edges.
      {1, 16, 16, 6, 30, 3, 3, 2, 1, 1, 1, 1, 1},
      {1, 16, 16, 6, 30, 3, 3, 2, 1, 0, 0, 1, 1},
      {1, 16, 16, 6, 12, 3, 3, 1, 1, 2, 2, 2, 2},
      // 45 rows of 40: bands of 12 rows start inside a run of rows that
      // share their segments.
      {1, 3, 3, 45, 40, 3, 3, 1, 1, 1, 1, 1, 1},
      // Inputs of more than 2 MiB in blocks of 8 and of 16 lanes, whose
      // tasks each thread takes last first: 33 channels (a partial last
      // block) at stride 2 with padding, and two images at stride 1.
      {1, 33, 33, 128, 128, 3, 3, 2, 1, 1, 1, 1, 1},
      {2, 24, 24, 110, 110, 3, 3, 1, 1, 1, 1, 1, 1},
  };
  // Per shape: one input and the reference without an activation; each
  // activation's reference is that output activated, as
  // ref::DepthwiseConv2d activates each float sum.
  for (const Shape& s : shapes) {
    seed += 3;
    ref::DepthwiseConv2dParams plain;
    SetWindow(s, ActivationType::NOOP, &plain);
    plain.channels = s.in_channels;
    const int64_t in_plane = s.h * s.w, out_plane = plain.out_h * plain.out_w;
    const std::vector<float> input = RandomFloats(s.batch * s.in_channels * in_plane, seed);
    const std::vector<float> filter =
        RandomFloats(s.in_channels * s.kernel_h * s.kernel_w, seed + 1);
    const std::vector<float> bias = RandomFloats(s.in_channels, seed + 2);
    std::vector<float> sums(s.batch * s.in_channels * out_plane);
    ref::DepthwiseConv2d(plain, input.data(), filter.data(), bias.data(), sums.data());
    for (const KernelTable* table : BlockedTables()) {
      const int block = table->channel_block;
      const std::vector<float> packed = Pack(input, s.batch, s.in_channels, in_plane, block);
      for (ActivationType activation : kActivations) {
        ref::DepthwiseConv2dParams p = plain;
        p.activation.type = activation;
        ASSERT_TRUE(BlockedDepthwise::Supports(*table, p));
        std::vector<float> expected = sums;
        for (float& v : expected) v = p.activation.Apply(v);
        BlockedDepthwise depthwise(*table, p, filter.data(), bias.data());
        for (const auto& pool : testing::PoolsUnderTest()) {
          SCOPED_TRACE(::testing::Message()
                       << table->name << " seed " << seed << " c" << s.in_channels << " " << s.h
                       << "x" << s.w << " k" << s.kernel_h << " s" << s.stride << " d" << s.dilation
                       << " activation " << static_cast<int>(activation) << " threads "
                       << (pool ? pool->num_threads() : 1));
          std::vector<float> out(s.batch * BlockCount(s.in_channels, block) * block * out_plane);
          depthwise.Run(packed.data(), out.data(), pool.get());
          ExpectNear(Unpack(out, s.batch, s.in_channels, out_plane, block), expected, 1e-5f, 1e-5f);
        }
      }
    }
  }
}

TEST(BlockedPoolingTest, MatchesReference) {
  uint32_t seed = 900;
  const Shape shapes[] = {
      {1, 64, 64, 55, 55, 3, 3, 2, 1, 0, 0, 1, 1},  // ceil mode: the last window sticks out
      {1, 17, 17, 8, 9, 2, 2, 2, 1, 0, 0, 0, 0},   {2, 5, 5, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1},
      {1, 33, 33, 7, 5, 3, 3, 2, 1, 1, 1, 1, 1},   {1, 8, 8, 2, 3, 5, 5, 1, 1, 2, 2, 2, 2},
      {1, 12, 12, 9, 9, 3, 3, 1, 2, 2, 2, 2, 2},
      // An input of more than 2 MiB in blocks of 4, 8 and 16 lanes, whose
      // tasks each thread takes last first: two images of 33 channels (a
      // partial last block) whose last window sticks out.
      {2, 33, 33, 86, 86, 3, 3, 2, 1, 0, 0, 1, 1},
  };
  for (const KernelTable* table : BlockedTables()) {
    const int block = table->channel_block;
    for (const Shape& s : shapes) {
      for (int global = 0; global < 2; ++global) {
        for (ref::PoolingType type : {ref::PoolingType::MAX, ref::PoolingType::AVG}) {
          for (bool include_pad : {false, true}) {
            ref::PoolingParams p;
            p.type = type;
            p.batch = s.batch;
            p.channels = s.in_channels;
            p.in_h = s.h;
            p.in_w = s.w;
            p.kernel_h = global ? s.h : s.kernel_h;
            p.kernel_w = global ? s.w : s.kernel_w;
            if (!global) {
              p.stride_h = p.stride_w = s.stride;
              p.dilation_h = p.dilation_w = s.dilation;
              p.pad_top = s.pad_top;
              p.pad_left = s.pad_left;
              p.pad_bottom = s.pad_bottom;
              p.pad_right = s.pad_right;
              p.count_include_pad = include_pad;
            }
            p.out_h = global
                          ? 1
                          : OutSize(s.h, s.kernel_h, s.stride, s.dilation, s.pad_top, s.pad_bottom);
            p.out_w = global
                          ? 1
                          : OutSize(s.w, s.kernel_w, s.stride, s.dilation, s.pad_left, s.pad_right);
            ASSERT_TRUE(BlockedPooling::Supports(*table, p, global));
            ++seed;
            SCOPED_TRACE(::testing::Message()
                         << table->name << " seed " << seed << " c" << s.in_channels << " " << s.h
                         << "x" << s.w << " global " << global << " type " << static_cast<int>(type)
                         << " include pad " << include_pad);
            const int64_t in_plane = s.h * s.w, out_plane = p.out_h * p.out_w;
            const std::vector<float> input = RandomFloats(s.batch * s.in_channels * in_plane, seed);
            std::vector<float> expected(s.batch * s.in_channels * out_plane);
            ref::Pooling(p, input.data(), expected.data());
            BlockedPooling pooling(*table, p, global);
            for (const auto& pool : testing::PoolsUnderTest()) {
              std::vector<float> out(s.batch * BlockCount(s.in_channels, block) * block *
                                     out_plane);
              pooling.Run(Pack(input, s.batch, s.in_channels, in_plane, block).data(), out.data(),
                          pool.get());
              ExpectNear(Unpack(out, s.batch, s.in_channels, out_plane, block), expected, 1e-5f,
                         1e-5f);
            }
          }
        }
      }
    }
  }
}

// Against the layout's definition; a plane of one position (after a global
// pooling) takes a path of its own.
TEST(ChannelBlocksTest, PackUnpackRoundTrip) {
  for (int block : {4, 8, 16}) {
    for (int64_t channels : {1, 3, 4, 15, 16, 17, 40}) {
      for (int64_t plane : {1, 7}) {
        const int64_t blocks = BlockCount(channels, block);
        const std::vector<float> plain = RandomFloats(2 * channels * plane, 7);
        std::vector<float> blocked(2 * blocks * block * plane, 1.f);
        PackChannelBlocks(plain.data(), 2, channels, plane, block, blocked.data(), nullptr);
        for (int64_t i = 0; i < static_cast<int64_t>(blocked.size()); ++i) {
          const int64_t lane = i % block, p = i / block % plane, b = i / block / plane % blocks;
          const int64_t n = i / block / plane / blocks, c = b * block + lane;
          const float want = c < channels ? plain[(n * channels + c) * plane + p] : 0.f;
          EXPECT_EQ(blocked[i], want) << "plane " << plane << " index " << i;
        }
        EXPECT_EQ(Unpack(blocked, 2, channels, plane, block), plain);
      }
    }
  }
}

// The tables' transposes against the scalar conversion, bit for bit:
// every lane count of a block, plane sizes around the 8- and 16-position
// transposes (tails of 1 to 15, ShuffleNet's 7x7 to 28x28 maps), channel
// counts that end in a partial block, batches of 2, and 1 to 3 threads.
// The blocked side starts as NaN and the plain side as a marker, so a
// padding lane left unwritten by pack, or a row past `lanes` written by
// unpack, fails.
TEST(ChannelBlocksTest, TransposesMatchScalarConversion) {
  for (const KernelTable* table : BlockedTables()) {
    if (table->channel_pack == nullptr || table->channel_unpack == nullptr) continue;
    const int block = table->channel_block;
    for (int64_t channels : {1, 3, 7, 8, 9, 15, 16, 17, 24, 58, 116}) {
      for (int64_t plane : {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 49, 196, 784}) {
        const int64_t batch = 2, padded = BlockCount(channels, block) * block;
        const std::vector<float> plain = RandomFloats(batch * channels * plane, 11);
        std::vector<float> expected(batch * padded * plane, std::nanf(""));
        PackChannelBlocks(plain.data(), batch, channels, plane, block, expected.data(), nullptr);
        std::vector<float> expected_plain(plain.size(), 7.f);
        UnpackChannelBlocks(expected.data(), batch, channels, plane, block, expected_plain.data(),
                            nullptr);
        for (const auto& pool : testing::PoolsUnderTest()) {
          SCOPED_TRACE(std::string(table->name) + " channels " + std::to_string(channels) +
                       " plane " + std::to_string(plane) + " threads " +
                       std::to_string(NumThreads(pool.get())));
          std::vector<float> blocked(expected.size(), std::nanf(""));
          PackChannelBlocks(plain.data(), batch, channels, plane, block, blocked.data(), pool.get(),
                            table->channel_pack);
          ASSERT_EQ(0, std::memcmp(blocked.data(), expected.data(), blocked.size() * sizeof(float)));
          // Unpack from a buffer whose padding lanes hold NaN: none may reach
          // the output.
          std::vector<float> source = Pack(plain, batch, channels, plane, block);
          std::vector<float> unpacked(plain.size() + plane, 7.f);
          UnpackChannelBlocks(source.data(), batch, channels, plane, block, unpacked.data(),
                              pool.get(), table->channel_unpack);
          ASSERT_EQ(0, std::memcmp(unpacked.data(), plain.data(), plain.size() * sizeof(float)));
          ASSERT_EQ(expected_plain, plain);
          for (int64_t i = plain.size(); i < static_cast<int64_t>(unpacked.size()); ++i) {
            ASSERT_EQ(unpacked[i], 7.f) << "wrote past the tensor at " << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
