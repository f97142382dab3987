// The half-precision kernels (ARMv8.2 FP16) against references in double,
// and the fp32 fallback on CPUs without them.
//
// Tolerances follow from half precision itself. The reference takes the
// operands rounded to half (as the kernels do: round to nearest even), so
// what is left is the rounding of the half-precision running sums: each
// fused multiply-add rounds once, by at most u = 2^-11 of the partial sum it
// produces. Per output the bound is u times the sum, over the steps of each
// block summed in half precision, of the running sum of |products| in that
// block (which bounds every partial sum however the block is split among
// accumulators), plus single-precision terms for what is added in float.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/conv_2d_winograd.h"
#include "mace/ops/cpu/depthwise_conv_2d_3x3.h"
#include "mace/ops/cpu/gemm_fp16.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/ref/cast.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::RandomFloats;

constexpr double kHalfUnit = 1.0 / 2048;  // 2^-11
constexpr double kFloatUnit = 1.0 / (1 << 24);

// The half nearest to v (ties to even; beyond the largest half, infinity),
// by the reference Cast.
float RoundToHalf(float v) {
  ref::CastParams params;
  params.to = ref::CastType::FLOAT16;
  return ref::CastValue(params, v);
}

// The bits of a value that is exactly a half (RoundToHalf's results, NaN
// aside): sign, 5 exponent bits biased by 15 and 10 mantissa bits, or a
// subnormal's multiple of 2^-24.
uint16_t HalfBitsOf(float h) {
  const uint16_t sign = std::signbit(h) ? 0x8000 : 0;
  const float magnitude = std::fabs(h);
  if (std::isinf(magnitude)) return sign | 0x7c00;
  if (magnitude < 1.f / 16384) return sign | static_cast<uint16_t>(magnitude * 16777216.f);
  int exponent = 0;
  const float fraction = std::frexp(magnitude, &exponent);  // in [0.5, 1)
  return sign | static_cast<uint16_t>((exponent + 14) << 10) |
         static_cast<uint16_t>(fraction * 2048.f - 1024.f);
}

std::vector<float> Rounded(const std::vector<float>& values) {
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = RoundToHalf(values[i]);
  return out;
}

// A dot product of half-rounded operands in double, with the bound on what
// half-precision sums in blocks of `block` steps may lose.
struct Dot {
  double value = 0, bound = 0;
  double block_abs = 0;
  int64_t steps = 0;
  int64_t block = 0;
  explicit Dot(int64_t block_steps) : block(block_steps) {}
  // The GEMM tile starts its first block's half sums at the bias: one more
  // rounding (of the bias to half), and every partial sum of that block
  // includes it. Call before Add.
  void StartAtHalf(double bias) {
    value = bias;
    block_abs = std::fabs(bias);
    bound = kHalfUnit * std::fabs(bias);
  }
  void Add(double a, double b) {
    if (steps > 0 && steps % block == 0) block_abs = 0;
    value += a * b;
    block_abs += std::fabs(a * b);
    bound += kHalfUnit * block_abs + 1e-7;  // 1e-7: half subnormals, generously
    ++steps;
  }
  // The bound after bias and activation (which do not grow errors), with
  // the single-precision additions of blocks and bias.
  double Tolerance() const { return bound + 8 * kFloatUnit * (std::fabs(value) + 1.0) + 1e-6; }
};

double Activate(double v, int activation, double hi = 6.0) {
  if (activation == kTileActClamp) return std::min(std::max(v, 0.0), hi);
  if (activation == kTileActHardSwish) return v * std::min(std::max(v + 3, 0.0), 6.0) / 6;
  return v;
}

void ExpectWithin(const std::vector<float>& got, const std::vector<double>& want,
                  const std::vector<double>& tolerance) {
  ASSERT_EQ(got.size(), want.size());
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= tolerance[i]) && reported++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want " << want[i]
                    << " within " << tolerance[i];
    }
  }
}

const KernelTable* Fp16Table() { return Fp16KernelTableFor(KernelIsa::kNeon); }

// Floats as halves and back, through the table's conversions.
std::vector<uint16_t> ToHalves(const KernelTable& table, const std::vector<float>& values) {
  std::vector<uint16_t> halves(values.size());
  table.fp16_from_float(values.data(), static_cast<int64_t>(values.size()), halves.data());
  return halves;
}
std::vector<float> FromHalves(const KernelTable& table, const std::vector<uint16_t>& halves) {
  std::vector<float> values(halves.size());
  table.fp16_to_float(halves.data(), static_cast<int64_t>(halves.size()), values.data());
  return values;
}

// C = A x B + row bias, activation, through Fp16Gemm against Dot.
void CheckGemm(int64_t m, int64_t n, int64_t k, int activation, uint32_t seed,
               float hi = 6.f) {
  const KernelTable* table = Fp16Table();
  ASSERT_NE(table, nullptr);
  const std::vector<float> a = RandomFloats(m * k, seed);
  const std::vector<float> b = RandomFloats(k * n, seed + 1, -2.f, 2.f);  // k x n
  const std::vector<float> bias = RandomFloats(m, seed + 2);
  const std::vector<float> ra = Rounded(a), rb = Rounded(b);
  std::vector<double> want(m * n), tolerance(m * n);
  const int64_t block = n == 1 ? 64 : table->fp16_kc;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Dot dot(block);
      if (n == 1) {
        dot.value = bias[i];  // added in single precision
      } else {
        dot.StartAtHalf(bias[i]);
      }
      for (int64_t d = 0; d < k; ++d) dot.Add(ra[i * k + d], rb[d * n + j]);
      want[i * n + j] = Activate(dot.value, activation, hi);
      tolerance[i * n + j] = dot.Tolerance();
    }
  }
  Fp16Panels panels;
  panels.Pack(*table, a.data(), m, k, k, 1);
  GemmOperand columns;
  columns.data = b.data();
  columns.stride = 1;
  columns.depth_stride = n;
  TileEpilogue epilogue;
  epilogue.row_bias = bias.data();
  epilogue.activation = activation;
  epilogue.lo = 0.f;
  epilogue.hi = hi;
  for (auto& pool : testing::PoolsUnderTest()) {
    SCOPED_TRACE(::testing::Message() << "m " << m << " n " << n << " k " << k << " act "
                                      << activation << " threads " << NumThreads(pool.get()));
    std::vector<float> scratch(NumThreads(pool.get()) *
                               Fp16GemmScratchFloatsPerThread(*table, n, k));
    std::vector<float> c(m * n, std::nanf(""));
    Fp16Gemm(*table, m, n, k, panels, columns, c.data(), n, epilogue, pool.get(), scratch.data());
    ExpectWithin(c, want, tolerance);
  }
}

