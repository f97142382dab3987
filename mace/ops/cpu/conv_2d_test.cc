// Fast Conv2D kernels against ref::Conv2D at tile and vector boundaries,
// with strides, padding, dilation, groups, fused activations and threads.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/conv_2d_direct.h"
#include "mace/ops/cpu/conv_2d_gemm.h"
#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/conv_2d_winograd.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"


namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::RandomFloats;

struct Shape {
  int64_t batch, in_c, h, w, out_c, kh, kw;
  int64_t stride_h = 1, stride_w = 1, dilation = 1, pad = 0, group = 1;
  int64_t dilation_w = 0;  // 0: the same as `dilation` (which is then the vertical one)
};

ref::Conv2DParams MakeParams(const Shape& s, ActivationType activation, float max_limit = 6.f) {
  ref::Conv2DParams p;
  p.batch = s.batch;
  p.in_channels = s.in_c;
  p.in_h = s.h;
  p.in_w = s.w;
  p.out_channels = s.out_c;
  p.kernel_h = s.kh;
  p.kernel_w = s.kw;
  p.stride_h = s.stride_h;
  p.stride_w = s.stride_w;
  p.dilation_h = s.dilation;
  p.dilation_w = s.dilation_w > 0 ? s.dilation_w : s.dilation;
  p.pad_top = p.pad_left = s.pad;
  p.group = s.group;
  p.out_h = (s.h + 2 * s.pad - ((s.kh - 1) * s.dilation + 1)) / s.stride_h + 1;
  p.out_w = (s.w + 2 * s.pad - ((s.kw - 1) * p.dilation_w + 1)) / s.stride_w + 1;
  p.activation.type = activation;
  p.activation.max_limit = max_limit;
  p.activation.alpha = 0.1f;
  return p;
}

// above_limit, if given, counts the outputs whose value before the
// activation is past max_limit (those a ReLUX clamps from above). Without
// with_bias the kernel and the reference get no bias (a null pointer).
void Check(const Shape& s, ActivationType activation, int winograd, float tolerance = 2e-5f,
           float max_limit = 6.f, int64_t* above_limit = nullptr, bool with_bias = true) {
  const ref::Conv2DParams p = MakeParams(s, activation, max_limit);
  const std::vector<float> input = RandomFloats(p.batch * p.in_channels * p.in_h * p.in_w, 21);
  const std::vector<float> filter =
      RandomFloats(p.out_channels * (p.in_channels / p.group) * p.kernel_h * p.kernel_w, 22);
  const std::vector<float> bias_values = RandomFloats(p.out_channels, 23);
  const float* bias = with_bias ? bias_values.data() : nullptr;
  const int64_t out_size = p.batch * p.out_channels * p.out_h * p.out_w;
  std::vector<float> expected(out_size);
  ref::Conv2D(p, input.data(), filter.data(), bias, expected.data());
  if (above_limit != nullptr) {
    ref::Conv2DParams plain = p;
    plain.activation.type = ActivationType::NOOP;
    std::vector<float> sums(out_size);
    ref::Conv2D(plain, input.data(), filter.data(), bias, sums.data());
    *above_limit = std::count_if(sums.begin(), sums.end(), [&](float v) { return v > max_limit; });
  }
  for (const KernelTable* table : testing::TablesUnderTest()) {
    std::vector<std::unique_ptr<Conv2dKernel>> kernels;
    // Winograd runs on every shape it supports here, not only where it pays.
    kernels.push_back(winograd != 0 && Conv2dWinograd::Supports(p)
                          ? std::make_unique<Conv2dWinograd>(*table, p, filter.data(), winograd)
                          : CreateConv2dKernel(*table, p, filter.data(), winograd));
    ASSERT_NE(kernels[0], nullptr);
    // Shapes the direct kernel takes run through im2col as well, so both
    // stay covered.
    if (winograd == 0 && Conv2dDirect::Supports(*table, p)) {
      EXPECT_STREQ(kernels[0]->name(), "direct_rows");
      kernels.push_back(std::make_unique<Conv2dGemm>(*table, p, filter.data()));
    }
    for (const auto& kernel : kernels) {
      for (auto& pool : testing::PoolsUnderTest()) {
        SCOPED_TRACE(::testing::Message()
                     << table->name << " " << kernel->name() << " threads "
                     << NumThreads(pool.get()) << " in " << s.in_c << "x" << s.h << "x" << s.w
                     << " out " << s.out_c << " k " << s.kh << "x" << s.kw << " stride "
                     << s.stride_h << "," << s.stride_w << " pad " << s.pad << " dilation "
                     << s.dilation << " group " << s.group << " act "
                     << static_cast<int>(activation) << (with_bias ? " bias" : " no bias"));
        std::vector<float> scratch(kernel->ScratchBytes(NumThreads(pool.get())) / 4 + 1);
        // Guard floats past the output: a store past its last row (a
        // clipped tile's lanes, a vector tail) must not reach them.
        constexpr int64_t kGuard = 64;
        constexpr float kGuardValue = -12345.f;
        std::vector<float> output(out_size + kGuard, std::nanf(""));
        std::fill(output.begin() + out_size, output.end(), kGuardValue);
        kernel->Run(input.data(), bias, output.data(), pool.get(), scratch.data());
        for (int64_t i = out_size; i < out_size + kGuard; ++i) {
          ASSERT_EQ(output[i], kGuardValue) << "written past the output at " << i - out_size;
        }
        output.resize(out_size);
        ExpectNear(output, expected, tolerance, tolerance);
      }
    }
  }
}

TEST(Conv2dKernelTest, PointwiseAroundTiles) {
  for (int64_t in_c : {1, 3, 8, 17}) {
    for (int64_t out_c : {1, 5, 6, 7, 8, 9, 13, 16, 17}) {
      for (auto hw : {std::pair<int64_t, int64_t>{1, 1}, {4, 4}, {3, 5}, {5, 7}, {9, 9}}) {
        Check({1, in_c, hw.first, hw.second, out_c, 1, 1}, ActivationType::NOOP, 0);
      }
    }
  }
}

