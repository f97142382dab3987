// Each DSP kernel against the CPU uint8 reference (mace/ops/ref/quantized),
// bit for bit: the host serializes a graph, the emulated DSP runs it, and
// the host compares the outputs with the reference's. Fixed seeds, edge
// shapes (channels off the vector width, W = 1, odd sizes), small tensors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/ops/ref/quantized/eltwise.h"
#include "mace/ops/ref/quantized/pooling.h"
#include "mace/ops/ref/quantized/resize_bilinear.h"
#include "mace/ops/ref/quantized/softmax.h"
#include "mace/runtimes/hexagon/graph_builder.h"
#include "mace/runtimes/hexagon/hexagon_control.h"

namespace mace {
namespace hexagon {
namespace {

using Bytes = std::vector<uint8_t>;
namespace refq = ops::ref::quantized;

Bytes RandomBytes(size_t count, std::mt19937* rng) {
  Bytes bytes(count);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>((*rng)() & 0xff);
  return bytes;
}

int64_t OutSize(int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_before,
                int64_t pad_after) {
  return (in + pad_before + pad_after - ((kernel - 1) * dilation + 1)) / stride + 1;
}

class DspKernelsTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    control_ = new HexagonControl;
    control_->Config(DspChannelConfig());
    const MaceStatus status = control_->Init();
    ASSERT_TRUE(status.ok()) << status.information();
  }
  static void TearDownTestSuite() {
    delete control_;
    control_ = nullptr;
  }

  // Runs the graph on the DSP; empty on failure (with a test failure).
  static std::vector<Bytes> RunOnDsp(const DspGraphBuilder& builder,
                                     const std::vector<const Bytes*>& inputs) {
    SerializedGraph graph;
    MaceStatus status = builder.Serialize(&graph);
    EXPECT_TRUE(status.ok()) << status.information();
    status = control_->SetupGraph(graph);
    EXPECT_TRUE(status.ok()) << status.information();
    std::vector<DspBuffer> buffers;
    for (const Bytes* input : inputs) buffers.push_back({input->data(), input->size()});
    std::vector<Bytes> outputs;
    status = control_->ExecuteGraph(buffers, &outputs);
    EXPECT_TRUE(status.ok()) << status.information();
    EXPECT_TRUE(control_->TeardownGraph().ok());
    return outputs;
  }

  static HexagonControl* control_;
};

HexagonControl* DspKernelsTest::control_ = nullptr;

struct ConvCase {
  int64_t batch, in_c, in_h, in_w, out_c, k_h, k_w;
  int64_t stride = 1, dilation = 1, pad = 0;
  bool depthwise = false, per_channel = false, bias = true, relu6 = false;
  // Channel 0's bias near INT32_MAX: its sums saturate, and the kernel
  // takes its exact 64-bit requantization instead of the vector one.
  bool huge_bias = false;
  // Symmetric int8 weights (zero point 0), one multiplier per channel.
  bool int8_weights = false;
};

// Multipliers that keep typical outputs inside the uint8 range: the sum
// over `reduction` taps has a mean of `mean` per tap (zero points off
// centre), a spread of about 5400 sqrt(taps), and a bias of up to 20000.
ops::QuantizedMultiplier RandomMultiplier(int64_t reduction, double mean, std::mt19937* rng) {
  std::uniform_real_distribution<double> spread(0.5, 2.0);
  ops::QuantizedMultiplier m;
  EXPECT_TRUE(ops::MakeQuantizedMultiplier(
                  spread(*rng) * 50.0 /
                      (reduction * mean + std::sqrt(static_cast<double>(reduction)) * 5400.0 +
                       20000.0),
                  "test", &m)
                  .ok());
  return m;
}

void CheckConv(const ConvCase& c, uint32_t seed, dsp::OpType type) {
  std::mt19937 rng(seed);
  const int64_t out_c = c.depthwise ? c.in_c : c.out_c;
  const int64_t out_h = OutSize(c.in_h, c.k_h, c.stride, c.dilation, c.pad, c.pad);
  const int64_t out_w = OutSize(c.in_w, c.k_w, c.stride, c.dilation, c.pad, c.pad);
  const int64_t taps_c = c.depthwise ? 1 : c.in_c;
  refq::ConvQuantization quant;
  quant.input_zero_point = static_cast<int32_t>(32 + rng() % 192);
  quant.filter_zero_point = c.int8_weights ? 0 : static_cast<int32_t>(32 + rng() % 192);
  const double w_mean = c.int8_weights ? -0.5 : 127.5 - quant.filter_zero_point;
  const double mean = std::abs((127.5 - quant.input_zero_point) * w_mean);
  for (int64_t i = 0; i < (c.per_channel || c.int8_weights ? out_c : 1); ++i) {
    quant.multipliers.push_back(RandomMultiplier(taps_c * c.k_h * c.k_w, mean, &rng));
  }
  const int32_t out_zp = static_cast<int32_t>(60 + rng() % 90);
  quant.output = ops::OutputClamp{out_zp, c.relu6 ? out_zp : 0, c.relu6 ? out_zp + 50 : 255};
  const Bytes input = RandomBytes(c.batch * c.in_c * c.in_h * c.in_w, &rng);
  const Bytes filter = RandomBytes(out_c * taps_c * c.k_h * c.k_w, &rng);
  std::vector<int32_t> bias(out_c);
  for (int32_t& b : bias) b = static_cast<int32_t>(rng() % 40001) - 20000;
  if (c.huge_bias) bias[0] = 0x7fffffff - 1000;

  Bytes expected(c.batch * out_c * out_h * out_w);
  const int32_t* bias_data = c.bias ? bias.data() : nullptr;
  // The reference with the weights as uint8 or int8.
  auto reference = [&](const auto* weights) {
    if (c.depthwise) {
      ops::ref::DepthwiseConv2dParams p;
      p.batch = c.batch, p.channels = c.in_c, p.in_h = c.in_h, p.in_w = c.in_w;
      p.multiplier = 1, p.out_h = out_h, p.out_w = out_w, p.kernel_h = c.k_h, p.kernel_w = c.k_w;
      p.stride_h = p.stride_w = c.stride, p.dilation_h = p.dilation_w = c.dilation;
      p.pad_top = p.pad_left = c.pad;
      refq::DepthwiseConv2d(p, quant, input.data(), weights, bias_data, expected.data());
      return;
    }
    ops::ref::Conv2DParams p;
    p.batch = c.batch, p.in_channels = c.in_c, p.in_h = c.in_h, p.in_w = c.in_w;
    p.out_channels = out_c, p.out_h = out_h, p.out_w = out_w, p.kernel_h = c.k_h;
    p.kernel_w = c.k_w, p.stride_h = p.stride_w = c.stride;
    p.dilation_h = p.dilation_w = c.dilation, p.pad_top = p.pad_left = c.pad;
    refq::Conv2D(p, quant, input.data(), weights, bias_data, expected.data());
  };
  if (c.int8_weights) {
    reference(reinterpret_cast<const int8_t*>(filter.data()));
  } else {
    reference(filter.data());
  }
  const dsp::DataType filter_type = c.int8_weights ? dsp::kInt8 : dsp::kUint8;

  DspGraphBuilder builder;
  uint32_t in, w, out;
  if (type == dsp::kFullyConnected) {
    in = builder.AddTensor(dsp::kUint8, {c.batch, c.in_c}, 1.f, quant.input_zero_point);
    w = builder.AddConstant(filter_type, {out_c, c.in_c}, 1.f, quant.filter_zero_point,
                            filter.data(), filter.size());
    out = builder.AddTensor(dsp::kUint8, {c.batch, out_c}, 1.f, out_zp);
  } else {
    in = builder.AddTensor(dsp::kUint8, {c.batch, c.in_c, c.in_h, c.in_w}, 1.f,
                           quant.input_zero_point);
    w = builder.AddConstant(filter_type, {c.depthwise ? 1 : out_c, c.in_c, c.k_h, c.k_w}, 1.f,
                            quant.filter_zero_point, filter.data(), filter.size());
    out = builder.AddTensor(dsp::kUint8, {c.batch, out_c, out_h, out_w}, 1.f, out_zp);
  }
  const uint32_t b = c.bias ? builder.AddConstant(dsp::kInt32, {out_c}, 1.f, 0, bias.data(),
                                                  bias.size() * 4)
                            : dsp::kNoTensor;
  builder.AddOp(type, {in, w, b}, {out},
                ConvParams(c.stride, c.stride, c.dilation, c.dilation, c.pad, c.pad, quant));
  builder.SetInputs({in});
  builder.SetOutputs({out});
  const std::vector<Bytes> outputs = DspKernelsTest::RunOnDsp(builder, {&input});
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].size(), expected.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < expected.size(); ++i) mismatches += outputs[0][i] != expected[i];
  EXPECT_EQ(mismatches, 0u) << "of " << expected.size();
  // The test is only meaningful if outputs vary.
  EXPECT_GT(std::set<uint8_t>(expected.begin(), expected.end()).size(), 1u)
      << "all " << int{expected[0]} << ", zero points " << quant.input_zero_point << " "
      << quant.filter_zero_point << " " << out_zp << ", multiplier "
      << quant.multipliers[0].multiplier << " >> " << quant.multipliers[0].right_shift;
}