TEST(Fp16Test, FeaturesAndTable) {
  const CpuFeatures features = DetectCpuFeatures();
  const KernelTable* table = Fp16Table();
  // Only CPUs with ARMv8.2 FP16 arithmetic have the table.
  EXPECT_EQ(table != nullptr, features.neon_fp16);
  if (table != nullptr) {
    EXPECT_STREQ(table->name, "neon_fp16");
    EXPECT_EQ(table->fp16_mr, 8);
    EXPECT_EQ(table->fp16_nr, 24);
  }
}

TEST(Fp16Test, ConversionRoundsToNearestEven) {
  const KernelTable* table = Fp16Table();
  if (table == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10 (to 1), 1 + 3 * 2^-11 one
  // between 1 + 2^-10 and 1 + 2^-9 (to 1 + 2^-9); 65520 overflows to inf.
  const std::vector<float> src = {1.f + 1.f / 2048, 1.f + 3.f / 2048, -0.f, 65504.f, 65520.f,
                                  6e-8f, -2.5f, 0.1f, 1.f / 3, 1e-3f, 7.f};
  std::vector<uint16_t> half(src.size());
  table->fp16_from_float(src.data(), static_cast<int64_t>(src.size()), half.data());
  const std::vector<uint16_t> want = {0x3c00, 0x3c02, 0x8000, 0x7bff, 0x7c00, 0x0001,
                                      0xc100, 0x2e66, 0x3555, 0x1419, 0x4700};
  EXPECT_EQ(half, want);
  // Every length up to 40 (vectors of 16, 8 and 4, then single values),
  // against a conversion one value at a time; the element past the end is
  // left alone.
  const std::vector<float> values = RandomFloats(41, 7, -40000.f, 40000.f);
  for (int64_t count = 0; count <= 40; ++count) {
    std::vector<uint16_t> got(count + 1, 0xabcd), expected(count + 1, 0xabcd);
    for (int64_t i = 0; i < count; ++i) expected[i] = HalfBitsOf(RoundToHalf(values[i]));
    table->fp16_from_float(values.data(), count, got.data());
    EXPECT_EQ(got, expected) << "count " << count;
  }
}

// The B panel packer against a value-by-value conversion: every column
// count to 24, rows apart by more than a panel, padding columns zero.
TEST(Fp16Test, PackColumns) {
  const KernelTable* table = Fp16Table();
  if (table == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  constexpr int64_t kDepth = 5, kStride = 37;
  const std::vector<float> src = RandomFloats(kDepth * kStride, 11, -40000.f, 40000.f);
  for (int64_t cols = 1; cols <= 24; ++cols) {
    std::vector<uint16_t> got(kDepth * 24 + 1, 0xabcd), want(kDepth * 24 + 1, 0);
    want.back() = 0xabcd;
    for (int64_t d = 0; d < kDepth; ++d) {
      for (int64_t j = 0; j < cols; ++j) {
        want[d * 24 + j] = HalfBitsOf(RoundToHalf(src[d * kStride + j]));
      }
    }
    table->fp16_pack_columns(src.data(), cols, kDepth, kStride, got.data());
    EXPECT_EQ(got, want) << "cols " << cols;
  }
}

TEST(Fp16Test, GemmAtTileAndBlockEdges) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 100;
  // Columns: narrower tiles (8 and 16 wide) for a panel's last columns.
  for (int64_t m : {1, 7, 8, 9, 17}) {
    for (int64_t n : {2, 8, 16, 23, 24, 25, 32, 40, 49}) {
      CheckGemm(m, n, 5, kTileActNone, seed += 3);
    }
  }
  // The reduction around the half-precision block (kc = 256) and past two.
  for (int64_t k : {1, 2, 255, 256, 257, 600}) CheckGemm(9, 25, k, kTileActNone, seed += 3);
  CheckGemm(16, 48, 40, kTileActClamp, seed += 3);
  CheckGemm(16, 40, 9, kTileActClamp, seed += 3, 0.3f);  // a bound that is no half value
  CheckGemm(8, 40, 300, kTileActClamp, seed += 3);       // clamped after two blocks
  CheckGemm(10, 30, 33, kTileActHardSwish, seed += 3);
  // Narrow tiles (a panel's last 1 to 4 columns) with each epilogue.
  CheckGemm(8, 3, 7, kTileActClamp, seed += 3);
  CheckGemm(8, 28, 300, kTileActClamp, seed += 3);        // clamped after two blocks
  CheckGemm(9, 26, 9, kTileActClamp, seed += 3, 0.3f);    // a bound that is no half value
  CheckGemm(16, 27, 40, kTileActHardSwish, seed += 3);
  CheckGemm(17, 52, 513, kTileActHardSwish, seed += 3);  // three blocks
  // 1 to 4 columns past whole vectors: a vector tile and a narrow one.
  for (int64_t n : {9, 12, 17, 20, 33, 36, 41, 44}) {
    CheckGemm(8, n, 11, kTileActNone, seed += 3);
    CheckGemm(16, n, 300, kTileActClamp, seed += 3);  // clamped after two blocks
  }
  CheckGemm(8, 20, 17, kTileActClamp, seed += 3, 0.3f);  // a bound that is no half value
  CheckGemm(9, 33, 40, kTileActHardSwish, seed += 3);     // and a row tail
}

// Winograd's products of all positions in one call
// (fp16_gemm_half_positions): the same halves as fp16_gemm_half one tile at
// a time, which CheckGemm holds to the double reference. Narrow panels run
// three row panels a reduction, whole vectors the tiles' assembly alone,
// other widths the general tile.
TEST(Fp16Test, PositionsMatchTiles) {
  const KernelTable* table = Fp16Table();
  if (table == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  ASSERT_NE(table->fp16_gemm_half_positions, nullptr);
  const int64_t mr = table->fp16_mr, nr = table->fp16_nr;
  uint32_t seed = 1200;
  for (int64_t kc : {1, 3, 4, 5, 16, 19, 36, 70}) {
    for (int64_t panels : {1, 2, 3, 4, 7}) {
      for (int cols : {1, 2, 3, 4, 8, 12, 16, 24}) {
        SCOPED_TRACE(::testing::Message() << "kc " << kc << " panels " << panels << " cols "
                                          << cols);
        const int64_t positions = 2, offset = mr * kc;  // from the second row panel
        const int64_t a_panels = (panels + 1) * mr * kc;
        const std::vector<uint16_t> a =
            ToHalves(*table, RandomFloats(positions * a_panels, seed));
        const std::vector<uint16_t> b =
            ToHalves(*table, RandomFloats(positions * kc * nr + 5, seed + 1, -2.f, 2.f));
        const int64_t b_stride = kc * nr + 5;
        const int64_t c_stride = cols + 2, ldc = positions * c_stride + 3;
        // Columns past `cols` stay as they were.
        const std::vector<uint16_t> c0 =
            ToHalves(*table, RandomFloats(panels * mr * ldc, seed + 2, -4.f, 4.f));
        seed += 3;
        const uint16_t* a_at[2] = {a.data(), a.data() + a_panels};
        std::vector<uint16_t> want = c0, got = c0;
        TileEpilogue plain;
        plain.last = true;
        for (int64_t x = 0; x < positions; ++x) {
          for (int64_t p = 0; p < panels; ++p) {
            table->fp16_gemm_half(kc, a_at[x] + offset + p * mr * kc, b.data() + x * b_stride,
                                  want.data() + x * c_stride + p * mr * ldc, ldc,
                                  static_cast<int>(mr), cols, plain);
          }
        }
        table->fp16_gemm_half_positions(kc, a_at, offset, b.data(), b_stride, got.data(),
                                        c_stride, ldc, positions, panels, cols);
        EXPECT_EQ(got, want);
      }
    }
  }
}

TEST(Fp16Test, MatrixVector) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 300;
  for (int64_t m : {1, 7, 8, 9, 33}) {
    for (int64_t k : {1, 7, 8, 63, 64, 65, 130, 1024}) CheckGemm(m, 1, k, kTileActNone, seed += 3);
  }
  CheckGemm(20, 1, 100, kTileActClamp, seed += 3);
}

ref::Conv2DParams ConvParams(int64_t in_c, int64_t h, int64_t w, int64_t out_c, int64_t kernel,
                             int64_t stride, int64_t pad, int64_t group = 1) {
  ref::Conv2DParams p;
  p.batch = 1;
  p.in_channels = in_c;
  p.in_h = h;
  p.in_w = w;
  p.out_channels = out_c;
  p.kernel_h = p.kernel_w = kernel;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = pad;
  p.group = group;
  p.out_h = (h + 2 * pad - kernel) / stride + 1;
  p.out_w = (w + 2 * pad - kernel) / stride + 1;
  p.activation.type = ActivationType::RELUX;
  p.activation.max_limit = 6.f;
  return p;
}

// Conv2D with the fp16 table (1x1, strided 1x1, im2col, groups) against a
// direct double reference in the GEMM's reduction order (ic, kh, kw).
void CheckConv(const ref::Conv2DParams& p, uint32_t seed) {
  const KernelTable* table = Fp16Table();
  const int64_t in_per_group = p.in_channels / p.group, out_per_group = p.out_channels / p.group;
  const std::vector<float> input = RandomFloats(p.in_channels * p.in_h * p.in_w, seed, -2.f, 2.f);
  const std::vector<float> filter =
      RandomFloats(p.out_channels * in_per_group * p.kernel_h * p.kernel_w, seed + 1);
  const std::vector<float> bias = RandomFloats(p.out_channels, seed + 2);
  const std::vector<float> ri = Rounded(input), rf = Rounded(filter);
  const int64_t out_plane = p.out_h * p.out_w;
  const int act = p.activation.type == ActivationType::NOOP ? kTileActNone : kTileActClamp;
  std::vector<double> want(p.out_channels * out_plane), tolerance(want.size());
  std::vector<double> want_half(want.size()), tolerance_half(want.size());
  for (int64_t oc = 0; oc < p.out_channels; ++oc) {
    const int64_t g = oc / out_per_group;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        // A column of one pixel runs the matrix-vector kernel.
        Dot dot(out_plane == 1 ? 64 : table->fp16_kc);
        if (out_plane == 1) {
          dot.value = bias[oc];  // added in single precision
        } else {
          dot.StartAtHalf(bias[oc]);
        }
        // On half tensors every pixel runs tiles, and C is rounded to half
        // after each block: u of the running sum's magnitude per block.
        // Pointwise ones (strided on a subsampled copy) sum up to
        // Fp16GemmHalfBlock channels per block, im2col ones fp16_kc.
        const int64_t depth = in_per_group * p.kernel_h * p.kernel_w;
        const int64_t half_block =
            p.kernel_h == 1 ? Fp16GemmHalfBlock(*table, in_per_group) : table->fp16_kc;
        Dot tiles(half_block);
        tiles.StartAtHalf(bias[oc]);
        double magnitude = std::fabs(bias[oc]);
        for (int64_t ic = 0; ic < in_per_group; ++ic) {
          for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
            for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
              const int64_t ih = oh * p.stride_h - p.pad_top + kh;
              const int64_t iw = ow * p.stride_w - p.pad_left + kw;
              const bool inside = ih >= 0 && ih < p.in_h && iw >= 0 && iw < p.in_w;
              const double x =
                  inside ? ri[((g * in_per_group + ic) * p.in_h + ih) * p.in_w + iw] : 0.0;
              const double w = rf[((oc * in_per_group + ic) * p.kernel_h + kh) * p.kernel_w + kw];
              dot.Add(w, x);
              tiles.Add(w, x);
              magnitude += std::fabs(w * x);
            }
          }
        }
        const int64_t o = oc * out_plane + oh * p.out_w + ow;
        want[o] = Activate(dot.value, act, p.activation.max_limit);
        tolerance[o] = dot.Tolerance();
        const int64_t blocks = (depth + half_block - 1) / half_block;
        want_half[o] = Activate(tiles.value, act, p.activation.max_limit);
        tolerance_half[o] = tiles.Tolerance() + kHalfUnit * blocks * magnitude;
      }
    }
  }
  std::unique_ptr<Conv2dKernel> kernel = CreateConv2dKernel(*table, p, filter.data(), 0);
  // Half tensors: ungrouped 1x1 unpadded convolutions (strided ones on a
  // subsampled copy), and im2col ones of more than one pixel.
  const bool pointwise = p.kernel_h == 1 && p.pad_top == 0;
  const bool im2col = p.kernel_h > 1 && out_plane > 1;
  EXPECT_EQ(kernel->SupportsHalf(), p.group == 1 && (pointwise || im2col)) << kernel->name();
  const std::vector<uint16_t> half_input = ToHalves(*table, input);
  for (auto& pool : testing::PoolsUnderTest()) {
    SCOPED_TRACE(::testing::Message()
                 << kernel->name() << " in " << p.in_channels << "x" << p.in_h << "x" << p.in_w
                 << " out " << p.out_channels << " k " << p.kernel_h << " stride " << p.stride_h
                 << " pad " << p.pad_top << " group " << p.group << " threads "
                 << NumThreads(pool.get()));
    EXPECT_NE(std::string(kernel->name()).find("fp16"), std::string::npos);
    // Scratch poisoned before each run (each 16-bit half a NaN, each float
    // 1.7e38): a padded image's zeros are written, never left over.
    std::vector<float> scratch(kernel->ScratchBytes(NumThreads(pool.get())) / 4 + 1);
    const auto poison_scratch = [&scratch] {
      const uint32_t poison = 0x7e007e00u;
      for (float& f : scratch) std::memcpy(&f, &poison, sizeof(f));
    };
    poison_scratch();
    std::vector<float> output(want.size(), std::nanf(""));
    kernel->Run(input.data(), bias.data(), output.data(), pool.get(), scratch.data());
    ExpectWithin(output, want, tolerance);
    if (!kernel->SupportsHalf()) continue;
    std::vector<uint16_t> half_output(want.size(), 0x7e00);  // NaN
    poison_scratch();
    kernel->RunHalf(half_input.data(), bias.data(), half_output.data(), pool.get(),
                    scratch.data());
    ExpectWithin(FromHalves(*table, half_output), want_half, tolerance_half);
  }
}