// The GEMM paths at every table's tile and cache-block edges (each shape runs
// on every table): output channels (GEMM rows) around mr and mc, output
// pixels (columns) around nr and nc, and the reduction (input channels x
// taps) around kc.
TEST(Conv2dKernelTest, GemmAtEveryTablesTileAndBlockEdges) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr;
    const int64_t mc = table->mc, kc = table->kc, nc = table->nc;
    for (int64_t out_c : {mr - 1, mr, mr + 1}) {
      for (int64_t w : {nr - 1, nr, nr + 1}) {
        Check({1, 3, 1, w, out_c, 1, 1}, ActivationType::RELUX, 0);
        Check({1, 2, 2, w, out_c, 3, 3, 1, 1, 1, 1}, ActivationType::NOOP, 0);
      }
    }
    for (int64_t in_c : {kc - 1, kc, kc + 1}) {
      Check({1, in_c, 2, 3, mr + 1, 1, 1}, ActivationType::NOOP, 0, 1e-5f + 2e-6f * in_c);
    }
    // 3x3 im2col with a reduction of 9 x in_c just past kc.
    const int64_t in_c = kc / 9 + 1;
    Check({1, in_c, 4, 5, mr - 1, 3, 3, 1, 1, 1, 1}, ActivationType::HARDSWISH, 0,
          1e-5f + 2e-5f * in_c);
    for (int64_t out_c : {mc - 1, mc, mc + 1}) {
      Check({1, 2, 3, 3, out_c, 1, 1}, ActivationType::NOOP, 0);
    }
    for (int64_t w : {nc - 1, nc, nc + 1}) {
      Check({1, 2, 1, w, mr + 1, 1, 1}, ActivationType::RELU, 0);
    }
    Check({1, 2, 1, nc + 1, mr, 3, 3, 1, 1, 1, 1}, ActivationType::NOOP, 0);
    // Winograd's GEMMs: output channels around mr, tiles past nr.
    for (int tile : {2, 4}) {
      for (int64_t out_c : {mr - 1, mr + 1}) {
        Check({1, 3, 26, 18, out_c, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, tile, 5e-4f);
      }
    }
  }
}

TEST(Conv2dKernelTest, Im2colStridesPaddingDilation) {
  Check({1, 3, 9, 11, 8, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, 0);
  Check({2, 4, 10, 9, 7, 3, 3, 2, 2, 1, 1}, ActivationType::NOOP, 0);
  Check({1, 5, 11, 13, 6, 3, 3, 1, 1, 2, 2}, ActivationType::RELUX, 0);
  Check({1, 3, 12, 10, 17, 5, 3, 2, 1, 1, 2}, ActivationType::HARDSWISH, 0);
  Check({1, 16, 7, 7, 16, 1, 1, 2, 2, 1, 0}, ActivationType::NOOP, 0);
  Check({1, 2, 6, 20, 5, 7, 7, 1, 1, 1, 3}, ActivationType::NOOP, 0);
  Check({1, 3, 4, 4, 4, 3, 3, 1, 1, 1, 0}, ActivationType::NOOP, 0);  // a single output pixel
}

// The im2col packer splits each panel at output row ends and copies the
// columns inside the image apart from those in the padding: rows narrower
// and wider than a panel (which then starts mid-row), strides with a
// remainder, and padding wide enough that whole runs of a tap fall in it.
TEST(Conv2dKernelTest, Im2colRunsAndBorders) {
  for (int64_t stride : {1, 2, 3}) {
    for (int64_t w : {5, 33, 70}) {
      for (int64_t pad : {0, 2, 4}) {
        Check({1, 2, 5, w, 3, 3, 3, stride, stride, 1, pad}, ActivationType::NOOP, 0);
      }
    }
  }
  // Undilated convs at horizontal stride 1 or 2 pack from a padded copy
  // (at stride 2 with even and odd columns split): odd and even widths,
  // vertical stride 1, and batches and groups (one copy per image and group).
  Check({1, 3, 7, 9, 5, 3, 3, 1, 2, 1, 1}, ActivationType::NOOP, 0);
  Check({1, 3, 8, 10, 5, 3, 3, 1, 2, 1, 0}, ActivationType::NOOP, 0);
  Check({2, 8, 9, 11, 12, 3, 3, 2, 2, 1, 1, 4}, ActivationType::RELU, 0);
  Check({2, 6, 8, 9, 4, 3, 3, 1, 1, 1, 1, 2}, ActivationType::NOOP, 0);
  // A stem-like 7x7, then dilation with unequal strides (from the image).
  Check({1, 3, 23, 37, 9, 7, 7, 2, 2, 1, 3}, ActivationType::RELU, 0);
  Check({1, 2, 9, 40, 5, 3, 3, 1, 3, 2, 3}, ActivationType::NOOP, 0);
  // Horizontal stride 2 with only vertical dilation: the column-split copy.
  Check({1, 3, 11, 13, 5, 3, 3, 1, 2, 2, 1, 1, 1}, ActivationType::NOOP, 0);
  Check({2, 4, 12, 10, 6, 3, 3, 2, 2, 3, 2, 2, 1}, ActivationType::RELU, 0);
}

// The direct kernel's padded copy and B rows: stems (3 channels, 3x3 and
// 7x7, stride 2) and shallow 3x3 and 1x1 strided layers, output widths
// around a tile (every table's nr) so B rows end in the copy's margin,
// paddings from none to wider than the taps' reach, unequal strides, odd
// input widths (the even and odd column halves differ in length), output
// channels around mr, and a reduction at kc exactly.
TEST(Conv2dKernelTest, DirectRowsAtEdges) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr;
    for (int64_t stride : {1, 2}) {
      // A row's last tile 11, 12, 1, 4, 6, 8 or 3 columns wide at arm64's
      // nr of 12 (its 4- and 8-column edge tiles, on mr + 1 channels
      // straight to C or staged).
      for (int64_t out_w : {nr - 1, nr, nr + 1, nr + 4, nr + 6, nr + 8, 2 * nr + 3}) {
        const int64_t w = (out_w - 1) * stride + 3 - 2;  // pad 1
        Check({1, 3, 5, w, mr + 1, 3, 3, stride, stride, 1, 1}, ActivationType::RELUX, 0);
      }
    }
    for (int64_t pad : {0, 1, 3, 4}) {
      Check({1, 3, 17, 29, 2 * mr - 1, 7, 7, 2, 2, 1, pad}, ActivationType::RELU, 0);
      Check({1, 3, 9, 14, mr, 3, 3, 2, 2, 1, pad}, ActivationType::HARDSWISH, 0);
    }
    // Hard-swish on rows of whole tiles, which arm64's runs of tiles leave
    // to the staged tile.
    Check({1, 3, 3, 2 * nr + 1, mr, 3, 3, 1, 1, 1, 1}, ActivationType::HARDSWISH, 0);
    // 7-tap kernel rows at stride 1 too (armv7 walks a kernel row's taps by
    // fixed steps at both strides).
    Check({1, 2, 9, 12, mr + 1, 7, 7, 1, 1, 1, 3}, ActivationType::RELUX, 0);
    Check({1, 4, 11, 13, 5, 3, 3, 3, 1, 1, 1}, ActivationType::NOOP, 0);
    Check({1, 4, 11, 13, 5, 3, 3, 1, 2, 1, 2}, ActivationType::LEAKYRELU, 0);
    Check({1, 5, 6, 8, 7, 1, 1, 1, 1, 1, 1}, ActivationType::NOOP, 0);  // a padded 1x1
    // Reductions of 2, 3, 9 and 18 taps: every tail of a kernel that takes
    // up to four taps a loop.
    for (int64_t in_c : {2, 3}) {
      Check({1, in_c, 6, 8, mr, 1, 1, 1, 1, 1, 1}, ActivationType::RELU, 0);
    }
    for (int64_t in_c : {1, 2}) {
      Check({1, in_c, 6, 15, mr, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, 0);
    }
    const int64_t in_c = table->kc / 9;                                 // 9 * in_c <= kc: direct
    Check({1, in_c, 6, 9, mr + 3, 3, 3, 1, 1, 1, 1}, ActivationType::NOOP, 0, 1e-5f + 2e-5f * in_c);
  }
}

