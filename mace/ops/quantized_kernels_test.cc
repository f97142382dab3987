// The uint8 CPU kernels through OpTester, bit for bit against the uint8
// reference kernels (ref/quantized/) at edge shapes, and their refusals of
// bad quantization, each naming the tensor at fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mace/ops/common/quantize.h"
#include "mace/ops/ref/quantized/concat.h"
#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/ops/ref/quantized/eltwise.h"
#include "mace/ops/ref/quantized/mat_mul.h"
#include "mace/ops/ref/quantized/pooling.h"
#include "mace/ops/ref/quantized/resize_bilinear.h"
#include "mace/ops/ref/quantized/softmax.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::OpTester;
using Ints = std::vector<int64_t>;

std::vector<uint8_t> RandomBytes(int64_t count, uint32_t seed, int low = 0, int high = 255) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(low, high);
  std::vector<uint8_t> values(count);
  for (uint8_t& v : values) v = static_cast<uint8_t>(dist(rng));
  return values;
}

std::vector<int8_t> RandomInt8(int64_t count, uint32_t seed) {
  std::vector<int8_t> values;
  for (uint8_t v : RandomBytes(count, seed, 1, 255)) values.push_back(static_cast<int8_t>(v - 128));
  return values;
}

std::vector<uint8_t> AsBytes(const std::vector<int8_t>& values) {
  return std::vector<uint8_t>(values.begin(), values.end());
}

std::vector<int32_t> RandomInts(int64_t count, uint32_t seed, int low, int high) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(low, high);
  std::vector<int32_t> values(count);
  for (int32_t& v : values) v = dist(rng);
  return values;
}

QuantParams Quant(float scale, int32_t zero_point) {
  QuantParams quant;
  quant.scale = scale;
  quant.zero_point = zero_point;
  return quant;
}

QuantizedMultiplier Multiplier(double real) {
  QuantizedMultiplier m;
  EXPECT_TRUE(MakeQuantizedMultiplier(real, "test", &m).ok());
  return m;
}

OutputClamp Relu6Clamp(float scale, int32_t zero_point) {
  const int64_t top = zero_point + static_cast<int64_t>(std::round(6.0 / scale));
  return OutputClamp{zero_point, zero_point, static_cast<int32_t>(std::min<int64_t>(top, 255))};
}

void ExpectRunFails(OpTester* tester, const std::string& needle) {
  const MaceStatus status = tester->Run();
  ASSERT_FALSE(status.ok()) << needle;
  EXPECT_NE(status.information().find(needle), std::string::npos) << status.ToString();
}

void ExpectRunOk(OpTester* tester) {
  const MaceStatus status = tester->Run();
  ASSERT_TRUE(status.ok()) << status.ToString();
}

// The weight's QuantParams and the kernel's quantization: per tensor
// (w_scale, w_zp) for uint8 weights, per channel (channel_scale(c)) for
// int8 ones. The output clamp is left for the caller.
ref::quantized::ConvQuantization WeightQuantization(bool int8, int64_t channels, float in_scale,
                                                    int32_t in_zp, float w_scale, int32_t w_zp,
                                                    const std::function<float(int64_t)>& channel_scale,
                                                    float out_scale, QuantParams* w_quant) {
  *w_quant = Quant(w_scale, int8 ? 0 : w_zp);
  ref::quantized::ConvQuantization quant;
  quant.input_zero_point = in_zp;
  quant.filter_zero_point = int8 ? 0 : w_zp;
  if (!int8) {
    quant.multipliers.push_back(Multiplier(double{in_scale} * w_scale / out_scale));
    return quant;
  }
  w_quant->scale = 0.f;
  for (int64_t c = 0; c < channels; ++c) {
    w_quant->channel_scales.push_back(channel_scale(c));
    quant.multipliers.push_back(Multiplier(double{in_scale} * channel_scale(c) / out_scale));
  }
  return quant;
}

// ---- DepthwiseConv2d ----

struct DepthwiseCase {
  int64_t channels, multiplier, h, w, k, stride, pad;
  int32_t input_zp, filter_zp;
  bool int8, relu6;
};