TEST(Fp16Test, Conv2dPaths) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 500;
  CheckConv(ConvParams(8, 5, 7, 9, 1, 1, 0), seed += 3);      // 1x1 read in place
  CheckConv(ConvParams(300, 3, 3, 17, 1, 1, 0), seed += 3);   // two blocks of k
  CheckConv(ConvParams(16, 1, 1, 33, 1, 1, 0), seed += 3);    // 1x1 map: a vector
  CheckConv(ConvParams(6, 9, 8, 10, 1, 2, 0), seed += 3);     // strided 1x1
  CheckConv(ConvParams(3, 17, 15, 32, 3, 2, 1), seed += 3);   // a stem: im2col
  CheckConv(ConvParams(5, 6, 7, 7, 3, 1, 1), seed += 3);      // 3x3 stride 1 padded
  CheckConv(ConvParams(8, 6, 6, 12, 3, 1, 1, 2), seed += 3);  // groups
  CheckConv(ConvParams(4, 2, 2, 3, 3, 1, 1), seed += 3);      // map smaller than the window
  // im2col panels packed in half precision from a half padded image.
  CheckConv(ConvParams(3, 23, 21, 10, 7, 2, 3), seed += 3);   // a 7x7 stride-2 stem
  CheckConv(ConvParams(37, 9, 11, 9, 3, 2, 1), seed += 3);    // stride 2, k over 256, odd w
  CheckConv(ConvParams(5, 8, 10, 3, 3, 2, 0), seed += 3);     // stride 2 unpadded
  CheckConv(ConvParams(31, 7, 7, 17, 3, 1, 1), seed += 3);    // 49 pixels: a 1-column tail
  CheckConv(ConvParams(7, 3, 3, 5, 3, 2, 1), seed += 3);      // 2x2 outputs
  CheckConv(ConvParams(6, 3, 3, 4, 3, 1, 0), seed += 3);      // one pixel: matrix-vector
  // Half panels copied in runs of every length class (1, 2-3, 4-7, 8-15,
  // 16-24 halves): rows of 7, 20 and 3 outputs split the 24-lane panels.
  CheckConv(ConvParams(9, 14, 14, 6, 3, 2, 1), seed += 3);    // 7x7 outputs
  CheckConv(ConvParams(5, 9, 40, 4, 3, 2, 1), seed += 3);     // 5x20 outputs
  CheckConv(ConvParams(4, 11, 5, 3, 3, 2, 0), seed += 3);     // 5x2 outputs, unpadded
  CheckConv(ConvParams(3, 13, 13, 5, 3, 2, 1), seed += 3);    // 7x7, odd channels
  // Rows of 30 and 51 outputs: whole 24-lane panels in one output row.
  CheckConv(ConvParams(3, 7, 60, 5, 3, 2, 1), seed += 3);
  CheckConv(ConvParams(3, 9, 101, 4, 7, 2, 3), seed += 3);    // a 7x7 stem
  // Half tensors: odd channels and pixels (tile edges), k in one block.
  CheckConv(ConvParams(3, 1, 5, 1, 1, 1, 0), seed += 3);
  CheckConv(ConvParams(17, 7, 7, 25, 1, 1, 0), seed += 3);
  CheckConv(ConvParams(530, 2, 13, 9, 1, 1, 0), seed += 3);
  // Up to 1024 channels in one block (1024 and 1025 around the limit);
  // past it, whole 8 x 24 tiles that add later blocks to C's halves.
  CheckConv(ConvParams(1024, 1, 24, 8, 1, 1, 0), seed += 3);
  CheckConv(ConvParams(1025, 1, 24, 8, 1, 1, 0), seed += 3);
  CheckConv(ConvParams(1100, 2, 12, 16, 1, 1, 0), seed += 3);
  CheckConv(ConvParams(33, 7, 9, 17, 1, 2, 0), seed += 3);   // strided 1x1, odd sizes
  // 33 and 44 pixels: vector and narrow tiles side by side, in one block
  // and over two (C's halves added to).
  CheckConv(ConvParams(16, 3, 11, 16, 1, 1, 0), seed += 3);
  CheckConv(ConvParams(1100, 4, 11, 16, 1, 1, 0), seed += 3);
  // Whole tiles down a panel in one call: several row panels and a row
  // tail, with each activation form, in one block and over two. Short
  // reductions of each shape the panel loop takes: single steps only (9),
  // one 16-step group (16), a group and 8 steps (24), and all three (25).
  for (int64_t in_c : {9, 16, 24, 25, 1100}) {
    for (float limit : {6.f, 0.3f, 0.f}) {
      ref::Conv2DParams p = ConvParams(in_c, 4, 12, 44, 1, 1, 0);
      if (limit > 0) {
        p.activation.max_limit = limit;
      } else {
        p.activation.type = ActivationType::NOOP;
      }
      SCOPED_TRACE(::testing::Message() << "in " << in_c << " limit " << limit);
      CheckConv(p, seed += 3);
    }
  }
}