// Last output channel tiles of 1 to mr - 1 rows (3x3 stems with 64 and 32
// channels leave 4 and 2 at armv7's mr of 6, which runs them on 4- and
// 2-row tiles), alone and after a whole tile, at 3- and 7-tap kernel rows
// of 3 channels: rows of one to three whole column tiles (which armv7 runs
// in one call) and a partial one, strides 1 and 2, with and without
// padding, bias with ReLU, ReLU6 or nothing after it.
TEST(Conv2dKernelTest, DirectRowsLastChannelTiles) {
  const ActivationType activations[] = {ActivationType::RELU, ActivationType::RELUX,
                                        ActivationType::NOOP};
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr;
    int index = 0;
    for (int64_t tail = 1; tail < mr; ++tail) {
      for (int64_t out_c : {tail, mr + tail}) {
        for (int64_t k : {3, 7}) {
          const int64_t stride = 1 + index % 2;
          const int64_t pad = index / 2 % 2 == 0 ? k / 2 : 0;
          const int64_t out_w = index % 3 == 0 ? nr + 1 : index % 3 == 1 ? 3 * nr : 2 * nr + 3;
          const int64_t w = (out_w - 1) * stride + k - 2 * pad;
          const int64_t h = stride + k - 2 * pad;  // two output rows
          Check({1, 3, h, w, out_c, k, k, stride, stride, 1, pad}, activations[index / 2 % 3], 0);
          ++index;
        }
      }
    }
  }
}

// 27-deep stems (3 channels, 3x3) as runs of whole tiles, which arm64
// walks with the 9 repeating steps held in registers: both strides, with
// and without padding, each clamp (none, below, both sides), output
// channels of a whole tile and 3 more; two whole tiles and a partial one a
// row, of 4 columns (which arm64 runs with the whole tiles) or 5.
TEST(Conv2dKernelTest, DirectRowsStemRuns) {
  const ActivationType activations[] = {ActivationType::RELU, ActivationType::RELUX,
                                        ActivationType::NOOP};
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr;
    int index = 0;
    for (ActivationType activation : activations) {
      for (int64_t stride : {1, 2}) {
        const int64_t pad = index / 3 % 2;
        const int64_t out_w = 2 * nr + 4 + index / 2 % 2;
        const int64_t w = (out_w - 1) * stride + 3 - 2 * pad;
        const int64_t h = stride + 3 - 2 * pad;  // two output rows
        Check({1, 3, h, w, mr + 3 * (index % 2), 3, 3, stride, stride, 1, pad}, activation, 0);
        ++index;
      }
    }
    // Rows ending 1 to 3 columns past the whole tiles (SqueezeNet 1.1's 111
    // = 9 x 12 + 3), which arm64 also runs with them, staged.
    for (int64_t rest = 1; rest <= 3; ++rest) {
      const int64_t stride = rest == 2 ? 1 : 2, pad = rest == 3 ? 1 : 0;
      const int64_t out_w = 2 * nr + rest;
      const int64_t w = (out_w - 1) * stride + 3 - 2 * pad;
      Check({1, 3, stride + 3 - 2 * pad, w, mr + 3 * (rest % 2), 3, 3, stride, stride, 1, pad},
            activations[rest - 1], 0);
    }
  }
}

// The stems' runs (and the other direct runs from a widened bias: 2 and 4
// channels) with a ReLUX cap of 0.5, which many outputs pass: random
// inputs rarely reach ReLU6's 6, so its upper clamp went untested. Both
// strides, with and without padding, two whole tiles and a partial one of
// 4 or 5 columns a row, output channels of a whole tile and 3 more.
TEST(Conv2dKernelTest, DirectRowsRunsUpperClamp) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int64_t mr = table->mr, nr = table->nr;
    int index = 0;
    for (int64_t in_c : {3, 2, 4}) {
      for (int64_t stride : {1, 2}) {
        for (int64_t pad : {0, 1}) {
          const int64_t out_w = 2 * nr + 4 + pad;
          const int64_t w = (out_w - 1) * stride + 3 - 2 * pad;
          const int64_t h = stride + 3 - 2 * pad;  // two output rows
          const int64_t out_c = mr + 3 * (index++ % 2);
          int64_t above = 0;
          Check({1, in_c, h, w, out_c, 3, 3, stride, stride, 1, pad}, ActivationType::RELUX, 0,
                2e-5f, 0.5f, &above);
          EXPECT_GT(above, out_c * 2 * out_w / 8) << "in " << in_c << " stride " << stride;
        }
      }
    }
  }
}

