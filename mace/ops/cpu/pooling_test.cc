// The fast pooling kernels against ref::Pooling: widths around the vector
// widths (4 and 8) and heights 1 to 5, 2x2 and 3x3 windows at every stride
// pair, no, symmetric, asymmetric and wide padding, floor and ceil output
// sizes, max and average with and without count_include_pad, global
// pooling, batches, channel counts and thread counts.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/pooling_kernel.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using ref::PoolingType;
using testing::ExpectNear;
using testing::RandomFloats;

// One axis: size, window, stride, pads and how the output size rounds.
int64_t OutputSize(int64_t size, int64_t kernel, int64_t stride, int64_t pad_begin, int64_t pad_end,
                   bool ceil_mode) {
  const int64_t span = size + pad_begin + pad_end - kernel;
  if (!ceil_mode) return span / stride + 1;
  // ONNX's ceil mode: a last window that starts in the end padding is dropped.
  int64_t out = (span + stride - 1) / stride + 1;
  if ((out - 1) * stride >= size + pad_begin) --out;
  return out;
}

struct Shape {
  int64_t batch = 1, channels = 1, h = 1, w = 1;
  int64_t kernel_h = 3, kernel_w = 3, stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool ceil_mode = false;
};

ref::PoolingParams Params(const Shape& s, PoolingType type, bool count_include_pad) {
  ref::PoolingParams p;
  p.type = type;
  p.batch = s.batch;
  p.channels = s.channels;
  p.in_h = s.h;
  p.in_w = s.w;
  p.kernel_h = s.kernel_h;
  p.kernel_w = s.kernel_w;
  p.stride_h = s.stride_h;
  p.stride_w = s.stride_w;
  p.pad_top = s.pad_top;
  p.pad_left = s.pad_left;
  p.pad_bottom = s.pad_bottom;
  p.pad_right = s.pad_right;
  p.out_h = OutputSize(s.h, s.kernel_h, s.stride_h, s.pad_top, s.pad_bottom, s.ceil_mode);
  p.out_w = OutputSize(s.w, s.kernel_w, s.stride_w, s.pad_left, s.pad_right, s.ceil_mode);
  p.count_include_pad = count_include_pad;
  return p;
}

// No pool, 2 and 3 threads; made once, since the tests below run thousands
// of shapes.
const std::vector<std::shared_ptr<ThreadPool>>& Pools() {
  static const std::vector<std::shared_ptr<ThreadPool>> pools = testing::PoolsUnderTest();
  return pools;
}

void Check(const ref::PoolingParams& p) {
  ASSERT_GE(p.out_h, 1);
  ASSERT_GE(p.out_w, 1);
  const std::vector<float> input = RandomFloats(p.batch * p.channels * p.in_h * p.in_w, 61);
  const int64_t out_size = p.batch * p.channels * p.out_h * p.out_w;
  std::vector<float> expected(out_size);
  ref::Pooling(p, input.data(), expected.data());
  for (const KernelTable* table : testing::TablesUnderTest()) {
    ASSERT_TRUE(PoolingKernel::Supports(*table, p));
    const PoolingKernel kernel(*table, p);
    for (const auto& pool : Pools()) {
      SCOPED_TRACE(::testing::Message()
                   << table->name << " threads " << NumThreads(pool.get()) << " "
                   << (p.type == PoolingType::MAX ? "max" : "avg")
                   << (p.count_include_pad ? " count_include_pad" : "") << " batch " << p.batch
                   << " channels " << p.channels << " " << p.in_h << "x" << p.in_w << " window "
                   << p.kernel_h << "x" << p.kernel_w << " stride " << p.stride_h << ","
                   << p.stride_w << " pads " << p.pad_top << "," << p.pad_left << ","
                   << p.pad_bottom << "," << p.pad_right << " out " << p.out_h << "x" << p.out_w);
      // Exactly the bytes asked for, and garbage in them: the kernel must
      // neither read past them nor rely on what they held.
      std::vector<float> scratch(kernel.ScratchBytes(NumThreads(pool.get())) / sizeof(float),
                                 std::nanf(""));
      std::vector<float> output(out_size, std::nanf(""));
      kernel.Run(input.data(), output.data(), pool.get(), scratch.data());
      if (p.type == PoolingType::MAX) {
        ExpectNear(output, expected, 0.f, 0.f);  // a maximum is exact
      } else {
        ExpectNear(output, expected, 1e-6f, 1e-5f);
      }
    }
  }
}