TEST_F(DspKernelsTest, Conv1x1OnHvxMatchesTheReference) {
  const std::vector<ConvCase> cases = {
      {1, 3, 5, 7, 4, 1, 1},                                   // odd everything
      {1, 8, 1, 1, 5, 1, 1},                                   // one pixel
      {2, 5, 6, 6, 3, 1, 1, 1, 1, 0, false, true},             // 36 pixels: 2 vectors, per channel
      {1, 130, 3, 1, 6, 1, 1, 1, 1, 0, false, false, false},   // W = 1, 130 channels, no bias
      {1, 16, 8, 16, 9, 1, 1, 1, 1, 0, false, true, true, true},  // 128 pixels, ReLU6 range
      {2, 7, 20, 13, 6, 1, 1},  // 260 pixels: two 128-pixel steps and a tail; 7 channels
  };
  uint32_t seed = 100;
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(testing::Message() << "case with seed " << seed);
    CheckConv(c, seed++, dsp::kConv2D);
  }
}

TEST_F(DspKernelsTest, GeneralConvMatchesTheReference) {
  ConvCase stride2 = {1, 3, 7, 9, 5, 3, 3};
  stride2.stride = 2, stride2.pad = 1;
  ConvCase dilated = {1, 4, 9, 7, 3, 3, 3};
  dilated.dilation = 2, dilated.pad = 2, dilated.per_channel = true;
  ConvCase tall = {2, 2, 5, 1, 3, 3, 1};  // W = 1
  tall.pad = 1, tall.bias = false;
  ConvCase strided1x1 = {1, 6, 5, 5, 4, 1, 1};
  strided1x1.stride = 2;  // gathered, as any other shape
  ConvCase first_layer = {1, 3, 17, 15, 9, 3, 3};  // K = 27: 7 groups, the last short
  first_layer.stride = 2, first_layer.pad = 1, first_layer.relu6 = true;
  ConvCase many_pixels = {2, 5, 12, 13, 3, 3, 3};  // 156 pixels: 5 vectors of 32
  many_pixels.pad = 1, many_pixels.per_channel = true;
  ConvCase saturating = {1, 4, 6, 5, 3, 3, 3};
  saturating.pad = 1, saturating.huge_bias = true, saturating.per_channel = true;
  ConvCase wide_kernel = {1, 2, 4, 9, 2, 1, 5};  // 1x5, no padding
  uint32_t seed = 200;
  for (const ConvCase& c :
       {stride2, dilated, tall, strided1x1, first_layer, many_pixels, saturating, wide_kernel}) {
    SCOPED_TRACE(testing::Message() << "case with seed " << seed);
    CheckConv(c, seed++, dsp::kConv2D);
  }
}