void RunDepthwise(const DepthwiseCase& c) {
  SCOPED_TRACE(::testing::Message() << "channels " << c.channels << " multiplier " << c.multiplier
                                    << " k " << c.k << " int8 " << c.int8);
  const int64_t out_c = c.channels * c.multiplier;
  ref::DepthwiseConv2dParams p;
  p.batch = 2;
  p.channels = c.channels;
  p.in_h = c.h;
  p.in_w = c.w;
  p.multiplier = c.multiplier;
  p.kernel_h = p.kernel_w = c.k;
  p.stride_h = p.stride_w = c.stride;
  p.pad_top = p.pad_left = c.pad;
  p.out_h = (c.h + 2 * c.pad - c.k) / c.stride + 1;
  p.out_w = (c.w + 2 * c.pad - c.k) / c.stride + 1;
  const std::vector<uint8_t> input = RandomBytes(2 * c.channels * c.h * c.w, 11);
  const std::vector<uint8_t> filter_u8 = RandomBytes(out_c * c.k * c.k, 12);
  const std::vector<int8_t> filter_i8 = RandomInt8(out_c * c.k * c.k, 13);
  const std::vector<int32_t> bias = RandomInts(out_c, 14, -5000, 5000);
  const float in_scale = 0.02f, filter_scale = 0.007f, out_scale = 0.05f;
  QuantParams filter_quant = Quant(filter_scale, c.int8 ? 0 : c.filter_zp);
  ref::quantized::ConvQuantization quant;
  quant.input_zero_point = c.input_zp;
  quant.filter_zero_point = c.int8 ? 0 : c.filter_zp;
  if (c.int8) {
    filter_quant.scale = 0.f;
    for (int64_t i = 0; i < out_c; ++i) {
      filter_quant.channel_scales.push_back(0.001f * (i + 1));
      quant.multipliers.push_back(Multiplier(double{in_scale} * (0.001f * (i + 1)) / out_scale));
    }
  } else {
    quant.multipliers.push_back(Multiplier(double{in_scale} * filter_scale / out_scale));
  }
  const int32_t out_zp = 30;
  quant.output = c.relu6 ? Relu6Clamp(out_scale, out_zp) : OutputClamp{out_zp, 0, 255};
  std::vector<uint8_t> expected(2 * out_c * p.out_h * p.out_w);
  if (c.int8) {
    ref::quantized::DepthwiseConv2d(p, quant, input.data(), filter_i8.data(), bias.data(),
                                    expected.data());
  } else {
    ref::quantized::DepthwiseConv2d(p, quant, input.data(), filter_u8.data(), bias.data(),
                                    expected.data());
  }
  OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
  tester.KernelType(DT_UINT8)
      .QuantizedInput("x", {2, c.channels, c.h, c.w}, input, in_scale, c.input_zp)
      .QuantizedWeight("filter", c.int8 ? DT_INT8 : DT_UINT8, {c.multiplier, c.channels, c.k, c.k},
                       c.int8 ? AsBytes(filter_i8) : filter_u8, filter_quant)
      .IntWeight("bias", {out_c}, bias)
      .QuantizedOutput("y", out_scale, out_zp)
      .Args("strides", Ints{c.stride, c.stride})
      .Args("pads", Ints{c.pad, c.pad, c.pad, c.pad});
  if (c.relu6) tester.Arg("activation", "RELU6");
  ExpectRunOk(&tester);
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, out_c, p.out_h, p.out_w}));
  EXPECT_EQ(tester.OutputBytes("y"), expected);
}

TEST(QuantizedKernels, DepthwiseConv2dMatchesReference) {
  const DepthwiseCase cases[] = {
      // channels mult h w k stride pad zq zw int8 relu6
      {3, 1, 7, 9, 3, 1, 1, 128, 120, false, true}, {4, 2, 8, 5, 3, 2, 1, 0, 255, false, false},
      {1, 1, 1, 1, 1, 1, 0, 255, 0, false, false},  {5, 1, 6, 6, 3, 1, 1, 77, 0, true, true},
      {2, 3, 9, 4, 5, 2, 2, 200, 0, true, false},
  };
  for (const DepthwiseCase& c : cases) RunDepthwise(c);
}

// ---- Conv2D with a window: the implicit GEMM where the CPU has VNNI, and
// the im2col GEMM it hands over to for a bias whose total could saturate ----