// The direct tile kernels on their own: B rows at scattered offsets (steps
// up and down, as a stride-2 stem's column phases make them), every tail of
// the reduction, whole and edge tiles, bias and clamp, with the offsets and
// (where the table has it) the stepped form against a plain sum.
TEST(Conv2dKernelTest, ConvRowsKernelsMatchPlainSums) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const int mr = table->mr, nr = table->nr;
    const int64_t pool = 700;
    const std::vector<float> image = RandomFloats(pool + nr, 31);
    const std::vector<float> bias = RandomFloats(mr, 32);
    for (int64_t kc : {1, 2, 3, 4, 5, 7, 8, 27, 147}) {
      const std::vector<float> a = RandomFloats(kc * mr, 33);
      std::vector<int64_t> offsets(kc);
      for (int64_t k = 0; k < kc; ++k) offsets[k] = (k * 389 + 17 * (k % 3)) % pool;
      std::vector<int64_t> steps(kc);
      ConvRowSteps(offsets.data(), kc, steps.data());
      for (int rows : {mr, mr - 3}) {
        for (int cols : {nr, nr - 1, 8, 4, 3, 1}) {
          if (cols < 1 || cols > nr) continue;
          for (int activation : {kTileActNone, kTileActClamp}) {
            TileEpilogue epilogue;
            epilogue.row_bias = bias.data();
            epilogue.activation = activation;
            epilogue.lo = 0.f;
            epilogue.hi = activation == kTileActClamp ? 0.5f : 0.f;
            std::vector<float> expected(rows * cols);
            for (int i = 0; i < rows; ++i) {
              for (int j = 0; j < cols; ++j) {
                double sum = bias[i];
                for (int64_t k = 0; k < kc; ++k) {
                  sum += static_cast<double>(a[k * mr + i]) * image[offsets[k] + j];
                }
                float v = static_cast<float>(sum);
                if (activation == kTileActClamp) v = std::min(std::max(v, 0.f), 0.5f);
                expected[i * cols + j] = v;
              }
            }
            SCOPED_TRACE(::testing::Message() << table->name << " kc " << kc << " rows " << rows
                                              << " cols " << cols << " act " << activation);
            const int64_t ldc = nr + 5;
            std::vector<float> c(rows * ldc, -7.f);
            table->conv_rows(kc, a.data(), image.data(), offsets.data(), c.data(), ldc, rows, cols,
                             epilogue);
            std::vector<float> got(rows * cols);
            for (int i = 0; i < rows; ++i) {
              for (int j = 0; j < cols; ++j) got[i * cols + j] = c[i * ldc + j];
              for (int j = cols; j < ldc; ++j) EXPECT_EQ(c[i * ldc + j], -7.f);
            }
            ExpectNear(got, expected, 1e-4f, 1e-4f);
            if (table->conv_rows_stepped == nullptr) continue;
            std::fill(c.begin(), c.end(), -7.f);
            table->conv_rows_stepped(kc, a.data(), image.data() + offsets[0], steps.data(),
                                     c.data(), ldc, rows, cols, epilogue);
            for (int i = 0; i < rows; ++i) {
              for (int j = 0; j < cols; ++j) got[i * cols + j] = c[i * ldc + j];
              for (int j = cols; j < ldc; ++j) EXPECT_EQ(c[i * ldc + j], -7.f);
            }
            ExpectNear(got, expected, 1e-4f, 1e-4f);
          }
        }
      }
    }
  }
}

// Unpadded 1x1 convs at stride > 1 run as a 1x1 GEMM over a subsampled
// copy: odd and even sizes (the last row and column read or not), unequal
// strides, batches, groups, and tile edges in both GEMM dimensions.
TEST(Conv2dKernelTest, StridedPointwise) {
  const Shape shapes[] = {{2, 16, 9, 9, 24, 1, 1, 2, 2},        {1, 5, 8, 10, 7, 1, 1, 2, 2},
                          {1, 3, 11, 7, 9, 1, 1, 3, 1},         {1, 6, 7, 12, 17, 1, 1, 1, 2},
                          {1, 33, 14, 14, 40, 1, 1, 2, 2},      {1, 8, 5, 23, 6, 1, 1, 2, 3},
                          {2, 12, 6, 6, 8, 1, 1, 2, 2, 1, 0, 2}};
  for (const Shape& s : shapes) {
    ASSERT_TRUE(Conv2dGemm::IsStridedPointwise(MakeParams(s, ActivationType::NOOP)));
    Check(s, ActivationType::RELUX, 0);
  }
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const ref::Conv2DParams p = MakeParams({1, 16, 9, 9, 24, 1, 1, 2, 2}, ActivationType::NOOP);
    const std::vector<float> filter(24 * 16, 0.5f);
    EXPECT_STREQ(CreateConv2dKernel(*table, p, filter.data(), 0)->name(), "gemm_1x1_strided");
  }
  // Padding (or a stride-1 1x1) is not this path.
  EXPECT_FALSE(Conv2dGemm::IsStridedPointwise(
      MakeParams({1, 5, 6, 8, 7, 1, 1, 2, 2, 1, 1}, ActivationType::NOOP)));
  EXPECT_FALSE(
      Conv2dGemm::IsStridedPointwise(MakeParams({1, 5, 6, 8, 7, 1, 1}, ActivationType::NOOP)));
}