TEST_F(DspKernelsTest, DepthwiseMatchesTheReference) {
  ConvCase same = {1, 7, 6, 5, 0, 3, 3};
  same.depthwise = true, same.pad = 1, same.per_channel = true;
  ConvCase strided = {2, 3, 9, 8, 0, 3, 3};
  strided.depthwise = true, strided.stride = 2, strided.relu6 = true;
  ConvCase column = {1, 4, 6, 1, 0, 3, 3};  // W = 1 with padding
  column.depthwise = true, column.pad = 1, column.bias = false;
  ConvCase wide = {1, 2, 3, 150, 0, 3, 3};  // two 128-output steps
  wide.depthwise = true, wide.pad = 1;
  ConvCase four_wide = {1, 3, 5, 9, 0, 2, 4};  // all four bytes of a lane are taps
  four_wide.depthwise = true, four_wide.per_channel = true;
  // Dilated at stride 1: on HVX, the columns split into phases.
  ConvCase dilated = {1, 2, 7, 7, 0, 3, 3};
  dilated.depthwise = true, dilated.dilation = 2, dilated.pad = 2;
  ConvCase dilated_wide = {1, 5, 8, 261, 0, 3, 3};  // 3 phases of 89 columns, 3 steps
  dilated_wide.depthwise = true, dilated_wide.dilation = 3, dilated_wide.pad = 3;
  dilated_wide.per_channel = true;
  ConvCase dilated_column = {1, 3, 7, 1, 0, 3, 3};  // W = 1: one phase holds the output
  dilated_column.depthwise = true, dilated_column.dilation = 2, dilated_column.pad = 2;
  ConvCase dilated_four = {1, 2, 9, 13, 0, 2, 4};  // four taps a lane, odd sizes, no padding
  dilated_four.depthwise = true, dilated_four.dilation = 2, dilated_four.relu6 = true;
  ConvCase dilated_saturating = {1, 3, 5, 9, 0, 3, 3};  // the exact scalar requantization
  dilated_saturating.depthwise = true, dilated_saturating.dilation = 2;
  dilated_saturating.pad = 2, dilated_saturating.huge_bias = true;
  dilated_saturating.per_channel = true;
  ConvCase dilated_odd_pad = {1, 130, 10, 11, 0, 3, 3};  // 130 channels, padding 1 at d = 4
  dilated_odd_pad.depthwise = true, dilated_odd_pad.dilation = 4, dilated_odd_pad.pad = 1;
  ConvCase dilated_strided = {1, 2, 9, 9, 0, 3, 3};  // dilated across at stride 2: scalar
  dilated_strided.depthwise = true, dilated_strided.dilation = 2, dilated_strided.stride = 2;
  dilated_strided.pad = 2;
  ConvCase strided_wide = {1, 2, 4, 300, 0, 3, 3};  // stride 2 over three 128-column steps
  strided_wide.depthwise = true, strided_wide.stride = 2, strided_wide.pad = 1;
  ConvCase stride3 = {1, 3, 10, 11, 0, 3, 3};
  stride3.depthwise = true, stride3.stride = 3, stride3.pad = 1, stride3.per_channel = true;
  ConvCase strided_column = {1, 2, 7, 1, 0, 3, 3};  // W = 1, stride 2
  strided_column.depthwise = true, strided_column.stride = 2, strided_column.pad = 1;
  ConvCase saturating = {1, 3, 5, 6, 0, 3, 3};
  saturating.depthwise = true, saturating.pad = 1, saturating.huge_bias = true;
  saturating.per_channel = true;
  ConvCase stride4 = {1, 2, 5, 301, 0, 3, 3};  // stride 4 over three 128-column steps
  stride4.depthwise = true, stride4.stride = 4, stride4.pad = 1;
  ConvCase full_step = {1, 3, 2, 128, 0, 3, 3};  // rows of exactly 128 outputs
  full_step.depthwise = true, full_step.pad = 1;
  ConvCase one_more = {1, 3, 3, 131, 0, 3, 3};  // 129 outputs: a one-byte second step
  one_more.depthwise = true;
  uint32_t seed = 300;
  for (const ConvCase& c :
       {same, strided, column, wide, four_wide, dilated, strided_wide, stride3, strided_column,
        saturating, stride4, full_step, one_more, dilated_wide, dilated_column, dilated_four,
        dilated_saturating, dilated_odd_pad, dilated_strided}) {
    SCOPED_TRACE(testing::Message() << "case with seed " << seed);
    CheckConv(c, seed++, dsp::kDepthwiseConv2D);
  }
}

TEST_F(DspKernelsTest, FullyConnectedMatchesTheReference) {
  uint32_t seed = 400;
  // The last: K = 40,000 sums may exceed int32, so the products are
  // requantized exactly in scalar code.
  for (const ConvCase& c : {ConvCase{1, 37, 1, 1, 10, 1, 1}, ConvCase{3, 200, 1, 1, 7, 1, 1},
                            ConvCase{1, 40000, 1, 1, 3, 1, 1}}) {
    SCOPED_TRACE(testing::Message() << "case with seed " << seed);
    CheckConv(c, seed++, dsp::kFullyConnected);
  }
}

// `fill` >= 0 gives an input of that one value (the largest sums).
void CheckPooling(ops::ref::PoolingParams p, uint32_t seed, int fill = -1) {
  std::mt19937 rng(seed);
  p.out_h = OutSize(p.in_h, p.kernel_h, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom);
  p.out_w = OutSize(p.in_w, p.kernel_w, p.stride_w, p.dilation_w, p.pad_left, p.pad_right);
  const int32_t zp = fill >= 0 ? fill : static_cast<int32_t>(rng() % 256);
  Bytes input = RandomBytes(p.batch * p.channels * p.in_h * p.in_w, &rng);
  if (fill >= 0) std::fill(input.begin(), input.end(), static_cast<uint8_t>(fill));
  Bytes expected(p.batch * p.channels * p.out_h * p.out_w);
  refq::Pooling(p, zp, input.data(), expected.data());
  DspGraphBuilder builder;
  const uint32_t in = builder.AddTensor(dsp::kUint8, {p.batch, p.channels, p.in_h, p.in_w}, 1.f, zp);
  const uint32_t out =
      builder.AddTensor(dsp::kUint8, {p.batch, p.channels, p.out_h, p.out_w}, 1.f, zp);
  builder.AddOp(dsp::kPooling, {in}, {out}, PoolingParams(p, zp));
  builder.SetInputs({in});
  builder.SetOutputs({out});
  const std::vector<Bytes> outputs = DspKernelsTest::RunOnDsp(builder, {&input});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0], expected);
}