void RunConvWindow(int64_t stride, bool int8, bool big_bias) {
  SCOPED_TRACE(::testing::Message() << "stride " << stride << " int8 " << int8 << " big bias "
                                    << big_bias);
  const int64_t in_c = 5, h = 9, w = 7, out_c = 14, k = 3;
  ref::Conv2DParams p;
  p.batch = 1;
  p.in_channels = in_c;
  p.in_h = h;
  p.in_w = w;
  p.out_channels = out_c;
  p.kernel_h = p.kernel_w = k;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = 1;
  p.out_h = (h + 2 - k) / stride + 1;
  p.out_w = (w + 2 - k) / stride + 1;
  const int64_t depth = in_c * k * k;
  const std::vector<uint8_t> input = RandomBytes(in_c * h * w, 41);
  const std::vector<uint8_t> filter_u8 = RandomBytes(out_c * depth, 42);
  const std::vector<int8_t> filter_i8 = RandomInt8(out_c * depth, 43);
  std::vector<int32_t> bias = RandomInts(out_c, 44, -5000, 5000);
  if (big_bias) bias[3] = std::numeric_limits<int32_t>::max() - 7;
  const float in_scale = 0.02f, filter_scale = 0.007f, out_scale = 0.05f;
  const int32_t in_zp = 117, filter_zp = 140, out_zp = 30;
  QuantParams filter_quant;
  ref::quantized::ConvQuantization quant = WeightQuantization(
      int8, out_c, in_scale, in_zp, filter_scale, filter_zp,
      [](int64_t c) { return 0.001f * (c + 1); }, out_scale, &filter_quant);
  quant.output = OutputClamp{out_zp, 0, 255};
  std::vector<uint8_t> expected(out_c * p.out_h * p.out_w);
  if (int8) {
    ref::quantized::Conv2D(p, quant, input.data(), filter_i8.data(), bias.data(), expected.data());
  } else {
    ref::quantized::Conv2D(p, quant, input.data(), filter_u8.data(), bias.data(), expected.data());
  }
  OpTester tester("Conv2D", RegisterConv2D);
  tester.KernelType(DT_UINT8)
      .QuantizedInput("x", {1, in_c, h, w}, input, in_scale, in_zp)
      .QuantizedWeight("filter", int8 ? DT_INT8 : DT_UINT8, {out_c, in_c, k, k},
                       int8 ? AsBytes(filter_i8) : filter_u8, filter_quant)
      .IntWeight("bias", {out_c}, bias)
      .QuantizedOutput("y", out_scale, out_zp)
      .Args("strides", Ints{stride, stride})
      .Args("pads", Ints{1, 1, 1, 1});
  ExpectRunOk(&tester);
  EXPECT_EQ(tester.OutputBytes("y"), expected);
}

TEST(QuantizedKernels, Conv2DWindowMatchesReference) {
  for (int64_t stride : {1, 2}) {
    for (bool int8 : {false, true}) {
      for (bool big_bias : {false, true}) RunConvWindow(stride, int8, big_bias);
    }
  }
}

// ---- FullyConnected ----

void RunFullyConnected(bool int8, bool rank4) {
  SCOPED_TRACE(::testing::Message() << "int8 " << int8 << " rank4 " << rank4);
  const int64_t batch = 3, depth = 2 * 3 * 5, units = 7;
  const std::vector<uint8_t> input = RandomBytes(batch * depth, 21);
  const std::vector<uint8_t> weight_u8 = RandomBytes(units * depth, 22);
  const std::vector<int8_t> weight_i8 = RandomInt8(units * depth, 23);
  const std::vector<int32_t> bias = RandomInts(units, 24, -20000, 20000);
  const float in_scale = 0.03f, w_scale = 0.004f, out_scale = 0.02f;
  const int32_t in_zp = 100, w_zp = 140, out_zp = 128;
  QuantParams w_quant;
  ref::quantized::ConvQuantization quant = WeightQuantization(
      int8, units, in_scale, in_zp, w_scale, w_zp,
      [](int64_t u) { return 0.002f + 0.0005f * u; }, out_scale, &w_quant);
  quant.output = OutputClamp{out_zp, out_zp, 255};  // RELU
  std::vector<uint8_t> expected(batch * units);
  const ref::quantized::FullyConnectedShape shape{batch, depth, units};
  if (int8) {
    ref::quantized::FullyConnected(shape, quant, input.data(), weight_i8.data(), bias.data(),
                                   expected.data());
  } else {
    ref::quantized::FullyConnected(shape, quant, input.data(), weight_u8.data(), bias.data(),
                                   expected.data());
  }
  OpTester tester("FullyConnected", RegisterFullyConnected);
  const std::vector<int64_t> input_shape =
      rank4 ? std::vector<int64_t>{batch, 2, 3, 5} : std::vector<int64_t>{batch, depth};
  tester.KernelType(DT_UINT8)
      .QuantizedInput("x", input_shape, input, in_scale, in_zp)
      .QuantizedWeight("w", int8 ? DT_INT8 : DT_UINT8, {units, depth},
                       int8 ? AsBytes(weight_i8) : weight_u8, w_quant)
      .IntWeight("bias", {units}, bias)
      .QuantizedOutput("y", out_scale, out_zp)
      .Arg("activation", "RELU");
  ExpectRunOk(&tester);
  EXPECT_EQ(tester.OutputBytes("y"), expected);
}

TEST(QuantizedKernels, FullyConnectedMatchesReference) {
  for (bool int8 : {false, true}) {
    for (bool rank4 : {false, true}) RunFullyConnected(int8, rank4);
  }
}