TEST(Conv2dKernelTest, GroupsAndDepthwiseAsConv) {
  Check({1, 8, 7, 9, 12, 3, 3, 1, 1, 1, 1, 4}, ActivationType::RELU, 0);
  Check({2, 6, 5, 5, 6, 1, 1, 1, 1, 1, 0, 2}, ActivationType::NOOP, 0);
  for (int64_t stride : {1, 2}) {
    for (int64_t w : {7, 8, 9, 17, 19}) {
      Check({1, 5, 6, w, 5, 3, 3, stride, stride, 1, 1, 5}, ActivationType::RELUX, 0);
    }
  }
}

TEST(Conv2dKernelTest, ActivationsFusedOrNot) {
  for (ActivationType activation :
       {ActivationType::NOOP, ActivationType::RELU, ActivationType::RELUX,
        ActivationType::HARDSWISH, ActivationType::LEAKYRELU, ActivationType::SIGMOID,
        ActivationType::TANH}) {
    Check({1, 4, 6, 7, 7, 3, 3, 1, 1, 1, 1}, activation, 0);
    Check({1, 4, 6, 7, 7, 1, 1}, activation, 0);
    Check({1, 4, 6, 7, 7, 3, 3, 1, 1, 1, 1}, activation, 2, 1e-4f);
  }
}

// The tolerance grows with the tile: rounding errors of the GEMM's sums are
// scaled back up by A^T on both sides, whose largest row sums of magnitudes
// are 3, 19 and 67 for F(2x2), F(4x4) and F(6x6) (and B^T's 2, 10 and 19
// scale the inputs those sums round). In float64 simulations of these
// shapes F(6x6)'s worst error was 1.2-2x F(4x4)'s and its median 2-3x;
// its bound here is 4x.
float WinogradTolerance(int tile) { return tile == 2 ? 1e-4f : tile == 4 ? 5e-4f : 2e-3f; }

// One test per tile size, so that the test's shards split the three (under
// qemu this is most of the test's time).
class Conv2dWinogradTest : public ::testing::TestWithParam<int> {};