TEST_F(DspKernelsTest, PoolingMatchesTheReference) {
  ops::ref::PoolingParams p;
  p.batch = 1, p.channels = 5, p.in_h = 7, p.in_w = 9, p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2, p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  uint32_t seed = 500;
  for (auto type : {ops::ref::PoolingType::MAX, ops::ref::PoolingType::AVG}) {
    for (bool include_pad : {false, true}) {
      p.type = type, p.count_include_pad = include_pad;
      SCOPED_TRACE(testing::Message() << "seed " << seed);
      CheckPooling(p, seed++);
    }
  }
  ops::ref::PoolingParams column;  // W = 1, a 2x1 window, odd height
  column.type = ops::ref::PoolingType::AVG;
  column.batch = 2, column.channels = 3, column.in_h = 5, column.in_w = 1;
  column.kernel_h = 2, column.kernel_w = 1, column.stride_h = 2;
  CheckPooling(column, seed++);
  ops::ref::PoolingParams global = column;  // a whole-plane average
  global.in_h = 6, global.in_w = 5, global.kernel_h = 6, global.kernel_w = 5;
  CheckPooling(global, seed++);
  // Max pooling on HVX: a column, stride 2 over three 128-column steps,
  // stride 1 with odd sizes, 2x2 stride 2, stride 3 with a 5-wide window;
  // then padding as large as the window (windows of padding only: scalar).
  ops::ref::PoolingParams max = column;
  max.type = ops::ref::PoolingType::MAX;
  CheckPooling(max, seed++);
  ops::ref::PoolingParams wide = p;
  wide.type = ops::ref::PoolingType::MAX, wide.in_h = 4, wide.in_w = 300;
  CheckPooling(wide, seed++);
  ops::ref::PoolingParams same = p;
  same.type = ops::ref::PoolingType::MAX, same.stride_h = same.stride_w = 1;
  CheckPooling(same, seed++);
  ops::ref::PoolingParams halve = same;
  halve.in_h = 8, halve.in_w = 6, halve.kernel_h = halve.kernel_w = 2;
  halve.stride_h = halve.stride_w = 2;
  halve.pad_top = halve.pad_left = halve.pad_bottom = halve.pad_right = 0;
  CheckPooling(halve, seed++);
  ops::ref::PoolingParams stride3 = same;
  stride3.in_h = 11, stride3.in_w = 13, stride3.kernel_h = 3, stride3.kernel_w = 5;
  stride3.stride_h = stride3.stride_w = 3, stride3.pad_left = stride3.pad_right = 2;
  CheckPooling(stride3, seed++);
  ops::ref::PoolingParams padding_only = same;
  padding_only.kernel_h = padding_only.kernel_w = 2;
  padding_only.pad_top = padding_only.pad_left = padding_only.pad_bottom =
      padding_only.pad_right = 2;
  CheckPooling(padding_only, seed++);
}

// Average pooling on HVX: window sums of 128 columns a step, divided
// exactly by per-column multipliers and shifts; divisors from 1 to 128
// (borders with and without padding counted), strides 1 to 4.
TEST_F(DspKernelsTest, AveragePoolingOnHvxMatchesTheReference) {
  uint32_t seed = 550;
  auto avg = [](int64_t channels, int64_t in_h, int64_t in_w, int64_t k_h, int64_t k_w,
                int64_t stride, int64_t pad) {
    ops::ref::PoolingParams p;
    p.type = ops::ref::PoolingType::AVG;
    p.batch = 1, p.channels = channels, p.in_h = in_h, p.in_w = in_w;
    p.kernel_h = k_h, p.kernel_w = k_w, p.stride_h = p.stride_w = stride;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
    return p;
  };
  std::vector<ops::ref::PoolingParams> cases = {
      avg(3, 4, 300, 3, 3, 2, 1),    // stride 2 over three 128-column steps
      avg(2, 9, 301, 4, 4, 4, 1),    // stride 4
      avg(3, 11, 13, 3, 5, 3, 2),    // stride 3, a 5-wide window
      avg(2, 12, 11, 8, 8, 1, 3),    // 64 taps, divisors 16 to 64 at the borders
      avg(2, 5, 128, 3, 3, 1, 1),    // rows of exactly 128 outputs
      avg(2, 6, 129, 2, 2, 1, 0),    // 128 outputs a row, 129 columns read
      avg(130, 7, 7, 7, 7, 1, 0),    // global pooling over 130 channels
      avg(2, 3, 1, 3, 1, 1, 1),      // W = 1
      avg(2, 2, 2, 2, 2, 2, 1),      // every window one tap of four
  };
  ops::ref::PoolingParams uneven = avg(2, 9, 10, 3, 4, 2, 0);  // bottom and right padding only
  uneven.pad_bottom = 2, uneven.pad_right = 3;
  cases.push_back(uneven);
  for (const ops::ref::PoolingParams& c : cases) {
    for (bool include_pad : {false, true}) {
      ops::ref::PoolingParams p = c;
      p.count_include_pad = include_pad;
      SCOPED_TRACE(testing::Message() << "seed " << seed);
      CheckPooling(p, seed++);
    }
  }
  // 128 taps of 255: the largest numerator, 128 * 255 + 64.
  ops::ref::PoolingParams largest = avg(1, 17, 9, 16, 8, 1, 1);
  largest.count_include_pad = true;
  CheckPooling(largest, seed++, 255);
  largest.count_include_pad = false;
  CheckPooling(largest, seed++, 255);
  // Windows of padding only (the scalar path), and a 9-wide window.
  CheckPooling(avg(2, 7, 9, 2, 2, 1, 2), seed++);
  CheckPooling(avg(2, 5, 9, 3, 9, 1, 0), seed++);
}