// ---- MatMul ----

TEST(QuantizedKernels, MatMulMatchesReferenceWithBroadcastAndTransposes) {
  const int64_t m = 3, k = 5, n = 4;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "transpose_a " << ta << " transpose_b " << tb);
      // A [2, m, k] against one B [k, n] shared by both batches.
      const std::vector<uint8_t> a = RandomBytes(2 * m * k, 31);
      const std::vector<uint8_t> b = RandomBytes(k * n, 32);
      ref::quantized::ConvQuantization quant;
      quant.input_zero_point = 7;
      quant.filter_zero_point = 250;
      quant.multipliers = {Multiplier(0.01 * 0.02 / 0.05)};
      quant.output = OutputClamp{3, 0, 255};
      ref::quantized::MatMulShape shape{1, m, k, n, ta, tb};
      std::vector<uint8_t> expected(2 * m * n);
      for (int64_t batch = 0; batch < 2; ++batch) {
        ref::quantized::MatMul(shape, quant, a.data() + batch * m * k, b.data(),
                               expected.data() + batch * m * n);
      }
      OpTester tester("MatMul", RegisterMatMul);
      tester.KernelType(DT_UINT8)
          .QuantizedInput("a", ta ? std::vector<int64_t>{2, k, m} : std::vector<int64_t>{2, m, k},
                          a, 0.01f, 7)
          .QuantizedInput("b", tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}, b,
                          0.02f, 250)
          .QuantizedOutput("y", 0.05f, 3)
          .Arg("transpose_a", ta ? 1 : 0)
          .Arg("transpose_b", tb ? 1 : 0);
      ExpectRunOk(&tester);
      EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, m, n}));
      EXPECT_EQ(tester.OutputBytes("y"), expected);
    }
  }
}

// ---- Pooling ----

TEST(QuantizedKernels, PoolingMatchesReference) {
  for (int type : {1, 2}) {
    for (bool include_pad : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "type " << type << " count_include_pad " << include_pad);
      const std::vector<uint8_t> input = RandomBytes(2 * 3 * 7 * 6, 41);
      ref::PoolingParams p;
      p.type = static_cast<ref::PoolingType>(type);
      p.batch = 2;
      p.channels = 3;
      p.in_h = 7;
      p.in_w = 6;
      p.kernel_h = p.kernel_w = 3;
      p.stride_h = p.stride_w = 2;
      p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
      p.out_h = (7 + 2 - 3) / 2 + 1;
      p.out_w = (6 + 2 - 3) / 2 + 1;
      p.count_include_pad = include_pad;
      std::vector<uint8_t> expected(2 * 3 * p.out_h * p.out_w);
      ref::quantized::Pooling(p, 99, input.data(), expected.data());
      OpTester tester("Pooling", RegisterPooling);
      tester.KernelType(DT_UINT8)
          .QuantizedInput("x", {2, 3, 7, 6}, input, 0.1f, 99)
          .Output("y", DT_UINT8)
          .Arg("pooling_type", type)
          .Args("kernels", Ints{3, 3})
          .Args("strides", Ints{2, 2})
          .Args("pads", Ints{1, 1, 1, 1})
          .Arg("count_include_pad", include_pad ? 1 : 0);
      ExpectRunOk(&tester);
      EXPECT_EQ(tester.OutputBytes("y"), expected);
      // The output took the input's quantization.
      EXPECT_EQ(tester.GetOutput("y").scale(), 0.1f);
      EXPECT_EQ(tester.GetOutput("y").zero_point(), 99);
    }
  }
}

// ---- Eltwise ----