TEST_P(Conv2dWinogradTest, MatchesReference) {
  const int tile = GetParam();
  const float tolerance = WinogradTolerance(tile);
  for (int64_t pad : {0, 1}) {
    const std::pair<int64_t, int64_t> sizes[] = {{3, 3},   {6, 6}, {7, 5},   {9, 12},
                                                 {14, 11}, {8, 8}, {13, 13}, {27, 29}};
    for (auto hw : sizes) {
      Check({1, 5, hw.first, hw.second, 7, 3, 3, 1, 1, 1, pad}, ActivationType::RELU, tile,
            tolerance);
    }
  }
  Check({2, 17, 10, 10, 13, 3, 3, 1, 1, 1, 1}, ActivationType::HARDSWISH, tile, tolerance);
  // Square maps from 5 to 15 and SqueezeNet 1.1's 27 and 55: groups of four
  // tiles that cross tile rows or end in a tile the image's edge cuts
  // (arm64 stores those tile by tile from the registers), with and without
  // a fused ReLU, odd channel counts.
  for (int64_t hw : {5, 10, 11, 12, 15, 27, 55}) {
    Check({1, 3, hw, hw, 5, 3, 3, 1, 1, 1, hw == 55 ? 0 : 1},
          hw % 2 != 0 ? ActivationType::RELU : ActivationType::NOOP, tile, tolerance);
  }
  // Tile rows longer than one transform run (64 tiles), split across panels.
  Check({1, 3, 5, 2 * 70 * tile + 3, 9, 3, 3, 1, 1, 1, 1}, ActivationType::RELUX, tile, tolerance);
  // Several L2-sized blocks per image, each with a partial last panel.
  Check({1, 40, 41, 43, 24, 3, 3, 1, 1, 1, 1}, ActivationType::NOOP, tile, 4 * tolerance);
  // Input channels past one reduction block (kc): accumulation in the GEMM.
  Check({1, 300, 6, 9, 10, 3, 3, 1, 1, 1, 0}, ActivationType::NOOP, tile, 8 * tolerance);
  // Maps whose last panel of tiles is at most 4 wide (at F(4x4): 7x7 is
  // 4 tiles, 14x14 12 + 4), which arm64 and armv7 run two output-channel
  // micro-tiles at a time: an even and odd number of them, a partial
  // last one, every tail of the reduction, and two reduction blocks.
  for (int64_t hw : {7, 14}) {
    for (int64_t out_c : {16, 17, 24}) {
      for (int64_t in_c : {7, 19}) {
        Check({1, in_c, hw, hw, out_c, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, tile,
              2 * tolerance);
      }
    }
    Check({1, 300, hw, hw, 40, 3, 3, 1, 1, 1, 1}, ActivationType::NOOP, tile, 8 * tolerance);
  }
  // The other tails of the pairs' reduction (1 and 2 depths past whole
  // units of 4, and fewer depths than a unit), with a lone last micro-tile.
  for (int64_t in_c : {2, 5, 6}) {
    Check({1, in_c, 7, 7, 17, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, tile, 2 * tolerance);
  }
  // Reduction depths of exactly 4, 8 and 16 (SqueezeNet 1.1's 55x55 layers
  // are 16 deep) over a whole panel of tiles and a last one of 4: arm64
  // starts such a tile with its first four steps' products.
  for (int64_t in_c : {4, 8, 16}) {
    Check({1, in_c, 4 * tile, 4 * tile, 9, 3, 3, 1, 1, 1, 1}, ActivationType::NOOP, tile,
          tolerance);
  }
  // Activations the transform cannot fuse run as a pass afterwards.
  Check({1, 6, 9, 9, 5, 3, 3, 1, 1, 1, 1}, ActivationType::LEAKYRELU, tile, tolerance);
  Check({1, 6, 9, 9, 5, 3, 3, 1, 1, 1, 1}, ActivationType::SIGMOID, tile, tolerance);
  // Output channels around the filter transform's chunk of 16 and a
  // single one; a single input channel.
  for (int64_t out_c : {1, 15, 16, 17, 33}) {
    Check({1, 3, 7, 8, out_c, 3, 3, 1, 1, 1, 1}, ActivationType::NOOP, tile, tolerance);
  }
  Check({1, 1, 8, 7, 16, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, tile, tolerance);
  // Last panels of 1 to 5 tiles past 0 or 1 whole panels of 8 (armv7
  // runs those of at most 4 as narrower GEMM tiles), odd channel counts,
  // and with input channels past one reduction block.
  for (int64_t tiles_w : {1, 2, 3, 4, 5, 9, 12, 13}) {
    Check({1, 7, tile, tiles_w * tile, 13, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, tile,
          tolerance);
  }
  Check({1, 300, 2 * tile, 2 * tile - 1, 7, 3, 3, 1, 1, 1, 1}, ActivationType::NOOP, tile,
        8 * tolerance);
  // ResNet-18's 28x28 maps: 25 tiles at F(6x6) and 49 at F(4x4), each a
  // last panel of one tile after whole ones (armv7 runs its column alone),
  // over pairs of micro-tiles and a lone last one.
  Check({1, 19, 28, 28, 17, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, tile, 2 * tolerance);
  // 64 input channels and more, which armv7 writes into V as panels of 4
  // tiles (a 6 x 8 tile's halves each on its own): whole panels of 8 and
  // last ones of 1 to 7 tiles, over one micro-tile, a pair and a lone last
  // one; whole 64-depth passes (64, 128) and not (68, and 300: two
  // reduction blocks, the second 44 deep); ResNet-18's map sizes with pads.
  for (int64_t in_c : {64, 68, 128}) {
    for (int64_t tiles_w : {1, 3, 4, 5, 7, 8, 9, 12, 15}) {
      Check({1, in_c, tile, tiles_w * tile, in_c == 68 ? 6 : 17, 3, 3, 1, 1, 1, 1},
            ActivationType::RELU, tile, 4 * tolerance);
    }
  }
  for (int64_t hw : {7, 14, 28, 56}) {
    Check({1, 64, hw, hw, 7, 3, 3, 1, 1, 1, hw == 56 ? 0 : 1}, ActivationType::RELU, tile,
          4 * tolerance);
  }
  Check({1, 300, 2 * tile + 1, 9 * tile - 1, 13, 3, 3, 1, 1, 1, 1}, ActivationType::NOOP, tile,
        8 * tolerance);
  // Pairs of micro-tiles over a last panel of 1 to 3 tiles (arm64 runs
  // them by column) with two reduction blocks, and a lone last one.
  for (int64_t tiles_w : {1, 2, 3}) {
    Check({1, 300, tile, tiles_w * tile, 17, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, tile,
          8 * tolerance);
  }
  // Every right-edge shift of the input transform's column vectors (1 to
  // 3 columns past the row, or wholly past it) and rows narrower than a
  // vector, with and without padding.
  for (int64_t w : {1, 2, 4, 5, 6, 7, 10, 11}) {
    for (int64_t pad : {0, 1}) {
      if (w + 2 * pad < 3) continue;
      Check({1, 4, 5, w, 6, 3, 3, 1, 1, 1, pad}, ActivationType::RELU, tile, tolerance);
    }
  }
  // Pads of 2 and 3: left-edge shifts of 2 and 3 columns.
  for (int64_t w : {5, 10}) {
    for (int64_t pad : {2, 3}) {
      Check({1, 4, 5, w, 6, 3, 3, 1, 1, 1, pad}, ActivationType::RELU, tile, tolerance);
    }
  }
  // Groups of four tiles in one tile row whose last tile the right edge
  // cuts to each width from 1 to tile - 1 (armv7 stores those rows
  // straight out, lane by lane), some with rows cut at the bottom.
  for (int64_t cut = 1; cut < tile; ++cut) {
    Check({1, 5, 2 * tile + 1, 4 * tile - cut, 6, 3, 3, 1, 1, 1, 1},
          cut % 2 != 0 ? ActivationType::RELU : ActivationType::RELUX, tile, tolerance);
    Check({1, 5, tile + 2, 8 * tile - cut, 6, 3, 3, 1, 1, 1, 0}, ActivationType::NOOP, tile,
          tolerance);
  }
  // Rows of 5 to 7 tiles, the last cut to every width: a group's tiles at
  // a row's end of each width from 1 to 3 tiles, alone (the last tile row)
  // or followed in the group by the next row's first tiles (into a whole
  // tile row or one the bottom edge cuts), which armv7 stores straight
  // out, with each activation the transform fuses.
  const ActivationType fused[] = {ActivationType::RELU, ActivationType::RELUX,
                                  ActivationType::NOOP};
  for (int64_t width = 1; width <= 3 * tile; ++width) {
    Check({1, 3, 2 * tile + 1, 4 * tile + width, 5, 3, 3, 1, 1, 1, 1}, fused[width % 3], tile,
          tolerance);
  }
  // Input channels taken a run at a time and output channels a group of
  // micro-tiles at a time (armv7 makes one call for them all), over rows
  // of the padding (pads 0 to 2) and output channels past whole
  // micro-tiles, with and without a bias.
  for (int64_t pad : {0, 1, 2}) {
    Check({1, 9, 11, 13, 13, 3, 3, 1, 1, 1, pad}, ActivationType::RELU, tile, tolerance);
    Check({1, 9, 11, 13, 13, 3, 3, 1, 1, 1, pad}, ActivationType::NOOP, tile, tolerance, 6.f,
          nullptr, /*with_bias=*/false);
  }
  // Output channels of a pair of micro-tiles (16) and of a pair and a
  // partial one (19) in one run (arm64 too: each group of four tiles in
  // turn for all of them), on SqueezeNet 1.1's 13x13 and 27x27 maps, whose
  // groups are cut at the right and bottom edges and cross tile rows and
  // panels, with and without a bias, ReLU and none.
  for (int64_t hw : {13, 27}) {
    for (int64_t out_c : {16, 19}) {
      const Shape s{1, 5, hw, hw, out_c, 3, 3, 1, 1, 1, 1};
      Check(s, out_c == 16 ? ActivationType::RELU : ActivationType::NOOP, tile, tolerance);
      Check(s, out_c == 16 ? ActivationType::NOOP : ActivationType::RELU, tile, tolerance, 6.f,
            nullptr, /*with_bias=*/false);
    }
  }
  // Rows of 5 tiles over 8 tile rows: groups of four whose tiles cross a
  // panel's end (of 8 lanes) with 1, 2 or 3 lanes left in it, and last
  // groups of one tile that fit the panel but whose vector crosses it
  // (armv7 splits both kinds' stores in its assembly).
  Check({1, 3, 8 * tile, 5 * tile - 1, 5, 3, 3, 1, 1, 1, 1}, ActivationType::RELU, tile,
        tolerance);
  // Rows wide enough that chunks read the input in place, with a last
  // chunk of 1 to 4 tiles at the right edge (near the edge staged).
  for (int64_t tiles_w : {17, 18, 19, 20, 33}) {
    Check({1, 6, 2 * tile + 1, tiles_w * tile, 11, 3, 3, 1, 1, 1, 1}, ActivationType::RELUX, tile,
          tolerance);
    Check({1, 6, 2 * tile, tiles_w * tile + 1, 11, 3, 3, 1, 1, 1, 0}, ActivationType::NOOP, tile,
          tolerance);
  }
}

// The output transform with and without a bias (a null one adds nothing),
// with no activation and with the ones it fuses (arm64's F(4x4) runs
// groups of four tiles in one tile row with none or ReLU as one asm block,
// the rest compiled), against ReLUX through the compiled path. Square maps
// (pad 1) whose F(4x4) tile rows are 2 tiles (groups cross rows), 4 whole
// (16), 4 with the last cut to 1 or 2 columns (13, 14), and 7 cut to 3
// (27, groups in one row and across); bottom rows cut to 1 to 4; odd
// channel counts.
TEST_P(Conv2dWinogradTest, BiasOrNotAroundGroups) {
  const int tile = GetParam();
  const float tolerance = WinogradTolerance(tile);
  for (int64_t hw : {5, 8, 13, 14, 16, 27}) {
    const Shape s{1, 3, hw, hw, 5, 3, 3, 1, 1, 1, 1};
    Check(s, ActivationType::NOOP, tile, tolerance);
    for (ActivationType activation :
         {ActivationType::NOOP, ActivationType::RELU, ActivationType::RELUX}) {
      Check(s, activation, tile, tolerance, 6.f, nullptr, /*with_bias=*/false);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tiles, Conv2dWinogradTest, ::testing::Values(2, 4, 6));

// A table's vectorized filter transform against the matrix products
// G g G^T of the portable one, on random filters and on filters with a
// single nonzero tap (which isolate each of G's entries).
TEST(Conv2dKernelTest, WinogradFilterKernelMatchesMatrixTransform) {
  constexpr int kLanes = kWinogradFilterLanes;
  int tables = 0;
  for (const KernelTable* table : testing::TablesUnderTest()) {
    if (table->winograd_filter == nullptr) continue;
    ++tables;
    for (int tile : {2, 4, 6}) {
      const int positions = (tile + 2) * (tile + 2);
      std::vector<std::vector<float>> filters = {RandomFloats(9 * kLanes, 40 + tile)};
      for (int tap = 0; tap < 9; ++tap) {
        std::vector<float> single(9 * kLanes, 0.f);
        for (int l = 0; l < kLanes; ++l) single[tap * kLanes + l] = 1.f + l;
        filters.push_back(single);
      }
      for (const std::vector<float>& g : filters) {
        SCOPED_TRACE(::testing::Message() << table->name << " F(" << tile << "x" << tile << ")");
        std::vector<float> expected(positions * kLanes), got(positions * kLanes, std::nanf(""));
        WinogradTransformFilters(g.data(), kLanes, tile, expected.data());
        table->winograd_filter(g.data(), tile, got.data());
        ExpectNear(got, expected, 1e-6f, 1e-6f);
      }
    }
  }
  // The x86 tables have the kernel.
  if (KernelTableFor(KernelIsa::kAvx2Fma) != nullptr) {
    EXPECT_GT(tables, 0);
  }
}

// Winograd only where its cost model says it pays (see BM_Conv3x3Method):
// the large early layers of ResNet-18 and SqueezeNet, not the 7x7 or 13x13
// ones, never a strided or thin conv. On arm64 the model counts executed
// instructions, and F(4x4) also pays on the 14x14, 13x13 and 7x7 maps.
TEST(Conv2dKernelTest, WinogradPicksTileByShape) {
  auto params = [](int64_t in_c, int64_t size, int64_t out_c, int64_t stride = 1) {
    return MakeParams({1, in_c, size, size, out_c, 3, 3, stride, stride, 1, 1},
                      ActivationType::NOOP);
  };
  for (const KernelTable* table : testing::TablesUnderTest()) {
    SCOPED_TRACE(table->name);
    const bool counted = table->isa == KernelIsa::kNeon && table->gemm_partial != nullptr;
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(64, 56, 64), 4), 4);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(64, 56, 64), 2), 2);  // the cap holds
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(64, 56, 64), 0), 0);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(128, 28, 128), 4), 4);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(256, 14, 256), 4), counted ? 4 : 2);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(512, 7, 512), 4), counted ? 4 : 0);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(48, 13, 192), 4), counted ? 4 : 0);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(64, 13, 256), 4), counted ? 4 : 0);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(4, 56, 64), 4), 0);  // too few channels
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(64, 56, 64, 2), 4), 0);
    // F(6x6) where the table allows it: on the 56x56 and 55x55 maps, not
    // on 28x28 or 27x27, where F(4x4) wastes fewer tiles; but on the
    // single-precision ARM tables on 28x28 too, whose last panel of one
    // tile costs about a column there (and F(6x6)'s transforms about what
    // F(4x4)'s do), and not on arm64's 55x55 one with 16 input channels,
    // where F(6x6)'s output transform outweighs the GEMM it saves.
    const int six = table->winograd_max_tile >= 6 ? 6 : 4;
    const bool arm64_fp32 = counted && table->gemm_narrow_pair != nullptr &&
                            table->fp16_gemm == nullptr;
    const bool armv7_fp32 = counted && table->gemm_run != nullptr && table->fp16_gemm == nullptr;
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(64, 56, 64), 6), six);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(16, 55, 64), 6), arm64_fp32 ? 4 : six);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(128, 28, 128), 6),
              arm64_fp32 || armv7_fp32 ? 6 : 4);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(32, 27, 128), 6), 4);
    EXPECT_EQ(Conv2dWinograd::PickTile(*table, params(48, 13, 192), 6), counted ? 4 : 0);
  }
}