// 210 elements: one vector and a tail; 1,311: ten vectors and a tail.
TEST_F(DspKernelsTest, EltwiseMatchesTheReference) {
  std::mt19937 rng(600);
  const QuantParams a{0.05f, 120}, b{0.11f, 7}, out{0.13f, 90};
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 3, 5, 7},
                                            std::vector<int64_t>{1, 3, 19, 23}}) {
    const int64_t count = shape[0] * shape[1] * shape[2] * shape[3];
    for (auto kind : {refq::EltwiseKind::kAdd, refq::EltwiseKind::kSub, refq::EltwiseKind::kMul}) {
      for (int64_t b_count : {int64_t{1}, count}) {
        refq::EltwiseQuantization quant;
        ASSERT_TRUE(refq::MakeEltwiseQuantization(kind, a, b, out, "test", &quant).ok());
        const Bytes x = RandomBytes(count, &rng), y = RandomBytes(b_count, &rng);
        Bytes expected(x.size());
        refq::Eltwise(quant, x.data(), y.data(), x.size(), b_count, expected.data());
        DspGraphBuilder builder;
        const uint32_t t0 = builder.AddTensor(dsp::kUint8, shape, a.scale, a.zero_point);
        const uint32_t t1 = builder.AddTensor(
            dsp::kUint8, b_count == 1 ? std::vector<int64_t>{1} : shape, b.scale, b.zero_point);
        const uint32_t t2 = builder.AddTensor(dsp::kUint8, shape, out.scale, out.zero_point);
        builder.AddOp(dsp::kEltwise, {t0, t1}, {t2}, EltwiseParams(quant));
        builder.SetInputs({t0, t1});
        builder.SetOutputs({t2});
        const std::vector<Bytes> outputs = DspKernelsTest::RunOnDsp(builder, {&x, &y});
        ASSERT_EQ(outputs.size(), 1u);
        EXPECT_EQ(outputs[0], expected) << "kind " << static_cast<int>(kind) << ", " << b_count;
        if (b_count > 1) {  // a broadcast product may be all one value
          EXPECT_GT(std::set<uint8_t>(expected.begin(), expected.end()).size(), 10u);
        }
      }
    }
  }
}

TEST_F(DspKernelsTest, ClampOnHvxCoversWholeVectorsAndTails) {
  std::mt19937 rng(700);
  for (int64_t count : {int64_t{1}, int64_t{127}, int64_t{128}, int64_t{300}, int64_t{1024}}) {
    const Bytes x = RandomBytes(count, &rng);
    const int32_t low = 40, high = 201;  // ReLU6 with zero point 40
    Bytes expected(x.size());
    for (size_t i = 0; i < x.size(); ++i) expected[i] = std::clamp<int>(x[i], low, high);
    DspGraphBuilder builder;
    const uint32_t in = builder.AddTensor(dsp::kUint8, {1, count}, 1.f, low);
    const uint32_t out = builder.AddTensor(dsp::kUint8, {1, count}, 1.f, low);
    builder.AddOp(dsp::kClamp, {in}, {out}, {low, high});
    builder.SetInputs({in});
    builder.SetOutputs({out});
    const std::vector<Bytes> outputs = DspKernelsTest::RunOnDsp(builder, {&x});
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0], expected) << count;
  }
}

// One session holds several graphs, each in its slot: interleaved
// executions each run their own graph; a torn-down or out-of-range slot is
// refused by the host, and an out-of-range slot by the DSP too.
TEST_F(DspKernelsTest, SlotsHoldSeveralGraphs) {
  std::mt19937 rng(750);
  struct Case {
    uint32_t slot;
    int64_t count;
    int32_t low, high;
    Bytes x, expected;
  };
  std::vector<Case> cases = {{0, 300, 40, 201, {}, {}}, {5, 129, 10, 100, {}, {}}};
  for (Case& c : cases) {
    c.x = RandomBytes(c.count, &rng);
    for (uint8_t v : c.x) {
      c.expected.push_back(static_cast<uint8_t>(std::clamp<int>(v, c.low, c.high)));
    }
    DspGraphBuilder builder;
    const uint32_t in = builder.AddTensor(dsp::kUint8, {1, c.count}, 1.f, c.low);
    const uint32_t out = builder.AddTensor(dsp::kUint8, {1, c.count}, 1.f, c.low);
    builder.AddOp(dsp::kClamp, {in}, {out}, {c.low, c.high});
    builder.SetInputs({in});
    builder.SetOutputs({out});
    SerializedGraph graph;
    ASSERT_TRUE(builder.Serialize(&graph).ok());
    const MaceStatus status = control_->SetupGraph(graph, c.slot);
    ASSERT_TRUE(status.ok()) << status.information();
  }
  for (int round = 0; round < 3; ++round) {
    for (const Case& c : cases) {
      std::vector<Bytes> outputs;
      const MaceStatus status =
          control_->ExecuteGraph({{c.x.data(), c.x.size()}}, &outputs, c.slot);
      ASSERT_TRUE(status.ok()) << status.information();
      ASSERT_EQ(outputs.size(), 1u);
      EXPECT_EQ(outputs[0], c.expected) << "slot " << c.slot;
    }
  }
  dsp::PerfInfo perf;
  ASSERT_TRUE(control_->GetPerfInfo(&perf).ok());
  EXPECT_EQ(perf.nodes, 2u);  // one op in each graph
  ASSERT_TRUE(control_->TeardownGraph(5).ok());
  std::vector<Bytes> outputs;
  const MaceStatus gone =
      control_->ExecuteGraph({{cases[1].x.data(), cases[1].x.size()}}, &outputs, 5);
  EXPECT_EQ(gone.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(gone.information().find("no graph is set up in slot 5"), std::string::npos)
      << gone.information();
  SerializedGraph empty;
  EXPECT_EQ(control_->SetupGraph(empty, dsp::kMaxGraphs).code(), MaceStatus::MACE_INVALID_ARGS);
  DspReply reply;
  ASSERT_TRUE(
      control_->channel()->Call(dsp::kTeardown, {dsp::kMaxGraphs}, nullptr, 0, &reply).ok());
  EXPECT_EQ(reply.status, static_cast<uint32_t>(dsp::kBadRequest));
  EXPECT_NE(std::string(reply.payload.begin(), reply.payload.end()).find("graph slot 64"),
            std::string::npos);
  // Slot 0 still runs.
  ASSERT_TRUE(control_->ExecuteGraph({{cases[0].x.data(), cases[0].x.size()}}, &outputs, 0).ok());
  EXPECT_EQ(outputs[0], cases[0].expected);
  EXPECT_TRUE(control_->TeardownGraph(0).ok());
}

TEST_F(DspKernelsTest, ConcatJoinsChannels) {
  std::mt19937 rng(800);
  const Bytes x = RandomBytes(2 * 3 * 4 * 5, &rng), y = RandomBytes(2 * 1 * 4 * 5, &rng);
  Bytes expected;
  for (int n = 0; n < 2; ++n) {
    expected.insert(expected.end(), x.begin() + n * 60, x.begin() + (n + 1) * 60);
    expected.insert(expected.end(), y.begin() + n * 20, y.begin() + (n + 1) * 20);
  }
  DspGraphBuilder builder;
  const uint32_t t0 = builder.AddTensor(dsp::kUint8, {2, 3, 4, 5}, 0.5f, 9);
  const uint32_t t1 = builder.AddTensor(dsp::kUint8, {2, 1, 4, 5}, 0.5f, 9);
  const uint32_t t2 = builder.AddTensor(dsp::kUint8, {2, 4, 4, 5}, 0.5f, 9);
  builder.AddOp(dsp::kConcat, {t0, t1}, {t2}, {});
  builder.SetInputs({t0, t1});
  builder.SetOutputs({t2});
  const std::vector<Bytes> outputs = DspKernelsTest::RunOnDsp(builder, {&x, &y});
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0], expected);
}