void RunEltwise(int type, const std::vector<int64_t>& a_shape, const std::vector<int64_t>& b_shape,
                bool relu) {
  SCOPED_TRACE(::testing::Message() << "type " << type << " b size " << b_shape.size());
  int64_t a_count = 1, b_count = 1;
  for (int64_t d : a_shape) a_count *= d;
  for (int64_t d : b_shape) b_count *= d;
  const std::vector<uint8_t> a = RandomBytes(a_count, 51), b = RandomBytes(b_count, 52);
  const QuantParams qa = Quant(0.05f, 120), qb = Quant(0.013f, 3), qy = Quant(0.08f, 60);
  const ref::quantized::EltwiseKind kind = type == 0   ? ref::quantized::EltwiseKind::kAdd
                                           : type == 1 ? ref::quantized::EltwiseKind::kSub
                                                       : ref::quantized::EltwiseKind::kMul;
  ref::quantized::EltwiseQuantization quant;
  const bool swapped = a_count == 1 && b_count > 1;
  ASSERT_TRUE(ref::quantized::MakeEltwiseQuantization(kind, swapped ? qb : qa, swapped ? qa : qb,
                                                      qy, "test", &quant)
                  .ok());
  if (relu) quant.output.min = qy.zero_point;
  const int64_t count = std::max(a_count, b_count);
  std::vector<uint8_t> expected(count);
  if (swapped) {
    ref::quantized::Eltwise(quant, b.data(), a.data(), b_count, a_count, expected.data());
  } else {
    ref::quantized::Eltwise(quant, a.data(), b.data(), a_count, b_count, expected.data());
  }
  OpTester tester("Eltwise", RegisterEltwise);
  tester.KernelType(DT_UINT8)
      .QuantizedInput("a", a_shape, a, qa.scale, qa.zero_point)
      .QuantizedInput("b", b_shape, b, qb.scale, qb.zero_point)
      .QuantizedOutput("y", qy.scale, qy.zero_point)
      .Arg("type", type);
  if (relu) tester.Arg("activation", "RELU");
  ExpectRunOk(&tester);
  EXPECT_EQ(tester.OutputBytes("y"), expected);
}

TEST(QuantizedKernels, EltwiseMatchesReference) {
  for (int type : {0, 1, 2}) {
    RunEltwise(type, {2, 3, 4, 5}, {2, 3, 4, 5}, false);
    RunEltwise(type, {1, 3, 1, 7}, {1}, type == 0);
    RunEltwise(type, {1}, {1}, false);
  }
  // A one-value first operand of add and multiply.
  RunEltwise(0, {1, 1, 1, 1}, {1, 2, 3, 3}, false);
  RunEltwise(2, {1}, {9}, true);
}

TEST(QuantizedKernels, EltwiseRefusesWhatItCannotDo) {
  const std::vector<uint8_t> a = RandomBytes(6, 53), b = RandomBytes(3, 54);
  {
    OpTester tester("Eltwise", RegisterEltwise);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("a", {2, 3}, a, 0.1f, 0)
        .QuantizedInput("b", {2, 3}, a, 0.1f, 0)
        .QuantizedOutput("y", 0.1f, 0)
        .Arg("type", 3);  // DIV
    ExpectRunFails(&tester, "no uint8 kernel (only SUM, SUB and PROD do)");
  }
  {
    OpTester tester("Eltwise", RegisterEltwise);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("a", {2, 3}, a, 0.1f, 0)
        .QuantizedInput("b", {1, 3}, b, 0.1f, 0)
        .QuantizedOutput("y", 0.1f, 0)
        .Arg("type", 0);
    ExpectRunFails(&tester, "broadcast in a way the uint8 Eltwise does not support");
  }
  {
    OpTester tester("Eltwise", RegisterEltwise);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("a", {2, 3}, a, 0.1f, 0)
        .QuantizedInput("b", {2, 3}, a, 0.1f, 0)
        .QuantizedOutput("y", std::numeric_limits<float>::infinity(), 0)
        .Arg("type", 0);
    ExpectRunFails(&tester, "tensor 'y' has scale inf");
  }
}

// ---- Concat ----

TEST(QuantizedKernels, ConcatRescalesInputsWithOtherRanges) {
  const std::vector<uint8_t> a = RandomBytes(2 * 3 * 4, 61), b = RandomBytes(2 * 1 * 4, 62),
                             c = RandomBytes(2 * 2 * 4, 63);
  const QuantParams qa = Quant(0.1f, 128), qb = Quant(0.05f, 10), qc = Quant(0.3f, 200);
  const QuantParams qy = Quant(0.1f, 128);  // a is copied, b and c rescaled
  std::vector<ref::quantized::ConcatInput> inputs(3);
  const std::vector<const std::vector<uint8_t>*> data = {&a, &b, &c};
  const QuantParams quants[] = {qa, qb, qc};
  const int64_t runs[] = {3 * 4, 1 * 4, 2 * 4};
  for (int i = 0; i < 3; ++i) {
    inputs[i].data = data[i]->data();
    inputs[i].run = runs[i];
    inputs[i].zero_point = quants[i].zero_point;
    inputs[i].rescale = i != 0;
    if (i != 0) inputs[i].multiplier = Multiplier(double{quants[i].scale} / qy.scale);
  }
  std::vector<uint8_t> expected(2 * 6 * 4);
  ref::quantized::Concat(2, inputs, qy.zero_point, expected.data());
  OpTester tester("Concat", RegisterConcat);
  tester.KernelType(DT_UINT8)
      .QuantizedInput("a", {2, 3, 4}, a, qa.scale, qa.zero_point)
      .QuantizedInput("b", {2, 1, 4}, b, qb.scale, qb.zero_point)
      .QuantizedInput("c", {2, 2, 4}, c, qc.scale, qc.zero_point)
      .QuantizedOutput("y", qy.scale, qy.zero_point)
      .Arg("axis", 1);
  ExpectRunOk(&tester);
  EXPECT_EQ(tester.OutputBytes("y"), expected);

  // Without a range of its own the output cannot hold inputs that differ.
  OpTester unstated("Concat", RegisterConcat);
  unstated.KernelType(DT_UINT8)
      .QuantizedInput("a", {2, 3, 4}, a, qa.scale, qa.zero_point)
      .QuantizedInput("b", {2, 1, 4}, b, qb.scale, qb.zero_point)
      .Output("y", DT_UINT8)
      .Arg("axis", 1);
  ExpectRunFails(&unstated, "output 'y' must state its quantization");
}