// The op picks the kernels in Prepare and runs them on the runtime's pool.
TEST(Conv2dOpTest, FastPathThroughTheOp) {
  const Shape shapes[] = {{1, 6, 9, 8, 7, 3, 3, 1, 1, 1, 1},
                          {1, 6, 9, 8, 10, 1, 1},
                          {1, 6, 9, 8, 6, 3, 3, 2, 2, 1, 1, 6}};
  for (int winograd : {0, 4}) {
    for (const Shape& s : shapes) {
      const ref::Conv2DParams p = MakeParams(s, ActivationType::RELUX);
      const std::vector<int64_t> filter_shape = {s.out_c, s.in_c / s.group, s.kh, s.kw};
      const std::vector<float> input = RandomFloats(s.in_c * s.h * s.w, 31);
      const std::vector<float> filter = RandomFloats(testing::NumElements(filter_shape), 32);
      const std::vector<float> bias = RandomFloats(s.out_c, 33);
      std::vector<float> expected(p.out_channels * p.out_h * p.out_w);
      ref::Conv2D(p, input.data(), filter.data(), bias.data(), expected.data());
      for (int threads : {1, 2, 3}) {
        testing::TestCpuRuntime runtime(threads);
        testing::OpTester tester("Conv2D", RegisterConv2D);
        tester.WithRuntime(&runtime)
            .Input("input", {1, s.in_c, s.h, s.w}, input)
            .Weight("filter", filter_shape, filter)
            .Weight("bias", {s.out_c}, bias)
            .Output("output")
            .Args("strides", std::vector<int64_t>{s.stride_h, s.stride_w})
            .Args("pads", std::vector<int64_t>{s.pad, s.pad, s.pad, s.pad})
            .Arg("group", s.group)
            .Arg("winograd", winograd)
            .Arg("activation", "RELU6");
        ASSERT_TRUE(tester.Run().ok());
        ExpectNear(tester.OutputData("output"), expected, 1e-4f, 1e-4f);
      }
    }
  }
}