TEST_F(DspKernelsTest, SoftmaxMatchesTheReference) {
  std::mt19937 rng(900);
  // [outer, axis, inner]: a class vector, an axis in the middle, one class.
  const std::vector<std::vector<int64_t>> extents = {{1, 10, 1}, {2, 7, 3}, {3, 1, 2}};
  for (const std::vector<int64_t>& e : extents) {
    for (float scale : {0.02f, 0.25f}) {
      const Bytes x = RandomBytes(e[0] * e[1] * e[2], &rng);
      ops::ref::SoftmaxParams p;
      p.outer = e[0], p.axis_size = e[1], p.inner = e[2];
      const refq::SoftmaxTable table = refq::MakeSoftmaxTable(scale);
      Bytes expected(x.size());
      refq::Softmax(p, table, x.data(), expected.data());
      DspGraphBuilder builder;
      const uint32_t in = builder.AddTensor(dsp::kUint8, {e[0], e[1], e[2]}, scale, 77);
      const uint32_t t = builder.AddConstant(dsp::kInt32, {256}, 1.f, 0, table.data(), 1024);
      const uint32_t out = builder.AddTensor(dsp::kUint8, {e[0], e[1], e[2]}, 1.f / 256, 0);
      builder.AddOp(dsp::kSoftmax, {in, t}, {out},
                    {static_cast<int32_t>(e[0]), static_cast<int32_t>(e[1]),
                     static_cast<int32_t>(e[2])});
      builder.SetInputs({in});
      builder.SetOutputs({out});
      const std::vector<Bytes> outputs = DspKernelsTest::RunOnDsp(builder, {&x});
      ASSERT_EQ(outputs.size(), 1u);
      EXPECT_EQ(outputs[0], expected) << e[0] << "x" << e[1] << "x" << e[2] << ", " << scale;
    }
  }
}

TEST_F(DspKernelsTest, ResizeBilinearMatchesTheReference) {
  std::mt19937 rng(1000);
  struct Case {
    int64_t in_h, in_w, out_h, out_w;
    ops::CoordinateMode mode;
  };
  const std::vector<Case> cases = {
      {3, 5, 7, 9, ops::CoordinateMode::HALF_PIXEL},   // upscale, odd sizes
      {6, 1, 3, 1, ops::CoordinateMode::ALIGN_CORNERS},  // W = 1, downscale
      {4, 4, 4, 4, ops::CoordinateMode::ASYMMETRIC},   // same size
      // Several 32-column output groups with a tail, input rows of one,
      // two and three 128-column steps (with tails), exactly 128.
      {5, 200, 9, 70, ops::CoordinateMode::HALF_PIXEL},
      {3, 40, 4, 301, ops::CoordinateMode::ALIGN_CORNERS},
      {2, 300, 3, 33, ops::CoordinateMode::ASYMMETRIC},
      {3, 128, 5, 96, ops::CoordinateMode::HALF_PIXEL},
      {1, 1, 3, 65, ops::CoordinateMode::HALF_PIXEL},  // one input pixel
  };
  for (const Case& c : cases) {
    ops::ref::ResizeBilinearParams p;
    p.batch = 2, p.channels = 3, p.in_h = c.in_h, p.in_w = c.in_w;
    p.out_h = c.out_h, p.out_w = c.out_w, p.mode = c.mode;
    const Bytes x = RandomBytes(p.batch * p.channels * p.in_h * p.in_w, &rng);
    Bytes expected(p.batch * p.channels * p.out_h * p.out_w);
    refq::ResizeBilinear(p, x.data(), expected.data());
    const std::vector<int32_t> taps = ResizeBilinearTaps(p);
    DspGraphBuilder builder;
    const uint32_t in = builder.AddTensor(dsp::kUint8, {2, 3, c.in_h, c.in_w}, 0.1f, 5);
    const uint32_t t = builder.AddConstant(dsp::kInt32, {c.out_h + c.out_w, 3}, 1.f, 0,
                                           taps.data(), taps.size() * 4);
    const uint32_t out = builder.AddTensor(dsp::kUint8, {2, 3, c.out_h, c.out_w}, 0.1f, 5);
    builder.AddOp(dsp::kResizeBilinear, {in, t}, {out}, {});
    builder.SetInputs({in});
    builder.SetOutputs({out});
    const std::vector<Bytes> outputs = DspKernelsTest::RunOnDsp(builder, {&x});
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0], expected) << c.in_h << "x" << c.in_w << " to " << c.out_h << "x"
                                    << c.out_w;
    if (c.in_w > 1) {
      EXPECT_GT(std::set<uint8_t>(expected.begin(), expected.end()).size(), 10u);
    }
  }
}