// ---- Softmax ----

TEST(QuantizedKernels, SoftmaxMatchesReference) {
  for (int64_t axis_size : {1, 10, 300}) {
    const std::vector<uint8_t> input = RandomBytes(3 * axis_size, 71);
    ref::SoftmaxParams p;
    p.outer = 3;
    p.axis_size = axis_size;
    p.inner = 1;
    std::vector<uint8_t> expected(input.size());
    ref::quantized::Softmax(p, ref::quantized::MakeSoftmaxTable(0.07f), input.data(),
                            expected.data());
    OpTester tester("Softmax", RegisterSoftmax);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("x", {3, axis_size}, input, 0.07f, 140)
        .Output("y", DT_UINT8);
    ExpectRunOk(&tester);
    EXPECT_EQ(tester.OutputBytes("y"), expected) << axis_size;
    EXPECT_EQ(tester.GetOutput("y").scale(), 1.f / 256);
    EXPECT_EQ(tester.GetOutput("y").zero_point(), 0);
  }
  OpTester wrong("Softmax", RegisterSoftmax);
  wrong.KernelType(DT_UINT8)
      .QuantizedInput("x", {2, 4}, RandomBytes(8, 72), 0.07f, 140)
      .QuantizedOutput("y", 0.01f, 5);
  ExpectRunFails(&wrong, "output 'y' has scale 0.01 and zero point 5");
}

// ---- ResizeBilinear ----

TEST(QuantizedKernels, ResizeBilinearMatchesReference) {
  const int64_t sizes[][2] = {{9, 11}, {2, 3}, {1, 1}};
  for (const auto& size : sizes) {
    const std::vector<uint8_t> input = RandomBytes(2 * 3 * 4 * 5, 81);
    ref::ResizeBilinearParams p;
    p.batch = 2;
    p.channels = 3;
    p.in_h = 4;
    p.in_w = 5;
    p.out_h = size[0];
    p.out_w = size[1];
    p.mode = CoordinateMode::HALF_PIXEL;
    std::vector<uint8_t> expected(2 * 3 * size[0] * size[1]);
    ref::quantized::ResizeBilinear(p, input.data(), expected.data());
    OpTester tester("ResizeBilinear", RegisterResizeBilinear);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("x", {2, 3, 4, 5}, input, 0.2f, 17)
        .QuantizedOutput("y", 0.2f, 17)
        .Args("size", Ints{size[0], size[1]})
        .Arg("coordinate_transformation_mode", "half_pixel");
    ExpectRunOk(&tester);
    EXPECT_EQ(tester.OutputBytes("y"), expected) << size[0] << "x" << size[1];
  }
}

// ---- Activation ----

TEST(QuantizedKernels, ActivationClampsInTheQuantizedDomain) {
  const std::vector<uint8_t> input = RandomBytes(4 * 64, 91);
  const float scale = 0.04f;
  const int32_t zp = 70;
  for (const char* type : {"RELU", "RELU6"}) {
    const OutputClamp clamp =
        std::string(type) == "RELU" ? OutputClamp{zp, zp, 255} : Relu6Clamp(scale, zp);
    std::vector<uint8_t> expected;
    for (uint8_t q : input) {
      expected.push_back(
          static_cast<uint8_t>(std::min<int>(std::max<int>(q, clamp.min), clamp.max)));
    }
    OpTester tester("Activation", RegisterActivation);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("x", {4, 64}, input, scale, zp)
        .Output("y", DT_UINT8)
        .Arg("activation", type);
    ExpectRunOk(&tester);
    EXPECT_EQ(tester.OutputBytes("y"), expected) << type;
  }
  OpTester sigmoid("Activation", RegisterActivation);
  sigmoid.KernelType(DT_UINT8)
      .QuantizedInput("x", {4, 64}, input, scale, zp)
      .Output("y", DT_UINT8)
      .Arg("activation", "SIGMOID");
  ExpectRunFails(&sigmoid, "RELU, RELU6 and RELUX only");
}