// A filter and bias computed at run time (inputs, not weights) take the same
// fast kernels, packed again on every run: a second run with other values
// must give the reference result for those, not for the first ones.
TEST(Conv2dOpTest, ComputedFilterPackedEveryRun) {
  const Shape shapes[] = {{1, 6, 9, 8, 7, 3, 3, 1, 1, 1, 1},     // direct or GEMM
                          {2, 6, 9, 8, 10, 1, 1},                // pointwise GEMM
                          {1, 6, 9, 8, 6, 3, 3, 2, 2, 1, 1, 6},  // depthwise, stride 2
                          {1, 4, 7, 5, 6, 2, 3, 1, 2, 2, 0, 2},  // grouped, dilated
                          {1, 1, 1, 1, 1, 1, 1}};                // one pixel
  for (int winograd : {0, 4}) {
    for (const Shape& s : shapes) {
      const ref::Conv2DParams p = MakeParams(s, ActivationType::NOOP);
      const std::vector<int64_t> filter_shape = {s.out_c, s.in_c / s.group, s.kh, s.kw};
      const int64_t filter_size = testing::NumElements(filter_shape);
      const std::vector<float> input = RandomFloats(s.batch * s.in_c * s.h * s.w, 41);
      for (int threads : {1, 2}) {
        testing::TestCpuRuntime runtime(threads);
        testing::OpTester tester("Conv2D", RegisterConv2D);
        tester.WithRuntime(&runtime)
            .Input("input", {s.batch, s.in_c, s.h, s.w}, input)
            .Input("filter", filter_shape, RandomFloats(filter_size, 42))
            .Input("bias", {s.out_c}, RandomFloats(s.out_c, 43))
            .Output("output")
            .Args("strides", std::vector<int64_t>{s.stride_h, s.stride_w})
            .Args("dilations", std::vector<int64_t>{s.dilation, s.dilation})
            .Args("pads", std::vector<int64_t>{s.pad, s.pad, s.pad, s.pad})
            .Arg("group", s.group)
            .Arg("winograd", winograd);
        ASSERT_TRUE(tester.Run().ok());
        for (uint32_t seed : {42u, 44u, 45u}) {
          SCOPED_TRACE(::testing::Message()
                       << "winograd " << winograd << " threads " << threads << " in " << s.in_c
                       << "x" << s.h << "x" << s.w << " group " << s.group << " seed " << seed);
          const std::vector<float> filter = RandomFloats(filter_size, seed);
          const std::vector<float> bias = RandomFloats(s.out_c, seed + 100);
          std::vector<float> expected(p.batch * p.out_channels * p.out_h * p.out_w);
          ref::Conv2D(p, input.data(), filter.data(), bias.data(), expected.data());
          ASSERT_TRUE(tester.RunAgain("filter", filter).ok());
          ASSERT_TRUE(tester.RunAgain("bias", bias).ok());
          ExpectNear(tester.OutputData("output"), expected, 1e-4f, 1e-4f);
        }
      }
    }
  }
}

TEST(Conv2dOpTest, RejectsUnknownWinogradTile) {
  testing::OpTester tester("Conv2D", RegisterConv2D);
  tester.Input("input", {1, 1, 3, 3}, std::vector<float>(9, 1.f))
      .Weight("filter", {1, 1, 3, 3}, std::vector<float>(9, 1.f))
      .Output("output")
      .Arg("winograd", 3);
  EXPECT_EQ(tester.Run().code(), MaceStatus::MACE_INVALID_ARGS);
}

}  // namespace
}  // namespace ops
}  // namespace mace