// Pads {before, after} of one axis.
enum class Padding { kNone, kOne, kSame, kAfterOnly };

void AxisPads(Padding padding, int64_t size, int64_t kernel, int64_t stride, int64_t* before,
              int64_t* after) {
  *before = *after = 0;
  if (padding == Padding::kOne) {
    *before = *after = 1;
  } else if (padding == Padding::kSame) {
    // TensorFlow's SAME: an odd total puts the extra one after.
    const int64_t out = (size + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((out - 1) * stride + kernel - size, 0);
    *before = total / 2;
    *after = total - *before;
  } else if (padding == Padding::kAfterOnly) {
    *after = 1;
  }
}

// Every width from 1 to 17 and 31 to 33 and every height from 1 to 5 at
// each window, stride pair and padding; type, count_include_pad, ceil mode,
// channels and batch rotate through the shapes.
TEST(PoolingKernelTest, SmallPlanesEveryWindowStrideAndPadding) {
  const int64_t channel_counts[] = {1, 2, 3, 17};
  int index = 0;
  for (int64_t kernel : {2, 3}) {
    for (int64_t stride_h : {1, 2}) {
      for (int64_t stride_w : {1, 2}) {
        for (Padding padding :
             {Padding::kNone, Padding::kOne, Padding::kSame, Padding::kAfterOnly}) {
          for (int64_t h = 1; h <= 5; ++h) {
            for (int64_t w = 1; w <= 33; w = w == 17 ? 31 : w + 1) {
              Shape s;
              s.kernel_h = s.kernel_w = kernel;
              s.stride_h = stride_h;
              s.stride_w = stride_w;
              s.h = h;
              s.w = w;
              AxisPads(padding, h, kernel, stride_h, &s.pad_top, &s.pad_bottom);
              AxisPads(padding, w, kernel, stride_w, &s.pad_left, &s.pad_right);
              if (h + s.pad_top + s.pad_bottom < kernel || w + s.pad_left + s.pad_right < kernel) {
                continue;
              }
              ++index;
              s.batch = 1 + index % 2;
              s.channels = channel_counts[index / 2 % 4];
              s.ceil_mode = index / 3 % 2 == 1;
              const PoolingType type = index % 3 == 0 ? PoolingType::MAX : PoolingType::AVG;
              Check(Params(s, type, index / 5 % 2 == 1));
            }
          }
        }
      }
    }
  }
}

TEST(PoolingKernelTest, EveryTypeOnTheSameShapes) {
  for (int64_t kernel : {2, 3}) {
    for (int64_t stride : {1, 2}) {
      for (bool ceil_mode : {false, true}) {
        Shape s;
        s.batch = 2;
        s.channels = 3;
        s.h = 9;
        s.w = 19;
        s.kernel_h = s.kernel_w = kernel;
        s.stride_h = s.stride_w = stride;
        s.pad_top = s.pad_left = 1;
        s.pad_bottom = 0;
        s.pad_right = 1;
        s.ceil_mode = ceil_mode;
        Check(Params(s, PoolingType::MAX, false));
        Check(Params(s, PoolingType::AVG, false));
        Check(Params(s, PoolingType::AVG, true));
      }
    }
  }
}

TEST(PoolingKernelTest, MixedWindowsAndStrides) {
  for (int64_t kernel_h : {2, 3}) {
    for (int64_t kernel_w : {2, 3}) {
      Shape s;
      s.channels = 3;
      s.h = 7;
      s.w = 12;
      s.kernel_h = kernel_h;
      s.kernel_w = kernel_w;
      s.stride_h = 2;
      s.stride_w = 1;
      s.pad_top = 1;
      s.pad_right = 1;
      s.ceil_mode = true;
      for (PoolingType type : {PoolingType::MAX, PoolingType::AVG}) {
        Check(Params(s, type, true));
        std::swap(s.stride_h, s.stride_w);
        Check(Params(s, type, false));
      }
    }
  }
}

// Pads as wide as the window and wider leave outputs whose window is all
// padding: max and average give 0 there, as the reference does.
TEST(PoolingKernelTest, WindowsOfOnlyPadding) {
  for (int64_t kernel : {2, 3}) {
    for (int64_t stride : {1, 2}) {
      for (int64_t size : {1, 2, 5, 9}) {
        Shape s;
        s.batch = 2;
        s.channels = 2;
        s.h = size;
        s.w = size + 1;
        s.kernel_h = s.kernel_w = kernel;
        s.stride_h = s.stride_w = stride;
        s.pad_top = s.pad_left = kernel;
        s.pad_bottom = kernel + 1;
        s.pad_right = 4;
        for (PoolingType type : {PoolingType::MAX, PoolingType::AVG}) {
          Check(Params(s, type, false));
          Check(Params(s, type, true));
        }
      }
    }
  }
}

// The zoo's pooling layers, smaller: SqueezeNet's 3x3 stride-2 ceil-mode max
// (no pads), ShuffleNet's and ResNet's 3x3 stride-2 max with pads of 1, and
// planes taller than a thread's share, so chunks start and end inside planes.
TEST(PoolingKernelTest, ZooShapes) {
  Shape squeeze;
  squeeze.channels = 5;
  squeeze.h = squeeze.w = 55;
  squeeze.stride_h = squeeze.stride_w = 2;
  squeeze.ceil_mode = true;
  Check(Params(squeeze, PoolingType::MAX, false));
  squeeze.h = squeeze.w = 27;
  Check(Params(squeeze, PoolingType::MAX, false));
  Shape shuffle;
  shuffle.channels = 3;
  shuffle.h = shuffle.w = 56;
  shuffle.stride_h = shuffle.stride_w = 2;
  shuffle.pad_top = shuffle.pad_left = shuffle.pad_bottom = shuffle.pad_right = 1;
  Check(Params(shuffle, PoolingType::MAX, false));
  Check(Params(shuffle, PoolingType::AVG, true));
  Shape tall;
  tall.h = 70;
  tall.w = 45;
  tall.kernel_h = tall.kernel_w = 2;
  tall.stride_h = tall.stride_w = 1;
  Check(Params(tall, PoolingType::AVG, false));
}

// 3x3 stride-2 max, which ARM computes straight from the input rows when
// at most one column of padding is on the left and the other windows lie
// inside the row: widths on both sides of that bound (2 * outputs + 1
// columns) and of the groups of 4 and 8 outputs (and of arm64's steps of
// 8, which read past a row's windows when the rows after them are in the
// input), with and without padding on each side, heights whose rows have
// full and padded windows, vertical stride 2 and 1.
TEST(PoolingKernelTest, MaxThreeByThreeStrideTwoAtEveryWidth) {
  int index = 0;
  for (int64_t w = 7; w <= 44; ++w) {
    for (int64_t pad_left : {0, 1}) {
      for (int64_t pad_right : {0, 1}) {
        Shape s;
        s.channels = 2;
        s.h = 3 + index % 4;
        s.w = w;
        s.stride_h = index % 3 == 2 ? 1 : 2;
        s.stride_w = 2;
        s.pad_top = s.pad_bottom = index % 2;
        s.pad_left = pad_left;
        s.pad_right = pad_right;
        s.ceil_mode = index / 2 % 2 == 1;
        ++index;
        Check(Params(s, PoolingType::MAX, false));
      }
    }
  }
}

TEST(PoolingKernelTest, GlobalPooling) {
  for (int64_t h : {1, 2, 7, 13}) {
    for (int64_t w : {1, 3, 7, 8, 13, 17, 33}) {
      Shape s;
      s.batch = 2;
      s.channels = h == 13 ? 17 : 3;
      s.h = h;
      s.w = w;
      s.kernel_h = h;
      s.kernel_w = w;
      for (PoolingType type : {PoolingType::MAX, PoolingType::AVG}) {
        const ref::PoolingParams p = Params(s, type, false);
        ASSERT_EQ(p.out_h * p.out_w, 1);
        // A global plane needs no scratch.
        for (const KernelTable* table : testing::TablesUnderTest()) {
          EXPECT_EQ(PoolingKernel(*table, p).ScratchBytes(3), 0);
        }
        Check(p);
      }
    }
  }
}

TEST(PoolingKernelTest, OtherWindowsStayWithTheReference) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    Shape s;
    s.h = s.w = 9;
    ref::PoolingParams p = Params(s, PoolingType::MAX, false);
    EXPECT_TRUE(PoolingKernel::Supports(*table, p));
    p.kernel_h = p.kernel_w = 5;
    EXPECT_FALSE(PoolingKernel::Supports(*table, p));  // 5x5
    p = Params(s, PoolingType::MAX, false);
    p.dilation_w = 2;
    EXPECT_FALSE(PoolingKernel::Supports(*table, p));  // dilated
    p = Params(s, PoolingType::MAX, false);
    p.stride_h = 3;
    EXPECT_FALSE(PoolingKernel::Supports(*table, p));  // stride 3
    p = Params(s, PoolingType::MAX, false);
    p.pad_right = kMaxPoolingPad + 1;
    EXPECT_FALSE(PoolingKernel::Supports(*table, p));  // padding beyond the line
  }
}