// ---- Data movement ----

// Runs `type` twice on the same values: as uint8 (q) and as float (q - zp,
// exact), and expects the uint8 output to be the float output + zp, with
// the input's quantization.
struct MoveCase {
  std::string type;
  std::function<MaceStatus(OpRegistry*)> register_fn;
  std::vector<int64_t> shape;
  std::function<void(OpTester*)> args;
  int outputs = 1;
};

void RunMove(const MoveCase& c) {
  SCOPED_TRACE(c.type);
  int64_t count = 1;
  for (int64_t d : c.shape) count *= d;
  const int32_t zp = 37;
  const std::vector<uint8_t> q = RandomBytes(count, 101);
  std::vector<float> real;
  for (uint8_t v : q) real.push_back(static_cast<float>(v - zp));
  OpTester as_float(c.type, c.register_fn);
  as_float.Input("x", c.shape, real);
  OpTester as_uint8(c.type, c.register_fn);
  as_uint8.KernelType(DT_UINT8).QuantizedInput("x", c.shape, q, 0.25f, zp);
  for (int i = 0; i < c.outputs; ++i) {
    as_float.Output("y" + std::to_string(i));
    // One output states the input's quantization, the others none.
    if (i == 0) {
      as_uint8.QuantizedOutput("y0", 0.25f, zp);
    } else {
      as_uint8.Output("y" + std::to_string(i), DT_UINT8);
    }
  }
  c.args(&as_float);
  c.args(&as_uint8);
  ExpectRunOk(&as_float);
  ExpectRunOk(&as_uint8);
  for (int i = 0; i < c.outputs; ++i) {
    const std::string name = "y" + std::to_string(i);
    std::vector<uint8_t> expected;
    for (float v : as_float.OutputData(name)) expected.push_back(static_cast<uint8_t>(v + zp));
    EXPECT_EQ(as_uint8.OutputShape(name), as_float.OutputShape(name));
    EXPECT_EQ(as_uint8.OutputBytes(name), expected) << name;
    EXPECT_EQ(as_uint8.GetOutput(name).scale(), 0.25f);
    EXPECT_EQ(as_uint8.GetOutput(name).zero_point(), zp);
  }
  // An output quantized unlike the input is refused, naming both.
  OpTester mismatched(c.type, c.register_fn);
  mismatched.KernelType(DT_UINT8).QuantizedInput("x", c.shape, q, 0.25f, zp);
  for (int i = 0; i < c.outputs; ++i) mismatched.QuantizedOutput("y" + std::to_string(i), 0.5f, zp);
  c.args(&mismatched);
  ExpectRunFails(&mismatched, "output 'y0' has scale 0.5 and zero point 37 but input 'x'");
}

TEST(QuantizedKernels, DataMovementKeepsQuantization) {
  auto none = [](OpTester*) {};
  const std::vector<MoveCase> cases = {
      {"Reshape",
       RegisterReshape,
       {2, 3, 4},
       [](OpTester* t) {
         t->Args("shape", Ints{4, -1});
       }},
      {"Squeeze", RegisterSqueeze, {2, 1, 3, 1}, none},
      {"Identity", RegisterIdentity, {5, 3}, none},
      {"Transpose",
       RegisterTranspose,
       {2, 3, 4},
       [](OpTester* t) {
         t->Args("dims", Ints{2, 0, 1});
       }},
      {"Split", RegisterSplit, {2, 6, 3}, [](OpTester* t) { t->Arg("axis", 1); }, 3},
      {"Slice",
       RegisterSlice,
       {4, 5, 6},
       [](OpTester* t) {
         t->Args("starts", Ints{1, 0})
             .Args("ends", Ints{4, 5})
             .Args("axes", Ints{0, 2})
             .Args("steps", Ints{2, 2});
       }},
      {"ChannelShuffle",
       RegisterChannelShuffle,
       {2, 6, 3, 2},
       [](OpTester* t) { t->Arg("group", 3); }},
      {"DepthToSpace",
       RegisterDepthToSpace,
       {1, 8, 3, 2},
       [](OpTester* t) { t->Arg("block_size", 2); }},
      {"SpaceToDepth",
       RegisterSpaceToDepth,
       {1, 2, 4, 6},
       [](OpTester* t) { t->Arg("block_size", 2); }},
      {"Pad",
       RegisterPad,
       {1, 2, 3, 3},
       [](OpTester* t) {
         t->Args("paddings", Ints{0, 0, 0, 1, 1, 2, 2, 0});
       }},
  };
  for (const MoveCase& c : cases) RunMove(c);
}