// Winograd F(2x2, 3x3), F(4x4, 3x3) and F(6x6, 3x3) with half-precision
// GEMMs against a direct double convolution. The bound comes from the
// Winograd domain, computed here in double with the matrices of Lavin and
// Gray (F(6x6) at the points 0, 1, -1, 2, -2, 1/2, -1/2 and infinity):
// M[xi] = sum over input channels of U V loses at most (kc + 3) u of S[xi]
// = sum |U| |V| (U and V rounded to half, then half sums over blocks of kc
// channels), and the output transform weighs each M[xi] by |A^T|[r][i]
// |A^T|[c][j]. With one block of channels M stays in half precision and
// the output transform runs in half precision: each of its passes adds at
// most 5 roundings of partial sums bounded by the same weights.
void CheckWinograd(int64_t in_c, int64_t h, int64_t w, int64_t out_c, uint32_t seed,
                   int tile = 4, bool relu6 = true) {
  static const double kBT4[8][8] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                    {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                    {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  static const double kG4[8][3] = {{1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                   {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                   {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
  static const double kAT4[6][8] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
  static const double kBT2[8][8] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static const double kG2[8][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static const double kAT2[6][8] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
  static const double kBT6[8][8] = {{1, 0, -5.25, 0, 5.25, 0, -1, 0},
                                    {0, 1, 1, -4.25, -4.25, 1, 1, 0},
                                    {0, -1, 1, 4.25, -4.25, -1, 1, 0},
                                    {0, 0.5, 0.25, -2.5, -1.25, 2, 1, 0},
                                    {0, -0.5, 0.25, 2.5, -1.25, -2, 1, 0},
                                    {0, 2, 4, -2.5, -5, 0.5, 1, 0},
                                    {0, -2, 4, 2.5, -5, -0.5, 1, 0},
                                    {0, -1, 0, 5.25, 0, -5.25, 0, 1}};
  static const double kG6[8][3] = {{1, 0, 0},
                                   {-2.0 / 9, -2.0 / 9, -2.0 / 9},
                                   {-2.0 / 9, 2.0 / 9, -2.0 / 9},
                                   {1.0 / 90, 1.0 / 45, 2.0 / 45},
                                   {1.0 / 90, -1.0 / 45, 2.0 / 45},
                                   {32.0 / 45, 16.0 / 45, 8.0 / 45},
                                   {32.0 / 45, -16.0 / 45, 8.0 / 45},
                                   {0, 0, 1}};
  static const double kAT6[6][8] = {{1, 1, 1, 1, 1, 1, 1, 0},
                                    {0, 1, -1, 2, -2, 0.5, -0.5, 0},
                                    {0, 1, 1, 4, 4, 0.25, 0.25, 0},
                                    {0, 1, -1, 8, -8, 0.125, -0.125, 0},
                                    {0, 1, 1, 16, 16, 0.0625, 0.0625, 0},
                                    {0, 1, -1, 32, -32, 0.03125, -0.03125, 1}};
  const auto& kBT = tile == 2 ? kBT2 : tile == 4 ? kBT4 : kBT6;
  const auto& kG = tile == 2 ? kG2 : tile == 4 ? kG4 : kG6;
  const auto& kAT = tile == 2 ? kAT2 : tile == 4 ? kAT4 : kAT6;
  const int alpha = tile + 2, positions = alpha * alpha;
  const KernelTable* table = Fp16Table();
  ref::Conv2DParams p = ConvParams(in_c, h, w, out_c, 3, 1, 1);
  // A ReLU (no upper bound) is applied in half precision, ReLU6 in float.
  if (!relu6) p.activation.type = ActivationType::RELU;
  const double hi = relu6 ? 6.0 : HUGE_VAL;
  const std::vector<float> input = RandomFloats(in_c * h * w, seed, -2.f, 2.f);
  const std::vector<float> filter = RandomFloats(out_c * in_c * 9, seed + 1);
  const std::vector<float> bias = RandomFloats(out_c, seed + 2);
  // U[oc][ic][positions] and the bound's |U|.
  std::vector<double> u(out_c * in_c * positions);
  for (int64_t f = 0; f < out_c * in_c; ++f) {
    for (int i = 0; i < alpha; ++i) {
      for (int j = 0; j < alpha; ++j) {
        double sum = 0;
        for (int a = 0; a < 3; ++a) {
          for (int b = 0; b < 3; ++b) sum += kG[i][a] * filter[f * 9 + a * 3 + b] * kG[j][b];
        }
        u[f * positions + i * alpha + j] = sum;
      }
    }
  }
  const int64_t out_plane = p.out_h * p.out_w;
  std::vector<double> want(out_c * out_plane), tolerance(want.size());
  std::vector<double> tolerance_half(want.size());
  // Up to kFp16HalfOneBlockDepth channels are one block of half sums.
  const int64_t block = in_c <= kFp16HalfOneBlockDepth ? in_c : table->fp16_kc;
  for (int64_t th = 0; th * tile < p.out_h; ++th) {
    for (int64_t tw = 0; tw * tile < p.out_w; ++tw) {
      // V[ic][positions] of this tile.
      std::vector<double> v(in_c * positions);
      for (int64_t ic = 0; ic < in_c; ++ic) {
        double d[8][8];
        for (int i = 0; i < alpha; ++i) {
          for (int j = 0; j < alpha; ++j) {
            const int64_t ih = th * tile - 1 + i, iw = tw * tile - 1 + j;
            d[i][j] = ih >= 0 && ih < h && iw >= 0 && iw < w ? input[(ic * h + ih) * w + iw] : 0;
          }
        }
        for (int i = 0; i < alpha; ++i) {
          for (int j = 0; j < alpha; ++j) {
            double sum = 0;
            for (int a = 0; a < alpha; ++a) {
              for (int b = 0; b < alpha; ++b) sum += kBT[i][a] * d[a][b] * kBT[j][b];
            }
            v[ic * positions + i * alpha + j] = sum;
          }
        }
      }
      for (int64_t oc = 0; oc < out_c; ++oc) {
        double s[64] = {};
        for (int64_t ic = 0; ic < in_c; ++ic) {
          for (int xi = 0; xi < positions; ++xi) {
            s[xi] += std::fabs(u[(oc * in_c + ic) * positions + xi] * v[ic * positions + xi]);
          }
        }
        for (int r = 0; r < tile && th * tile + r < p.out_h; ++r) {
          for (int c = 0; c < tile && tw * tile + c < p.out_w; ++c) {
            const int64_t oh = th * tile + r, ow = tw * tile + c;
            double value = bias[oc], weighted = 0;
            for (int64_t ic = 0; ic < in_c; ++ic) {
              for (int kh = 0; kh < 3; ++kh) {
                for (int kw = 0; kw < 3; ++kw) {
                  const int64_t ih = oh - 1 + kh, iw = ow - 1 + kw;
                  if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                  value += filter[((oc * in_c + ic) * 3 + kh) * 3 + kw] *
                           static_cast<double>(input[(ic * h + ih) * w + iw]);
                }
              }
            }
            for (int i = 0; i < alpha; ++i) {
              for (int j = 0; j < alpha; ++j) {
                weighted += std::fabs(kAT[r][i] * kAT[c][j]) * s[i * alpha + j];
              }
            }
            const int64_t o = oc * out_plane + oh * p.out_w + ow;
            want[o] = Activate(value, kTileActClamp, hi);
            tolerance[o] = (std::min<int64_t>(block, in_c) + 3 + (in_c <= block ? 10 : 0)) *
                               kHalfUnit * weighted +
                           64 * kFloatUnit * (weighted + std::fabs(bias[oc])) + 1e-6;
            // On half tensors M of several blocks is rounded to half too,
            // and the transform runs in half precision; then the output is
            // rounded to half.
            tolerance_half[o] = tolerance[o] + (in_c <= block ? 0 : 11) * kHalfUnit * weighted +
                                kHalfUnit * std::fabs(want[o]);
          }
        }
      }
    }
  }
  auto kernel = std::make_unique<Conv2dWinograd>(*table, p, filter.data(), tile);
  for (auto& pool : testing::PoolsUnderTest()) {
    SCOPED_TRACE(::testing::Message() << "winograd " << tile << " in " << in_c << "x" << h << "x"
                                      << w << " out " << out_c << " threads "
                                      << NumThreads(pool.get()));
    std::vector<float> scratch(kernel->ScratchBytes(NumThreads(pool.get())) / 4 + 1,
                               std::nanf(""));
    std::vector<float> output(want.size(), std::nanf(""));
    kernel->Run(input.data(), bias.data(), output.data(), pool.get(), scratch.data());
    ExpectWithin(output, want, tolerance);
    // Half tensors. With one block of channels: the same transforms and
    // sums on the input rounded to half, whose float output holds half
    // values (a ReLU6 clamps them to 0 or 6), so the halves are those
    // floats exactly.
    ASSERT_TRUE(kernel->SupportsHalf());
    const std::vector<uint16_t> half_input = ToHalves(*table, input);
    std::vector<uint16_t> half_output(want.size() + 1, 0x7e00);  // NaN
    kernel->RunHalf(half_input.data(), bias.data(), half_output.data(), pool.get(),
                    scratch.data());
    EXPECT_EQ(half_output.back(), 0x7e00) << "wrote past the end";
    half_output.pop_back();
    const std::vector<float> from_halves = FromHalves(*table, half_output);
    if (in_c <= block) {
      EXPECT_EQ(from_halves, output);
    }
    ExpectWithin(from_halves, want, tolerance_half);
  }
}

TEST(Fp16Test, Winograd4x4) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 900;
  CheckWinograd(16, 13, 13, 16, seed += 3);  // SqueezeNet's last map size
  CheckWinograd(24, 27, 21, 40, seed += 3);  // partial tiles, channels past the tile
  CheckWinograd(300, 12, 12, 8, seed += 3);  // one half block of more than kc channels
  CheckWinograd(5, 6, 3, 3, seed += 3);      // one partial tile, few channels
  CheckWinograd(16, 55, 55, 24, seed += 3);  // many panels of tiles
  CheckWinograd(16, 55, 55, 24, seed += 3, 4, false);  // ReLU
  CheckWinograd(24, 7, 7, 9, seed += 3);                // 4 tiles: the narrow tile
  CheckWinograd(16, 10, 14, 8, seed += 3, 4, false);    // 12 tiles: 8 + a narrow 4
  CheckWinograd(8, 9, 8, 8, seed += 3);  // rows of one vector: both its edges read in place
  // Rows of 4 to 7 halves, read in place as their two ends.
  CheckWinograd(9, 6, 5, 8, seed += 3);
  CheckWinograd(7, 5, 4, 9, seed += 3, 4, false);  // ReLU
  CheckWinograd(10, 9, 6, 8, seed += 3);           // two tile rows
  // At most 4 tiles: three micro-tiles of output channels a GEMM call.
  CheckWinograd(40, 7, 7, 25, seed += 3);           // 4 tiles; a group of 3 and one of 1
  CheckWinograd(16, 4, 12, 24, seed += 3, 4, false);  // 3 tiles; one group, ReLU
  CheckWinograd(9, 3, 3, 57, seed += 3);            // 1 tile; groups of 3, 3 and 2
  // The fp16 table picks F(4x4) for a SqueezeNet fire layer (27x27, 32 to
  // 128 channels) when asked for it, and im2col when not.
  const ref::Conv2DParams fire = ConvParams(32, 27, 27, 128, 3, 1, 1);
  const std::vector<float> filter(128 * 32 * 9, 0.5f);
  EXPECT_STREQ(CreateConv2dKernel(*Fp16Table(), fire, filter.data(), 4)->name(), "winograd_4x4");
  EXPECT_STREQ(CreateConv2dKernel(*Fp16Table(), fire, filter.data(), 0)->name(),
               "gemm_im2col_fp16");
  // Tiles counted in whole vectors of 8, or exactly the last 1 to 4 of
  // them: ResNet-18's 14x14 layers (16 tiles) run F(4x4), and so do its
  // 7x7 ones (4 tiles in the narrow tile, against 16 at F(2x2)).
  const std::vector<float> deep(256 * 256 * 9, 0.5f);
  EXPECT_STREQ(CreateConv2dKernel(*Fp16Table(), ConvParams(256, 14, 14, 256, 3, 1, 1),
                                  deep.data(), 4)->name(),
               "winograd_4x4");
  EXPECT_STREQ(CreateConv2dKernel(*Fp16Table(), ConvParams(256, 7, 7, 256, 3, 1, 1),
                                  deep.data(), 4)->name(),
               "winograd_4x4");
}

TEST(Fp16Test, Winograd2x2) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 950;
  CheckWinograd(16, 7, 7, 16, seed += 3, 2);   // ResNet-18's last map size
  CheckWinograd(9, 5, 6, 11, seed += 3, 2);    // partial tiles, odd channels
  CheckWinograd(300, 4, 4, 8, seed += 3, 2);   // one half block of more than kc channels
  CheckWinograd(520, 7, 7, 9, seed += 3, 2, false);  // ResNet-18's 512: one half block, ReLU
  CheckWinograd(1030, 3, 5, 9, seed += 3, 2);  // past one block: M sums kc blocks in floats
  CheckWinograd(8, 13, 13, 24, seed += 3, 2);  // several panels of tiles
  CheckWinograd(8, 13, 13, 24, seed += 3, 2, false);  // ReLU
  CheckWinograd(8, 6, 4, 8, seed += 3, 2);  // rows of 4, read as their two ends
  CheckWinograd(16, 3, 4, 17, seed += 3, 2);  // 4 tiles: micro-tiles in threes
}

TEST(Fp16Test, Winograd6x6) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 970;
  CheckWinograd(16, 13, 13, 16, seed += 3, 6);  // partial tiles at both edges
  CheckWinograd(24, 27, 21, 40, seed += 3, 6);  // channels past the tile
  CheckWinograd(300, 12, 12, 8, seed += 3, 6);  // one half block of more than kc channels
  CheckWinograd(1027, 6, 7, 10, seed += 3, 6);  // past one block: M in floats
  CheckWinograd(5, 6, 3, 3, seed += 3, 6);      // one partial tile, few channels
  CheckWinograd(16, 56, 56, 24, seed += 3, 6);  // ResNet-18's first maps: many panels
  CheckWinograd(64, 7, 50, 9, seed += 3, 6);    // runs across tile rows
  CheckWinograd(32, 13, 62, 16, seed += 3, 6, false);  // ReLU; groups of 8 across panels
  CheckWinograd(16, 14, 14, 16, seed += 3, 6);          // 9 tiles: 8 + a narrow 1
  CheckWinograd(8, 9, 9, 8, seed += 3, 6);  // rows of one vector and a bit; two tiles a row
  CheckWinograd(9, 5, 4, 8, seed += 3, 6);  // rows of 4: read as their two ends
  CheckWinograd(24, 7, 7, 33, seed += 3, 6, false);  // 4 tiles: micro-tiles in threes, ReLU
  // ResNet-18's 56x56 layers run F(6x6) when asked for it.
  const std::vector<float> filter(64 * 64 * 9, 0.5f);
  EXPECT_STREQ(CreateConv2dKernel(*Fp16Table(), ConvParams(64, 56, 56, 64, 3, 1, 1),
                                  filter.data(), 6)->name(),
               "winograd_6x6");
}

// The 3x3 depthwise bands (half-precision padded input) against a double
// reference: 9 products summed in half precision.
void CheckDepthwise(int64_t channels, int64_t h, int64_t w, int64_t multiplier, int64_t stride_h,
                    int64_t stride_w, int64_t pad, uint32_t seed, float max_limit = 6.f) {
  ref::DepthwiseConv2dParams p;
  p.batch = 1;
  p.channels = channels;
  p.in_h = h;
  p.in_w = w;
  p.multiplier = multiplier;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = stride_h;
  p.stride_w = stride_w;
  p.pad_top = p.pad_left = pad;
  p.out_h = (h + 2 * pad - 3) / stride_h + 1;
  p.out_w = (w + 2 * pad - 3) / stride_w + 1;
  // max_limit 0: no activation.
  p.activation.type = max_limit > 0 ? ActivationType::RELUX : ActivationType::NOOP;
  p.activation.max_limit = max_limit;
  const int activation = max_limit > 0 ? kTileActClamp : kTileActNone;
  const int64_t out_c = channels * multiplier;
  const std::vector<float> input = RandomFloats(channels * h * w, seed, -3.f, 3.f);
  const std::vector<float> filter = RandomFloats(multiplier * channels * 9, seed + 1);
  const std::vector<float> bias = RandomFloats(out_c, seed + 2);
  const std::vector<float> ri = Rounded(input), rf = Rounded(filter);
  const int64_t out_plane = p.out_h * p.out_w;
  std::vector<double> want(out_c * out_plane), tolerance(want.size());
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t m = 0; m < multiplier; ++m) {
      const int64_t oc = c * multiplier + m;
      for (int64_t oh = 0; oh < p.out_h; ++oh) {
        for (int64_t ow = 0; ow < p.out_w; ++ow) {
          Dot dot(9);
          dot.StartAtHalf(bias[oc]);
          for (int64_t kh = 0; kh < 3; ++kh) {
            for (int64_t kw = 0; kw < 3; ++kw) {
              const int64_t ih = oh * stride_h - pad + kh, iw = ow * stride_w - pad + kw;
              const bool inside = ih >= 0 && ih < h && iw >= 0 && iw < w;
              dot.Add(rf[(m * channels + c) * 9 + kh * 3 + kw],
                      inside ? ri[(c * h + ih) * w + iw] : 0.0);
            }
          }
          const int64_t o = oc * out_plane + oh * p.out_w + ow;
          want[o] = Activate(dot.value, activation, max_limit);
          tolerance[o] = dot.Tolerance();
        }
      }
    }
  }
  const KernelTable* table = Fp16Table();
  ASSERT_TRUE(DepthwiseConv3x3::Supports(*table, p));
  DepthwiseConv3x3 kernel(*table, p);
  const std::vector<uint16_t> half_input = ToHalves(*table, input);
  for (auto& pool : testing::PoolsUnderTest()) {
    SCOPED_TRACE(::testing::Message() << "depthwise " << channels << "x" << h << "x" << w
                                      << " multiplier " << multiplier << " stride " << stride_h
                                      << "," << stride_w << " pad " << pad << " threads "
                                      << NumThreads(pool.get()));
    // NaN scratch: a kernel reading a column the band never wrote fails.
    std::vector<float> scratch(kernel.ScratchBytes(NumThreads(pool.get())) / 4 + 1,
                               std::nanf(""));
    std::vector<float> output(want.size(), std::nanf(""));
    kernel.Run(input.data(), filter.data(), bias.data(), output.data(), pool.get(),
               scratch.data());
    ExpectWithin(output, want, tolerance);
    // On half tensors: the same sums, rounded to half once more.
    ASSERT_TRUE(kernel.SupportsHalf());
    std::vector<double> half_tolerance(want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      half_tolerance[i] = tolerance[i] + kHalfUnit * std::fabs(want[i]);
    }
    std::vector<uint16_t> half_output(want.size(), 0x7e00);  // NaN
    std::fill(scratch.begin(), scratch.end(), std::nanf(""));
    kernel.RunHalf(half_input.data(), filter.data(), bias.data(), half_output.data(), pool.get(),
                   scratch.data());
    ExpectWithin(FromHalves(*table, half_output), want, half_tolerance);
  }
}

TEST(Fp16Test, Depthwise3x3) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 700;
  for (int64_t stride : {1, 2}) {
    for (int64_t w : {1, 2, 7, 8, 9, 14, 16, 17, 25, 33}) {
      CheckDepthwise(3, 5, w, 1, stride, stride, 1, seed += 3);
    }
    CheckDepthwise(4, 112, 30, 1, stride, stride, 1, seed += 3);  // several bands
    CheckDepthwise(2, 9, 11, 3, stride, stride, 0, seed += 3);    // multiplier, no padding
    // Band rows copied in 64-byte steps: whole ones, and a ragged end.
    CheckDepthwise(2, 5, 64, 1, stride, stride, 1, seed += 3);
    CheckDepthwise(2, 5, 70, 1, stride, stride, 1, seed += 3);
  }
  CheckDepthwise(3, 10, 13, 1, 2, 1, 1, seed += 3);  // strides differ per axis
  CheckDepthwise(3, 10, 13, 1, 1, 2, 1, seed += 3);
  // A clamp bound that is no half value: the activation in single precision.
  CheckDepthwise(3, 7, 19, 1, 1, 1, 1, seed += 3, 0.3f);
  CheckDepthwise(3, 7, 19, 1, 2, 2, 1, seed += 3, 0.3f);
  CheckDepthwise(3, 7, 19, 1, 1, 1, 1, seed += 3, 0.f);  // no activation
}

// Small half planes run 8 channels at a time as vector lanes: whole and
// partial groups of channels, planes whose pixel count is not a multiple
// of 8, both strides, padding or none, inputs wider than the outputs read.
TEST(Fp16Test, Depthwise3x3PackedChannels) {
  if (Fp16Table() == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 800;
  for (int64_t stride : {1, 2}) {
    CheckDepthwise(16, 7, 7, 1, stride, stride, 1, seed += 3);   // MobileNet v2's 7x7
    CheckDepthwise(13, 14, 14, 1, stride, stride, 1, seed += 3);  // a partial group
    CheckDepthwise(3, 3, 3, 1, stride, stride, 1, seed += 3);     // 9 pixels, 3 channels
    CheckDepthwise(9, 2, 5, 1, stride, stride, 1, seed += 3);     // short plane
    CheckDepthwise(8, 5, 9, 1, stride, stride, 0, seed += 3);     // no padding
    CheckDepthwise(24, 28, 28, 1, stride, stride, 1, seed += 3);  // widest packed
    CheckDepthwise(5, 6, 11, 1, stride, stride, 0, seed += 3, 0.3f);  // float clamp
    CheckDepthwise(7, 9, 10, 1, stride, stride, 1, seed += 3, 0.f);   // no activation
  }
  CheckDepthwise(11, 10, 13, 1, 2, 1, 1, seed += 3);  // strides differ per axis
  CheckDepthwise(11, 10, 13, 1, 1, 2, 1, seed += 3);
  CheckDepthwise(4, 1, 9, 1, 1, 1, 1, seed += 3);  // one row
  CheckDepthwise(2, 300, 28, 1, 1, 1, 1, seed += 3);  // too many pixels: the bands
  // Rows of whole groups of 8 input pixels (stored in place), and an
  // unpadded stride 2 whose last column and row no output reads (pixels
  // that go to the spare one).
  CheckDepthwise(8, 20, 16, 1, 2, 2, 1, seed += 3);
  CheckDepthwise(8, 10, 10, 1, 2, 2, 0, seed += 3);
  CheckDepthwise(16, 9, 24, 1, 1, 1, 1, seed += 3);
}

// The kernels of half tensors that need no tolerance: the half to float
// conversion (exact), packing half rows (a copy) and the half sum (one
// rounding, the same as rounding the float sum of two halves).
TEST(Fp16Test, HalfTensorKernels) {
  const KernelTable* table = Fp16Table();
  if (table == nullptr) GTEST_SKIP() << "no ARMv8.2 FP16 arithmetic on this CPU";
  uint32_t seed = 900;
  for (int64_t count : {0, 1, 7, 8, 9, 15, 16, 17, 33, 100}) {
    SCOPED_TRACE(::testing::Message() << "count " << count);
    const std::vector<float> a = Rounded(RandomFloats(count, seed += 2, -40000.f, 40000.f));
    const std::vector<float> b = Rounded(RandomFloats(count, seed + 1, -40000.f, 40000.f));
    const std::vector<uint16_t> ha = ToHalves(*table, a), hb = ToHalves(*table, b);
    EXPECT_EQ(FromHalves(*table, ha), a);  // values already half are kept exactly
    std::vector<uint16_t> sum(count + 1, 0x1234);
    table->fp16_add(ha.data(), hb.data(), count, sum.data());
    EXPECT_EQ(sum[count], 0x1234) << "wrote past the end";
    sum.resize(count);
    std::vector<float> want(count);
    for (int64_t i = 0; i < count; ++i) want[i] = RoundToHalf(a[i] + b[i]);  // may be +-inf
    EXPECT_EQ(FromHalves(*table, sum), want);
  }
  // Panels of 24 columns from half rows of stride 40: full and partial.
  const std::vector<float> rows = Rounded(RandomFloats(5 * 40, 950));
  const std::vector<uint16_t> half_rows = ToHalves(*table, rows);
  for (int64_t cols : {24, 1, 2, 4, 7, 8, 9, 15, 16, 17, 23}) {
    std::vector<uint16_t> panel(5 * 24, 0x7e00);
    table->fp16_pack_half_columns(half_rows.data() + 3, cols, 5, 40, panel.data());
    const std::vector<float> got = FromHalves(*table, panel);
    for (int64_t d = 0; d < 5; ++d) {
      for (int64_t j = 0; j < 24; ++j) {
        EXPECT_EQ(got[d * 24 + j], j < cols ? rows[d * 40 + 3 + j] : 0.f)
            << "cols " << cols << " d " << d << " j " << j;
      }
    }
  }
  // Rows packed tight (stride = cols): a part vector never reads past them.
  for (int64_t cols : {1, 2, 3, 5, 7}) {
    const std::vector<uint16_t> tight(half_rows.begin(), half_rows.begin() + 5 * cols);
    std::vector<uint16_t> panel(5 * 24, 0x7e00);
    table->fp16_pack_half_columns(tight.data(), cols, 5, cols, panel.data());
    const std::vector<float> got = FromHalves(*table, panel);
    for (int64_t d = 0; d < 5; ++d) {
      for (int64_t j = 0; j < 24; ++j) {
        EXPECT_EQ(got[d * 24 + j], j < cols ? rows[d * cols + j] : 0.f)
            << "tight cols " << cols << " d " << d << " j " << j;
      }
    }
  }
}

// The Conv2D and FullyConnected ops on a runtime that asks for fp16: the
// half-precision kernels where the CPU has them, else the fp32 kernels with
// bit-identical results (qemu -cpu cortex-a53 has no FP16 arithmetic).
TEST(Fp16Test, OpsFallBackToFp32WithoutFp16) {
  const bool has_fp16 = Fp16Table() != nullptr;
  testing::TestCpuRuntime fp32_runtime(2), fp16_runtime(2);
  fp16_runtime.set_fp16(true);
  OpContext context;
  context.runtime = &fp16_runtime;
  const KernelTable* table = ContextKernelTable(&context);
  if (has_fp16) {
    ASSERT_NE(table, nullptr);
    EXPECT_STREQ(table->name, "neon_fp16");
  } else {
    EXPECT_EQ(table, ActiveKernelTable());
  }
  const std::vector<float> input = RandomFloats(16 * 10 * 10, 61);
  const std::vector<float> filter = RandomFloats(24 * 16 * 9, 62);
  const std::vector<float> bias = RandomFloats(24, 63);
  const std::vector<float> fc_input = RandomFloats(2 * 200, 64);
  const std::vector<float> fc_weight = RandomFloats(30 * 200, 65);
  const std::vector<float> fc_bias = RandomFloats(30, 66);
  std::vector<float> conv_out[2], fc_out[2];
  testing::TestCpuRuntime* runtimes[2] = {&fp32_runtime, &fp16_runtime};
  for (int i = 0; i < 2; ++i) {
    testing::OpTester conv("Conv2D", RegisterConv2D);
    conv.WithRuntime(runtimes[i])
        .Input("input", {1, 16, 10, 10}, input)
        .Weight("filter", {24, 16, 3, 3}, filter)
        .Weight("bias", {24}, bias)
        .Output("output")
        .Args("strides", std::vector<int64_t>{1, 1})
        .Args("pads", std::vector<int64_t>{1, 1, 1, 1})
        .Arg("activation", "RELU");
    ASSERT_TRUE(conv.Run().ok());
    conv_out[i] = conv.OutputData("output");
    testing::OpTester fc("FullyConnected", RegisterFullyConnected);
    fc.WithRuntime(runtimes[i])
        .Input("x", {2, 200}, fc_input)
        .Weight("w", {30, 200}, fc_weight)
        .Weight("b", {30}, fc_bias)
        .Output("y");
    ASSERT_TRUE(fc.Run().ok());
    fc_out[i] = fc.OutputData("y");
  }
  if (!has_fp16) {
    EXPECT_EQ(conv_out[0], conv_out[1]);
    EXPECT_EQ(fc_out[0], fc_out[1]);
  } else {
    // fp16: close to fp32 (|x|, |w| < 1 over 144 taps), and not the fp32 result.
    testing::ExpectNear(conv_out[1], conv_out[0], 0.05f, 0.01f);
    EXPECT_NE(conv_out[0], conv_out[1]);
    testing::ExpectNear(fc_out[1], fc_out[0], 0.05f, 0.01f);
    EXPECT_NE(fc_out[0], fc_out[1]);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
