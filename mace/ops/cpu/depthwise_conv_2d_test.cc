// The fast 3x3 depthwise kernel against ref::DepthwiseConv2d: widths and
// heights around the vector widths (4, 8 and 16) and the two- and four-row passes, every
// stride and padding combination, bands shorter than a plane, outputs that
// read only padding, multipliers, batches, activations and thread counts.
#include <algorithm>
#include <cmath>
#include <memory>
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

constexpr ActivationType kActivations[] = {ActivationType::NOOP,      ActivationType::RELU,
                                           ActivationType::RELUX,     ActivationType::HARDSWISH,
                                           ActivationType::LEAKYRELU, ActivationType::SIGMOID,
                                           ActivationType::TANH,      ActivationType::HARDSIGMOID};
constexpr int kActivationCount = sizeof(kActivations) / sizeof(kActivations[0]);

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

// Pads {before, after} of one axis: none, one on each side, or TensorFlow's
// SAME (ceil(size / stride) outputs, an odd total puts the extra one after).
enum class Padding { kNone, kOne, kSame };

void AxisPads(Padding padding, int64_t size, int64_t stride, int64_t* before, int64_t* after) {
  if (padding == Padding::kNone) {
    *before = *after = 0;
  } else if (padding == Padding::kOne) {
    *before = *after = 1;
  } else {
    const int64_t out = (size + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((out - 1) * stride + 3 - size, 0);
    *before = total / 2;
    *after = total - *before;
  }
}

// No pool, 2 and 3 threads; made once, since the tests below run a thousand
// shapes.
const std::vector<std::shared_ptr<ThreadPool>>& Pools() {
  static const std::vector<std::shared_ptr<ThreadPool>> pools = testing::PoolsUnderTest();
  return pools;
}

void Check(const ref::DepthwiseConv2dParams& p, bool with_bias = true) {
  const std::vector<float> input = RandomFloats(p.batch * p.channels * p.in_h * p.in_w, 41);
  const std::vector<float> filter = RandomFloats(p.multiplier * p.channels * 9, 42);
  const std::vector<float> bias_values = RandomFloats(p.channels * p.multiplier, 43);
  const float* bias = with_bias ? bias_values.data() : nullptr;
  const int64_t out_size = p.batch * p.channels * p.multiplier * p.out_h * p.out_w;
  std::vector<float> expected(out_size);
  ref::DepthwiseConv2d(p, input.data(), filter.data(), bias, expected.data());
  for (const KernelTable* table : testing::TablesUnderTest()) {
    ASSERT_TRUE(DepthwiseConv3x3::Supports(*table, p));
    DepthwiseConv3x3 kernel(*table, p);
    for (const auto& pool : Pools()) {
      SCOPED_TRACE(::testing::Message()
                   << table->name << " threads " << NumThreads(pool.get()) << " batch " << p.batch
                   << " channels " << p.channels << " " << p.in_h << "x" << p.in_w << " stride "
                   << p.stride_h << "," << p.stride_w << " pad " << p.pad_top << "," << p.pad_left
                   << " out " << p.out_h << "x" << p.out_w << " multiplier " << p.multiplier
                   << " activation " << static_cast<int>(p.activation.type));
      // Exactly the bytes asked for, and garbage in them: the kernel must
      // neither read past them nor rely on what they held.
      std::vector<float> scratch(kernel.ScratchBytes(NumThreads(pool.get())) / sizeof(float),
                                 std::nanf(""));
      std::vector<float> output(out_size, std::nanf(""));
      kernel.Run(input.data(), filter.data(), bias, output.data(), pool.get(), scratch.data());
      ExpectNear(output, expected, 2e-5f, 2e-5f);
    }
  }
}

TEST(DepthwiseConv3x3Test, WidthsAroundVectorsStridesAndPads) {
  for (int64_t stride : {1, 2}) {
    for (int64_t w : {1,  2,  3,  4,  5,  7,  8,  9,  10, 11, 12, 15, 16, 17,
                      18, 19, 20, 21, 31, 32, 33, 34, 35, 63, 64, 65, 66, 67}) {
      for (int64_t pad : {0, 1}) {
        if (w + 2 * pad < 3) continue;
        Check(Params(1, 3, 5, w, 1, stride, stride, pad, pad, pad, pad, ActivationType::NOOP));
      }
    }
  }
}

// Every width from 1 to 17, 31 to 35 and 63 to 67 and every height from 1
// to 4, at each stride pair and padding: output rows of one to three
// elements, and output widths around one, two and four 8- and 16-float
// vectors at both strides. Activations, multipliers and batches rotate
// through the shapes.
TEST(DepthwiseConv3x3Test, SmallPlanesEveryStrideAndPadding) {
  int index = 0;
  for (int64_t stride_h : {1, 2}) {
    for (int64_t stride_w : {1, 2}) {
      for (Padding padding : {Padding::kNone, Padding::kOne, Padding::kSame}) {
        for (int64_t h = 1; h <= 4; ++h) {
          for (int64_t w = 1; w <= 67; w = w == 17 ? 31 : w == 35 ? 63 : w + 1) {
            int64_t top, bottom, left, right;
            AxisPads(padding, h, stride_h, &top, &bottom);
            AxisPads(padding, w, stride_w, &left, &right);
            if (h + top + bottom < 3 || w + left + right < 3) continue;
            ++index;
            const int64_t batch = 1 + index % 2, channels = 2 + index / 3 % 2;
            const int64_t multiplier = 1 + index / 2 % 2;
            Check(Params(batch, channels, h, w, multiplier, stride_h, stride_w, top, left, bottom,
                         right, kActivations[index % kActivationCount]));
          }
        }
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
  // SAME_LOWER puts it top/left.
  Check(Params(2, 3, 8, 10, 2, 2, 2, 1, 1, 0, 0, ActivationType::RELUX));
  Check(Params(1, 3, 7, 9, 1, 2, 1, 1, 1, 0, 1, ActivationType::TANH));
}

TEST(DepthwiseConv3x3Test, EveryActivation) {
  for (ActivationType activation : kActivations) {
    Check(Params(2, 3, 6, 9, 2, 1, 1, 1, 1, 1, 1, activation));
    Check(Params(2, 3, 7, 17, 2, 2, 2, 0, 0, 1, 1, activation));
    Check(Params(1, 2, 5, 6, 1, 1, 2, 1, 1, 1, 1, activation));
  }
}

// Planes taller than one band: a thread's rows of a plane run in several
// bands, and thread chunks start and end inside planes.
TEST(DepthwiseConv3x3Test, PlanesTallerThanABand) {
  Check(Params(1, 2, 45, 150, 1, 1, 1, 1, 1, 1, 1, ActivationType::RELU));
  Check(Params(1, 2, 61, 300, 2, 2, 2, 0, 0, 1, 1, ActivationType::RELUX));
  Check(Params(2, 1, 40, 260, 1, 1, 2, 1, 1, 1, 1, ActivationType::SIGMOID));
  Check(Params(1, 3, 50, 200, 1, 2, 1, 1, 1, 1, 1, ActivationType::HARDSWISH));
}

// Strides 1 and 2 on every output width from 1 to 40 and output heights
// of 1, 2 and 3 or more (odd and even row counts): the armv7 bands run all
// their rows in one pass loop, whole vectors then one or two ragged vectors
// ending at each row's last output, for every remainder of the width by 4.
// Clamps and no activation take that path; hard-swish rotates in to check
// the other.
TEST(DepthwiseConv3x3Test, EveryWidthToFortyAtBothStrides) {
  constexpr ActivationType kRotation[] = {ActivationType::RELUX, ActivationType::NOOP,
                                          ActivationType::RELU, ActivationType::HARDSWISH};
  int index = 0;
  for (int64_t stride : {1, 2}) {
    for (int64_t out_w = 1; out_w <= 40; ++out_w) {
      for (int64_t h = 1; h <= 7; h += 3) {
        for (int64_t pad : {0, 1}) {
          // The input width that gives out_w outputs with this padding.
          const int64_t w = (out_w - 1) * stride + 3 - 2 * pad;
          if (w < 1 || h + 2 * pad < 3) continue;
          const int64_t channels = 1 + index % 3;
          Check(Params(1, channels, h, w, 1, stride, stride, pad, pad, pad, pad,
                       kRotation[index % 4]));
          ++index;
        }
      }
    }
  }
  // Stride 2 vertically with 1 horizontally, and an odd channel count.
  Check(Params(1, 3, 9, 14, 1, 2, 1, 1, 1, 1, 1, ActivationType::RELUX));
  Check(Params(1, 5, 7, 7, 1, 1, 1, 1, 1, 1, 1, ActivationType::RELUX));
  Check(Params(1, 5, 28, 28, 1, 1, 1, 1, 1, 1, 1, ActivationType::RELUX));
}

// Four-row passes (output heights 4 to 9) on every output width from 1 to
// 40, 44, 56 and 60, at both strides, with no activation, ReLU and ReLU6:
// arm64's band code for each (no clamp, a max, a clamp), whose stride-1
// rows of 8 or more outputs run in steps of 8 or 16 outputs, a ragged row
// ending in a step of 8, 12 or 16 that may overlap the one before it.
TEST(DepthwiseConv3x3Test, FourRowPassesEveryClampKind) {
  constexpr ActivationType kClampKinds[] = {ActivationType::NOOP, ActivationType::RELU,
                                            ActivationType::RELUX};
  int index = 0;
  for (int64_t stride : {1, 2}) {
    for (int64_t out_w = 1; out_w <= 60;
         out_w = out_w == 40 ? 44 : out_w == 44 ? 56 : out_w == 56 ? 60 : out_w + 1) {
      for (ActivationType activation : kClampKinds) {
        const int64_t out_h = 4 + index % 6, channels = 1 + index % 3;
        const int64_t h = (out_h - 1) * stride + 1, w = (out_w - 1) * stride + 1;
        Check(Params(1, channels, h, w, 1, stride, stride, 1, 1, 1, 1, activation));
        ++index;
      }
    }
  }
}

// Output heights of 8 to 15 at strides 1 and 2, at widths around where
// armv7's last 1 to 3 rows of a band switch from one more four-row pass,
// overlapping the one before it, to passes of two and one rows (2, 3 and
// 12 vectors a row), with no activation, ReLU and ReLU6 and both paddings.
TEST(DepthwiseConv3x3Test, LastRowsOfFourRowPasses) {
  constexpr ActivationType kClampKinds[] = {ActivationType::NOOP, ActivationType::RELU,
                                            ActivationType::RELUX};
  int index = 0;
  for (int64_t stride : {1, 2}) {
    for (int64_t out_h = 8; out_h <= 15; ++out_h) {
      for (int64_t out_w : {4, 5, 8, 9, 12, 13, 47, 48, 49}) {
        const int64_t pad = index % 2, channels = 1 + index % 3;
        const int64_t h = (out_h - 1) * stride + 3 - 2 * pad;
        const int64_t w = (out_w - 1) * stride + 3 - 2 * pad;
        Check(Params(1, channels, h, w, 1, stride, stride, pad, pad, pad, pad,
                     kClampKinds[index % 3]));
        ++index;
      }
    }
  }
}

// Stride-1 bands by columns (armv7, 5 rows or more): output heights 1 to
// 12, so that every count of three-row steps (0 to 3) meets every count of
// steps after them (0 to 2), at widths below, at and above one vector
// (7: a pair whose second vector starts at output 3), a pair of vectors
// (8) and two pairs, with the last pair ragged or a single
// column after the pairs, with no activation, ReLU and ReLU6 and both
// paddings.
TEST(DepthwiseConv3x3Test, StrideOneColumns) {
  constexpr ActivationType kClampKinds[] = {ActivationType::NOOP, ActivationType::RELU,
                                            ActivationType::RELUX};
  int index = 0;
  for (int64_t out_h = 1; out_h <= 12; ++out_h) {
    for (int64_t out_w : {3, 4, 5, 7, 8, 9, 11, 12, 13, 15, 16, 17, 20, 21}) {
      const int64_t pad = index % 2, channels = 1 + index % 3;
      const int64_t h = out_h + 2 - 2 * pad, w = out_w + 2 - 2 * pad;
      Check(Params(1, channels, h, w, 1, 1, 1, pad, pad, pad, pad, kClampKinds[index % 3]));
      ++index;
    }
  }
}

// Stride-2 bands by columns (armv7, from 3 output rows, except 4, 8, 12
// and 16): output heights 1 to 12 and 17 to 20, at widths below, at and
// above one vector, a pair of vectors and two pairs, the last pair ragged
// or a single column after the pairs, and the MobileNets' 14, 28, 56 and
// 112; with no activation, ReLU and ReLU6, both paddings and channel
// counts that are odd and no multiple of 4.
TEST(DepthwiseConv3x3Test, StrideTwoColumns) {
  constexpr ActivationType kClampKinds[] = {ActivationType::NOOP, ActivationType::RELU,
                                            ActivationType::RELUX};
  int index = 0;
  for (int64_t out_h = 1; out_h <= 20; out_h = out_h == 12 ? 17 : out_h + 1) {
    for (int64_t out_w : {3, 4, 5, 7, 8, 9, 11, 12, 13, 14, 16, 17, 21, 28, 56}) {
      const int64_t pad = index % 2, channels = 1 + 2 * (index % 3);
      const int64_t h = (out_h - 1) * 2 + 3 - 2 * pad, w = (out_w - 1) * 2 + 3 - 2 * pad;
      Check(Params(1, channels, h, w, 1, 2, 2, pad, pad, pad, pad, kClampKinds[index % 3]));
      ++index;
    }
  }
  for (int64_t out_h : {5, 9}) {
    Check(Params(1, 1, out_h * 2 + 1, 224, 1, 2, 2, 0, 0, 1, 1, ActivationType::RELUX));
  }
}

// Bands of exactly seven rows of 4 to 7 outputs (arm64 runs them as one
// seven-row pass a vector column) and, at stride 1, of 7 or 14 rows of 8
// to 15 outputs (seven-row passes of 8-output steps), with six, eight and
// thirteen rows and widths of 3 and 16 around them, at both strides and
// paddings, odd channel counts, every clamp kind and hard-swish.
TEST(DepthwiseConv3x3Test, SevenRowBands) {
  constexpr ActivationType kRotation[] = {ActivationType::RELUX, ActivationType::NOOP,
                                          ActivationType::RELU, ActivationType::HARDSWISH};
  int index = 0;
  for (int64_t stride : {1, 2}) {
    for (int64_t out_h : {6, 7, 8, 13, 14}) {
      for (int64_t out_w = 3; out_w <= 16; ++out_w) {
        const int64_t pad = index % 2, channels = 1 + 2 * (index % 3);
        const int64_t h = (out_h - 1) * stride + 3 - 2 * pad;
        const int64_t w = (out_w - 1) * stride + 3 - 2 * pad;
        Check(Params(1, channels, h, w, 1, stride, stride, pad, pad, pad, pad,
                     kRotation[index % 4]));
        ++index;
      }
    }
  }
}

// The clamp kinds arm64's in-place planes take, and hard-swish, which they
// leave to the bands.
constexpr ActivationType kInPlaceKinds[] = {ActivationType::RELUX, ActivationType::NOOP,
                                            ActivationType::RELU, ActivationType::HARDSWISH};

// Stride-1 planes with one row and column of padding on every side, which
// arm64 reads in place at 7 rows of 5 to 7 and 14 rows of 9 to 15: those
// widths and the ones around them, two images of an odd channel count (a
// thread's planes start and end inside an image's channels), every clamp
// kind with and without a bias, and hard-swish, which takes the bands.
TEST(DepthwiseConv3x3Test, PaddedPlanesReadInPlace) {
  int index = 0;
  for (int64_t h : {7, 14}) {
    for (int64_t w = h == 7 ? 4 : 8; w <= (h == 7 ? 8 : 16); ++w) {
      for (ActivationType activation : kInPlaceKinds) {
        Check(Params(2, 5, h, w, 1, 1, 1, 1, 1, 1, 1, activation), index % 3 != 0);
        ++index;
      }
    }
  }
}

// Stride-1 planes with one row and column of padding on every side, which
// arm64 reads in place at 4 rows or more of 17 to 256 (first steps from
// column 0, last steps of 8, 12 and 16 ending at the row's end, the last
// four-row pass overlapping the one before): output heights 4 to 9 and 14
// at widths 16 (the bands) to 33, 40, 44, 56 and 60, heights 4 and 5 at 112,
// two images of 3 channels, every clamp kind, with and without a bias.
TEST(DepthwiseConv3x3Test, WidePaddedPlanesReadInPlace) {
  std::vector<int64_t> widths = {40, 44, 56, 60, 112};
  for (int64_t w = 16; w <= 33; ++w) widths.push_back(w);
  int index = 0;
  for (int64_t h : {4, 5, 6, 7, 8, 9, 14}) {
    for (int64_t w : widths) {
      if (w == 112 && h > 5) continue;
      Check(Params(2, 3, h, w, 1, 1, 1, 1, 1, 1, 1, kInPlaceKinds[index % 4]), index % 3 != 0);
      ++index;
    }
  }
}

// Stride 2 with one row and column of padding on every side on inputs of
// even sizes, whose padding after the input no output reads (arm64 reads
// outputs of 4 rows or more of 8 or more in place), and on inputs one
// larger, where an output reads it: output heights 4 to 9 and 14 (the
// last four-row pass overlapping the one before), widths 8 to 17, 24, 28
// and 56 (the last 8-output step overlapping), two images of 3 channels,
// every clamp kind, with and without a bias.
TEST(DepthwiseConv3x3Test, StrideTwoReadInPlace) {
  int index = 0;
  for (int64_t out_h : {4, 5, 6, 7, 8, 9, 14}) {
    for (int64_t out_w : {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 24, 28, 56}) {
      const int64_t odd = index % 5 == 4 ? 1 : 0;
      Check(Params(2, 3, 2 * out_h + odd, 2 * out_w + odd, 1, 2, 2, 1, 1, 1, 1,
                   kInPlaceKinds[index % 4]),
            index % 3 != 0);
      ++index;
    }
  }
}

// Stride 2 to outputs narrower than 8, which arm64 reads in place at 7 rows
// of 4 to 7 (the 14->7 maps): those, the heights around them and widths 3
// and 8, on even and odd inputs, every clamp kind, with and without a bias.
TEST(DepthwiseConv3x3Test, StrideTwoNarrowReadInPlace) {
  int index = 0;
  for (int64_t out_h : {6, 7, 8}) {
    for (int64_t out_w : {3, 4, 5, 6, 7, 8}) {
      for (int64_t odd : {0, 1}) {
        Check(Params(2, 3, 2 * out_h + odd, 2 * out_w + odd, 1, 2, 2, 1, 1, 1, 1,
                     kInPlaceKinds[index % 4]),
              index % 3 != 0);
        ++index;
      }
    }
  }
}

// Band rows of more than 32 floats, copied in 128-byte steps and one more
// ending at the row's end (armv7): input widths below, at and above one,
// two and three steps, at both strides and paddings.
TEST(DepthwiseConv3x3Test, WideBandRows) {
  int index = 0;
  for (int64_t stride : {1, 2}) {
    for (int64_t w : {33, 63, 64, 65, 95, 96, 97, 112}) {
      const int64_t pad = index % 2, h = 4 + index % 3;
      Check(Params(1, 1 + index % 2, h, w, 1, stride, stride, pad, pad, pad, pad,
                   ActivationType::RELUX));
      ++index;
    }
  }
}

// Layers with enough planes for armv7's whole-plane path on every pool
// (at least 4 a thread): 13 channels, planes of one band at both strides
// and paddings, every clamp kind.
TEST(DepthwiseConv3x3Test, ManyWholePlanes) {
  constexpr ActivationType kClampKinds[] = {ActivationType::NOOP, ActivationType::RELU,
                                            ActivationType::RELUX};
  int index = 0;
  for (int64_t stride : {1, 2}) {
    for (int64_t size : {5, 7, 14}) {
      const int64_t pad = index % 2;
      Check(Params(1, 13, size, size + 2, 1, stride, stride, pad, pad, pad, pad,
                   kClampKinds[index % 3]));
      ++index;
    }
  }
}

// Layers whose planes armv7 runs through column walks worked out once
// (NeonDepthwise3x3Planes): at stride 1 widths below, at and above one
// vector and a pair of vectors, the ragged pair and a single column after
// the pairs, 7, 14 and 28; at stride 2 widths 4 to 9, 14 and 28; heights
// from the first that walks by columns; and shapes that go plane by plane
// (too few rows, 8 rows at stride 2, narrower than a vector, hard-swish).
// Odd plane counts (and a batch of 2), both paddings, every clamp kind.
TEST(DepthwiseConv3x3Test, PlanesThroughColumnWalks) {
  constexpr ActivationType kRotation[] = {ActivationType::RELUX, ActivationType::NOOP,
                                          ActivationType::RELU};
  int index = 0;
  for (int64_t out_w : {4, 5, 7, 8, 9, 11, 12, 13, 14, 17, 28}) {
    for (int64_t out_h : {5, 7, 14}) {
      const int64_t pad = index % 2, channels = 13 + 2 * (index % 3);
      const int64_t batch = 1 + index % 2;
      Check(Params(batch, channels, out_h + 2 - 2 * pad, out_w + 2 - 2 * pad, 1, 1, 1, pad, pad,
                   pad, pad, kRotation[index % 3]));
      ++index;
    }
  }
  for (int64_t out_w : {4, 5, 6, 7, 8, 9, 14, 28}) {
    for (int64_t out_h : {3, 7, 14}) {
      const int64_t pad = index % 2, channels = 13 + 2 * (index % 3);
      Check(Params(1, channels, (out_h - 1) * 2 + 3 - 2 * pad, (out_w - 1) * 2 + 3 - 2 * pad, 1,
                   2, 2, pad, pad, pad, pad, kRotation[index % 3]));
      ++index;
    }
  }
  Check(Params(1, 13, 4, 9, 1, 1, 1, 1, 1, 1, 1, ActivationType::RELUX));
  Check(Params(1, 13, 15, 17, 1, 2, 2, 1, 1, 1, 1, ActivationType::RELU));
  Check(Params(1, 13, 9, 3, 1, 1, 1, 1, 1, 1, 1, ActivationType::RELUX));
  Check(Params(1, 13, 9, 9, 1, 1, 1, 1, 1, 1, 1, ActivationType::HARDSWISH));
}

// Planes armv7 reads in place at stride 1 (one row and column of padding
// on every side; NeonDepthwise3x3PlanesInPlace): widths from the narrowest
// it takes (13) across one to three pairs of vectors, with and without a
// single column between the pairs, and 56, 111 and 112; heights 1 to 9
// (1 goes through bands); odd channel counts, a batch of 2, every clamp
// kind, with and without a bias; and neighbours it does not take (12
// wide, a multiplier of 2, padding 0 or only before, hard-swish).
TEST(DepthwiseConv3x3Test, PlanesReadInPlace) {
  constexpr ActivationType kRotation[] = {ActivationType::RELUX, ActivationType::NOOP,
                                          ActivationType::RELU};
  int index = 0;
  for (int64_t w = 12; w <= 40; ++w) {
    const int64_t h = 1 + index % 9, channels = 3 + 2 * (index % 2);
    Check(Params(1 + index % 2, channels, h, w, 1, 1, 1, 1, 1, 1, 1, kRotation[index % 3]),
          index % 4 != 3);
    ++index;
  }
  for (int64_t w : {13, 14, 28, 56, 111, 112}) {
    for (int64_t h = 1; h <= 9; ++h) {
      Check(Params(1, 1 + 2 * (index % 2), h, w, 1, 1, 1, 1, 1, 1, 1, kRotation[index % 3]));
      ++index;
    }
  }
  Check(Params(1, 3, 6, 20, 2, 1, 1, 1, 1, 1, 1, ActivationType::RELUX));
  Check(Params(1, 3, 6, 20, 1, 1, 1, 0, 0, 0, 0, ActivationType::RELU));
  Check(Params(1, 3, 6, 20, 1, 1, 1, 1, 1, 0, 0, ActivationType::RELUX));
  Check(Params(1, 3, 6, 20, 1, 1, 1, 1, 1, 1, 1, ActivationType::HARDSWISH));
}

// Planes armv7 reads in place at stride 2 (one row and column of padding
// before the input, none read after it): output widths from one vector
// (3 goes through bands) across the first pair and one to three columns
// after it, 28 and 56; heights 1 to 9; even and odd input sizes (the
// padding after an odd one is never read); odd channel counts, a batch of
// 2, every clamp kind, with and without a bias; and an input one row
// short (its last output row reads the padding after it: bands).
TEST(DepthwiseConv3x3Test, StrideTwoPlanesReadInPlace) {
  constexpr ActivationType kRotation[] = {ActivationType::RELU, ActivationType::RELUX,
                                          ActivationType::NOOP};
  int index = 0;
  for (int64_t out_w = 3; out_w <= 21; ++out_w) {
    const int64_t out_h = 1 + index % 9, odd_h = index % 2, odd_w = index / 2 % 2;
    Check(Params(1 + index % 2, 3 + 2 * (index % 2), 2 * out_h + odd_h, 2 * out_w + odd_w, 1, 2,
                 2, 1, 1, 1 - odd_h, 1 - odd_w, kRotation[index % 3]),
          index % 4 != 3);
    ++index;
  }
  for (int64_t out_w : {7, 8, 14, 28, 56}) {
    for (int64_t out_h = 1; out_h <= 9; ++out_h) {
      const int64_t odd = index % 2;
      Check(Params(1, 1 + 2 * odd, 2 * out_h + odd, 2 * out_w + odd, 1, 2, 2, 1, 1, 1 - odd,
                   1 - odd, kRotation[index % 3]));
      ++index;
    }
  }
  Check(Params(1, 3, 9, 16, 1, 2, 2, 1, 1, 1, 1, ActivationType::RELUX));
}

// Pads of 2 and more leave outputs whose whole window is padding, and some
// shapes read no input row or column at all.
TEST(DepthwiseConv3x3Test, OutputsThatReadOnlyPadding) {
  for (int64_t stride : {1, 2}) {
    for (int64_t size : {1, 2, 3, 4, 9}) {
      Check(Params(1, 2, size, size, 2, stride, stride, 3, 3, 3, 3, ActivationType::RELU));
      Check(Params(1, 2, size, size + 1, 1, stride, stride, 2, 4, 0, 1, ActivationType::NOOP));
    }
  }
  Check(Params(1, 2, 1, 1, 1, 2, 2, 3, 3, 0, 0, ActivationType::NOOP));
}

TEST(DepthwiseConv3x3Test, OpRunsWithAndWithoutARuntime) {
  const ref::DepthwiseConv2dParams p =
      Params(1, 6, 11, 19, 2, 2, 2, 1, 1, 1, 1, ActivationType::RELU);
  const std::vector<float> input = RandomFloats(6 * 11 * 19, 51);
  const std::vector<float> filter = RandomFloats(2 * 6 * 9, 52);
  const std::vector<float> bias = RandomFloats(12, 53);
  std::vector<float> expected(12 * p.out_h * p.out_w);
  ref::DepthwiseConv2d(p, input.data(), filter.data(), bias.data(), expected.data());
  // 0 runs the op with no runtime: one thread and scratch of its own.
  for (int threads : {0, 1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads);
    std::unique_ptr<testing::TestCpuRuntime> runtime;
    if (threads > 0) runtime = std::make_unique<testing::TestCpuRuntime>(threads);
    testing::OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
    tester.WithRuntime(runtime.get())
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