// A non-zero pad constant is quantized with the input's parameters; the
// reflecting modes copy input values.
TEST(QuantizedKernels, PadQuantizesItsConstant) {
  const std::vector<uint8_t> input = RandomBytes(2 * 3, 121);
  for (int type : {0, 1}) {
    OpTester tester("Pad", RegisterPad);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("x", {2, 3}, input, 0.25f, 37)
        .Output("y", DT_UINT8)
        .Args("paddings", Ints{1, 0, 1, 1})
        .Arg("pad_type", type)
        .Arg("constant_value", 1.f);
    ExpectRunOk(&tester);
    const std::vector<uint8_t> got = tester.OutputBytes("y");
    ASSERT_EQ(got.size(), 3u * 5u);
    for (int64_t r = 0; r < 3; ++r) {
      for (int64_t c = 0; c < 5; ++c) {
        const bool inside = r >= 1 && c >= 1 && c <= 3;
        // Real 1 at scale 0.25 is 4 steps above the zero point.
        const int64_t source_r = type == 0 ? r - 1 : (r == 0 ? 1 : r - 1);
        const int64_t source_c = c == 0 ? 1 : c == 4 ? 1 : c - 1;
        const uint8_t expected =
            type == 0 && !inside ? 41 : input[source_r * 3 + (type == 0 ? c - 1 : source_c)];
        EXPECT_EQ(got[r * 5 + c], expected) << "type " << type << " at " << r << ", " << c;
      }
    }
  }
}

// ---- Bad quantization ----

TEST(QuantizedKernels, BadQuantizationNamesTheTensor) {
  const std::vector<uint8_t> input = RandomBytes(1 * 2 * 4 * 4, 111);
  auto pooling = [&](float scale, int32_t zero_point) {
    auto tester = std::make_unique<OpTester>("Pooling", RegisterPooling);
    tester->KernelType(DT_UINT8)
        .QuantizedInput("x", {1, 2, 4, 4}, input, scale, zero_point)
        .Output("y", DT_UINT8)
        .Arg("pooling_type", 2)
        .Args("kernels", Ints{2, 2})
        .Args("strides", Ints{2, 2});
    return tester;
  };
  ExpectRunFails(pooling(0.f, 0).get(), "tensor 'x' has scale 0");
  ExpectRunFails(pooling(std::nanf(""), 0).get(), "tensor 'x' has scale nan");
  ExpectRunFails(pooling(std::numeric_limits<float>::infinity(), 0).get(),
                 "tensor 'x' has scale inf");
  ExpectRunFails(pooling(0.1f, 256).get(), "tensor 'x' has zero point 256");
  ExpectRunFails(pooling(0.1f, -1).get(), "tensor 'x' has zero point -1");

  auto fully_connected = [&](const QuantParams& w_quant, float out_scale) {
    auto tester = std::make_unique<OpTester>("FullyConnected", RegisterFullyConnected);
    tester->KernelType(DT_UINT8)
        .QuantizedInput("x", {1, 32}, input, 0.1f, 3)
        .QuantizedWeight("w", DT_UINT8, {2, 32}, RandomBytes(64, 112), w_quant)
        .QuantizedOutput("y", out_scale, 0);
    return tester;
  };
  ExpectRunFails(fully_connected(Quant(0.1f, 300), 0.2f).get(), "tensor 'w' has zero point 300");
  ExpectRunFails(fully_connected(Quant(-0.1f, 3), 0.2f).get(), "tensor 'w' has scale -0.1");
  ExpectRunFails(fully_connected(Quant(0.1f, 3), 0.f).get(), "tensor 'y' has scale 0");
  {
    // A float weight on the uint8 kernel.
    OpTester tester("FullyConnected", RegisterFullyConnected);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("x", {1, 32}, input, 0.1f, 3)
        .Weight("w", {2, 32}, std::vector<float>(64, 0.5f))
        .QuantizedOutput("y", 0.2f, 0);
    ExpectRunFails(&tester, "'w' is float32 but must be uint8 or int8");
  }
  {
    // Per-channel scales that do not match a depthwise filter's outputs.
    QuantParams quant;
    quant.channel_scales = {0.1f, 0.2f, 0.3f};
    OpTester tester("DepthwiseConv2d", RegisterDepthwiseConv2d);
    tester.KernelType(DT_UINT8)
        .QuantizedInput("x", {1, 2, 4, 4}, input, 0.1f, 3)
        .QuantizedWeight("filter", DT_INT8, {1, 2, 3, 3}, RandomBytes(18, 113), quant)
        .QuantizedOutput("y", 0.2f, 0);
    ExpectRunFails(&tester, "tensor 'filter' has 3 channel scales but the op has 2");
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