// Two inputs, two outputs, five ops whose activations share the planned
// arena: a = conv1x1(x); b = clamp(a); c = conv1x1(y); d = b + c;
// e = avgpool3x3(d). Outputs e and a (a stays live to the end).
TEST_F(DspKernelsTest, MultiOpGraphWithSharedMemoryMatchesTheReference) {
  std::mt19937 rng(1100);
  const int64_t c_in = 6, c_out = 8, h = 5, w = 7, pixels = h * w;
  const Bytes x = RandomBytes(c_in * pixels, &rng), y = RandomBytes(c_in * pixels, &rng);
  const Bytes wx = RandomBytes(c_out * c_in, &rng), wy = RandomBytes(c_out * c_in, &rng);
  refq::ConvQuantization qx, qy;
  qx.input_zero_point = 100, qx.filter_zero_point = 120;
  qx.multipliers.push_back(RandomMultiplier(c_in, 28.0 * 8.0, &rng));
  qx.output = ops::OutputClamp{90, 0, 255};
  qy = qx;
  qy.input_zero_point = 140;
  ops::ref::Conv2DParams cp;
  cp.batch = 1, cp.in_channels = c_in, cp.in_h = h, cp.in_w = w, cp.out_channels = c_out;
  cp.out_h = h, cp.out_w = w, cp.kernel_h = cp.kernel_w = 1;
  Bytes a(c_out * pixels), b(a.size()), c(a.size()), d(a.size()), e(a.size());
  refq::Conv2D(cp, qx, x.data(), wx.data(), nullptr, a.data());
  for (size_t i = 0; i < a.size(); ++i) b[i] = std::clamp<int>(a[i], 90, 200);
  refq::Conv2D(cp, qy, y.data(), wy.data(), nullptr, c.data());
  const QuantParams act{0.1f, 90};
  refq::EltwiseQuantization eq;
  ASSERT_TRUE(refq::MakeEltwiseQuantization(refq::EltwiseKind::kAdd, act, act, act, "sum", &eq).ok());
  refq::Eltwise(eq, b.data(), c.data(), b.size(), c.size(), d.data());
  ops::ref::PoolingParams pp;
  pp.type = ops::ref::PoolingType::AVG, pp.batch = 1, pp.channels = c_out, pp.in_h = h;
  pp.in_w = w, pp.out_h = h, pp.out_w = w, pp.kernel_h = pp.kernel_w = 3;
  pp.pad_top = pp.pad_left = pp.pad_bottom = pp.pad_right = 1;
  refq::Pooling(pp, 90, d.data(), e.data());

  DspGraphBuilder builder;
  const std::vector<int64_t> in_dims = {1, c_in, h, w}, dims = {1, c_out, h, w};
  const uint32_t tx = builder.AddTensor(dsp::kUint8, in_dims, 0.1f, 100);
  const uint32_t ty = builder.AddTensor(dsp::kUint8, in_dims, 0.1f, 140);
  const uint32_t twx = builder.AddConstant(dsp::kUint8, {c_out, c_in, 1, 1}, 1.f, 120, wx.data(),
                                           wx.size());
  const uint32_t twy = builder.AddConstant(dsp::kUint8, {c_out, c_in, 1, 1}, 1.f, 120, wy.data(),
                                           wy.size());
  uint32_t t[5];
  for (uint32_t& id : t) id = builder.AddTensor(dsp::kUint8, dims, 0.1f, 90);
  builder.AddOp(dsp::kConv2D, {tx, twx, dsp::kNoTensor}, {t[0]}, ConvParams(1, 1, 1, 1, 0, 0, qx));
  builder.AddOp(dsp::kClamp, {t[0]}, {t[1]}, {90, 200});
  builder.AddOp(dsp::kConv2D, {ty, twy, dsp::kNoTensor}, {t[2]}, ConvParams(1, 1, 1, 1, 0, 0, qy));
  builder.AddOp(dsp::kEltwise, {t[1], t[2]}, {t[3]}, EltwiseParams(eq));
  builder.AddOp(dsp::kPooling, {t[3]}, {t[4]}, PoolingParams(pp, 90));
  builder.SetInputs({tx, ty});
  builder.SetOutputs({t[4], t[0]});
  SerializedGraph graph;
  ASSERT_TRUE(builder.Serialize(&graph).ok());
  ASSERT_TRUE(control_->SetupGraph(graph).ok());
  ASSERT_TRUE(control_->ResetPerfInfo().ok());
  for (int run = 0; run < 2; ++run) {
    std::vector<Bytes> outputs;
    const MaceStatus status =
        control_->ExecuteGraph({{x.data(), x.size()}, {y.data(), y.size()}}, &outputs);
    ASSERT_TRUE(status.ok()) << status.information();
    ASSERT_EQ(outputs.size(), 2u);
    EXPECT_EQ(outputs[0], e) << "run " << run;
    EXPECT_EQ(outputs[1], a) << "run " << run;
  }
  // Profiled, the DSP times each op: one record per op in graph order, of
  // its type, within the call's DSP time; the outputs are the same.
  std::vector<dsp::OpProfile> profile;
  std::vector<Bytes> profiled;
  ASSERT_TRUE(control_->ExecuteGraph({{x.data(), x.size()}, {y.data(), y.size()}}, &profiled, 0,
                                     &profile)
                  .ok());
  ASSERT_EQ(profiled.size(), 2u);
  EXPECT_EQ(profiled[0], e);
  EXPECT_EQ(profiled[1], a);
  std::vector<uint32_t> types;
  uint64_t nanos = 0;
  for (const dsp::OpProfile& p : profile) {
    types.push_back(p.op_type);
    const uint64_t each = (static_cast<uint64_t>(p.nanos_high) << 32) | p.nanos_low;
    EXPECT_GT(each, 0u) << "op type " << p.op_type;
    nanos += each;
  }
  EXPECT_EQ(types, (std::vector<uint32_t>{dsp::kConv2D, dsp::kClamp, dsp::kConv2D, dsp::kEltwise,
                                          dsp::kPooling}));
  EXPECT_LE(nanos, (control_->last_dsp_time_us() + 1) * uint64_t{1000});
  dsp::PerfInfo perf;
  ASSERT_TRUE(control_->GetPerfInfo(&perf).ok());
  EXPECT_EQ(perf.executions, 3u);
  EXPECT_EQ(perf.nodes, 5u);
  // Seven activations of 280 or 210 bytes (one vector each, rounded); the
  // plan reuses memory, so it needs fewer than seven vectors' worth.
  EXPECT_LT(perf.arena_bytes, 7u * 384);
  std::string text;
  ASSERT_TRUE(control_->PrintGraph(&text).ok());
  EXPECT_NE(text.find("op 4 Pooling"), std::string::npos) << text;
  // Wrong input sizes are caught on the host.
  std::vector<Bytes> outputs;
  EXPECT_EQ(control_->ExecuteGraph({{x.data(), x.size()}}, &outputs).code(),
            MaceStatus::MACE_INVALID_ARGS);
  EXPECT_TRUE(control_->TeardownGraph().ok());
}