// Through the op, on runtimes of 1 to 3 threads and with none: the op picks
// the fast kernel for the window and the reference for the rest.
TEST(PoolingKernelTest, OpMatchesTheReferenceWithAndWithoutARuntime) {
  struct OpCase {
    int type;
    std::vector<int64_t> kernels, strides, pads;
    bool ceil_mode, count_include_pad, global;
  };
  const std::vector<OpCase> cases = {
      {2, {3, 3}, {2, 2}, {0, 0, 0, 0}, true, false, false},   // SqueezeNet
      {2, {3, 3}, {2, 2}, {1, 1, 1, 1}, false, false, false},  // ShuffleNet, ResNet
      {1, {2, 2}, {2, 2}, {0, 0, 1, 1}, true, true, false},
      {1, {3, 3}, {1, 1}, {1, 1, 1, 1}, false, true, false},
      {1, {5, 5}, {1, 1}, {2, 2, 2, 2}, false, false, false},  // reference
      {1, {}, {}, {}, false, false, true},
      {2, {}, {}, {}, false, false, true},
  };
  const std::vector<int64_t> shape = {2, 5, 13, 11};
  const std::vector<float> input = RandomFloats(2 * 5 * 13 * 11, 71);
  for (size_t i = 0; i < cases.size(); ++i) {
    const OpCase& c = cases[i];
    std::vector<float> expected;
    for (int threads : {0, 1, 2, 3}) {
      SCOPED_TRACE(::testing::Message() << "case " << i << " threads " << threads);
      std::unique_ptr<testing::TestCpuRuntime> runtime;
      if (threads > 0) runtime = std::make_unique<testing::TestCpuRuntime>(threads);
      testing::OpTester tester("Pooling", RegisterPooling);
      tester.WithRuntime(runtime.get())
          .Input("x", shape, input)
          .Output("y")
          .Arg("pooling_type", c.type);
      if (c.global) {
        tester.Arg("global", 1);
      } else {
        tester.Args("kernels", c.kernels)
            .Args("strides", c.strides)
            .Args("pads", c.pads)
            .Arg("ceil_mode", c.ceil_mode ? 1 : 0)
            .Arg("count_include_pad", c.count_include_pad ? 1 : 0);
      }
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      if (expected.empty()) {
        // The reference on the op's own output shape and arguments.
        const std::vector<int64_t> out_shape = tester.OutputShape("y");
        ref::PoolingParams p;
        p.type = static_cast<PoolingType>(c.type);
        p.batch = shape[0];
        p.channels = shape[1];
        p.in_h = shape[2];
        p.in_w = shape[3];
        p.out_h = out_shape[2];
        p.out_w = out_shape[3];
        p.kernel_h = c.global ? shape[2] : c.kernels[0];
        p.kernel_w = c.global ? shape[3] : c.kernels[1];
        if (!c.global) {
          p.stride_h = c.strides[0];
          p.stride_w = c.strides[1];
          p.pad_top = c.pads[0];
          p.pad_left = c.pads[1];
          p.pad_bottom = c.pads[2];
          p.pad_right = c.pads[3];
        }
        p.count_include_pad = c.count_include_pad;
        expected.resize(out_shape[0] * out_shape[1] * out_shape[2] * out_shape[3]);
        ref::Pooling(p, input.data(), expected.data());
      }
      ExpectNear(tester.OutputData("y"), expected, 1e-6f, 1e-5f);
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