// int8 symmetric weights with one multiplier per output channel (the
// CPU's per-channel quantization): signed dot products on HVX, and in the
// scalar paths.
TEST_F(DspKernelsTest, Int8PerChannelWeightsMatchTheReference) {
  std::vector<std::pair<ConvCase, dsp::OpType>> cases;
  auto add = [&](ConvCase c, dsp::OpType type) {
    c.int8_weights = true;
    cases.push_back({c, type});
  };
  add({1, 7, 20, 13, 6, 1, 1}, dsp::kConv2D);      // plain 1x1, 260 pixels, 7 channels
  add({1, 16, 8, 16, 9, 1, 1}, dsp::kConv2D);      // 128 pixels, four-channel blocks and a tail
  ConvCase stride2 = {1, 3, 17, 15, 9, 3, 3};      // gathered, K = 27
  stride2.stride = 2, stride2.pad = 1, stride2.relu6 = true;
  add(stride2, dsp::kConv2D);
  ConvCase saturating = {1, 4, 6, 5, 3, 3, 3};     // exact scalar requantization
  saturating.pad = 1, saturating.huge_bias = true;
  add(saturating, dsp::kConv2D);
  ConvCase dilated = {1, 4, 9, 7, 3, 3, 3};        // dilation: gathered
  dilated.dilation = 2, dilated.pad = 2;
  add(dilated, dsp::kConv2D);
  ConvCase dw = {1, 7, 6, 150, 0, 3, 3};           // depthwise over two 128-column steps
  dw.depthwise = true, dw.pad = 1;
  add(dw, dsp::kDepthwiseConv2D);
  ConvCase dw_strided = {2, 3, 9, 8, 0, 3, 3};
  dw_strided.depthwise = true, dw_strided.stride = 2;
  add(dw_strided, dsp::kDepthwiseConv2D);
  ConvCase dw_wide = {1, 3, 5, 9, 0, 2, 4};        // 2-row kernel: the generic depthwise loop
  dw_wide.depthwise = true;
  add(dw_wide, dsp::kDepthwiseConv2D);
  ConvCase dw_saturating = {1, 3, 5, 6, 0, 3, 3};
  dw_saturating.depthwise = true, dw_saturating.pad = 1, dw_saturating.huge_bias = true;
  add(dw_saturating, dsp::kDepthwiseConv2D);
  ConvCase dw_dilated = {1, 2, 7, 7, 0, 3, 3};     // the scalar depthwise
  dw_dilated.depthwise = true, dw_dilated.dilation = 2, dw_dilated.pad = 2;
  add(dw_dilated, dsp::kDepthwiseConv2D);
  add({3, 200, 1, 1, 7, 1, 1}, dsp::kFullyConnected);
  add({1, 40000, 1, 1, 3, 1, 1}, dsp::kFullyConnected);  // K = 40,000: exact scalar requantization
  uint32_t seed = 1200;
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message() << "case with seed " << seed);
    CheckConv(c.first, seed++, c.second);
  }
}

TEST_F(DspKernelsTest, InvalidGraphsAreRefusedWithTheReason) {
  DspGraphBuilder builder;
  const Bytes filter(4 * 3, 1);
  const uint32_t in = builder.AddTensor(dsp::kUint8, {1, 5, 4, 4}, 1.f, 0);
  // The filter takes 3 input channels, the input has 5.
  const uint32_t w = builder.AddConstant(dsp::kUint8, {4, 3, 1, 1}, 1.f, 0, filter.data(), 12);
  const uint32_t out = builder.AddTensor(dsp::kUint8, {1, 4, 4, 4}, 1.f, 0);
  refq::ConvQuantization quant;
  quant.multipliers.push_back({1 << 30, 40});
  builder.AddOp(dsp::kConv2D, {in, w, dsp::kNoTensor}, {out}, ConvParams(1, 1, 1, 1, 0, 0, quant));
  builder.SetInputs({in});
  builder.SetOutputs({out});
  SerializedGraph graph;
  ASSERT_TRUE(builder.Serialize(&graph).ok());
  const MaceStatus status = control_->SetupGraph(graph);
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("Conv2D (op 0)"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find("filter shape"), std::string::npos)
      << status.information();
  // int8 weights with a zero point.
  DspGraphBuilder asymmetric;
  const uint32_t in8 = asymmetric.AddTensor(dsp::kUint8, {1, 3, 4, 4}, 1.f, 0);
  const uint32_t w8 = asymmetric.AddConstant(dsp::kInt8, {4, 3, 1, 1}, 1.f, 3, filter.data(), 12);
  const uint32_t out8 = asymmetric.AddTensor(dsp::kUint8, {1, 4, 4, 4}, 1.f, 0);
  refq::ConvQuantization quant8 = quant;
  quant8.filter_zero_point = 3;
  asymmetric.AddOp(dsp::kConv2D, {in8, w8, dsp::kNoTensor}, {out8},
                   ConvParams(1, 1, 1, 1, 0, 0, quant8));
  asymmetric.SetInputs({in8});
  asymmetric.SetOutputs({out8});
  ASSERT_TRUE(asymmetric.Serialize(&graph).ok());
  const MaceStatus refused = control_->SetupGraph(graph);
  EXPECT_EQ(refused.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(refused.information().find("zero point 0"), std::string::npos)
      << refused.information();
  // A graph reading a tensor nothing writes.
  DspGraphBuilder dangling;
  const uint32_t a = dangling.AddTensor(dsp::kUint8, {8}, 1.f, 0);
  const uint32_t b = dangling.AddTensor(dsp::kUint8, {8}, 1.f, 0);
  const uint32_t c = dangling.AddTensor(dsp::kUint8, {8}, 1.f, 0);
  dangling.AddOp(dsp::kClamp, {b}, {c}, {0, 255});
  dangling.SetInputs({a});
  dangling.SetOutputs({c});
  ASSERT_TRUE(dangling.Serialize(&graph).ok());
  EXPECT_EQ(control_->SetupGraph(graph).code(), MaceStatus::MACE_INVALID_ARGS);
  // Shapes the builder refuses before anything is sent.
  DspGraphBuilder too_many_dims;
  too_many_dims.AddTensor(dsp::kUint8, {1, 2, 3, 4, 5}, 1.f, 0);
  EXPECT_EQ(too_many_dims.Serialize(&graph).code(), MaceStatus::MACE_INVALID_ARGS);
}

}  // namespace
}  // namespace hexagon
}  // namespace mace
