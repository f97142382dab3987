// uint8 graphs through the whole engine: float in, Quantize, a uint8
// Conv2D, Dequantize, float out, against the uint8 reference kernels; uint8
// tensors straight from and to the app; and bad quantization refused at
// engine creation with the tensor named.
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mace/ops/common/quantize.h"
#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/ops/ref/quantized/quantize.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"

namespace mace {
namespace {

constexpr int64_t kChannels = 3, kHeight = 9, kWidth = 7, kOutChannels = 5;

using QuantizedModel = testing::ModelBuilder;

void SetQuantizeInfo(OperatorDef* op, float scale, int32_t zero_point) {
  QuantizeActivationInfo* info = op->add_quantize_info();
  info->set_scale(scale);
  info->set_zero_point(zero_point);
}

// Conv2D 3x3, stride 2, SAME padding, RELU6, from `input` (uint8) to
// "conv_out"; the filter is uint8 per tensor or int8 per channel.
struct ConvSpec {
  bool per_channel = false;
  std::vector<uint8_t> filter_u8;
  std::vector<int8_t> filter_i8;
  std::vector<int32_t> bias;
  float filter_scale = 0.011f;
  int32_t filter_zero_point = 131;
  std::vector<float> channel_scales;
  float output_scale = 0.04f;
  int32_t output_zero_point = 10;
};

ConvSpec MakeConvSpec(bool per_channel) {
  std::mt19937 rng(7767517);
  std::uniform_int_distribution<int> byte(0, 255), signed_byte(-127, 127), bias(-3000, 3000);
  ConvSpec spec;
  spec.per_channel = per_channel;
  const int64_t count = kOutChannels * kChannels * 9;
  for (int64_t i = 0; i < count; ++i) {
    spec.filter_u8.push_back(static_cast<uint8_t>(byte(rng)));
    spec.filter_i8.push_back(static_cast<int8_t>(signed_byte(rng)));
  }
  for (int64_t i = 0; i < kOutChannels; ++i) spec.bias.push_back(bias(rng));
  spec.channel_scales = {0.004f, 0.02f, 0.013f, 0.0007f, 0.05f};
  return spec;
}

void AddConv(QuantizedModel* model, const ConvSpec& spec, const std::string& input) {
  if (spec.per_channel) {
    ConstTensor* filter = model->AddRawWeight("filter", {kOutChannels, kChannels, 3, 3}, DT_INT8,
                                              spec.filter_i8.data(), spec.filter_i8.size(), 1);
    for (float scale : spec.channel_scales) filter->add_channel_scales(scale);
  } else {
    ConstTensor* filter = model->AddRawWeight("filter", {kOutChannels, kChannels, 3, 3}, DT_UINT8,
                                              spec.filter_u8.data(), spec.filter_u8.size(), 1);
    filter->set_scale(spec.filter_scale);
    filter->set_zero_point(spec.filter_zero_point);
  }
  model->AddRawWeight("bias", {kOutChannels}, DT_INT32, spec.bias.data(), spec.bias.size(), 4);
  OperatorDef* conv = model->AddOp("Conv2D", "conv", {input, "filter", "bias"}, "conv_out");
  testing::ModelBuilder::SetInt(conv, "T", DT_UINT8);
  testing::ModelBuilder::SetInt(conv, "padding", 1);
  testing::ModelBuilder::SetString(conv, "activation", "RELU6");
  Argument* strides = conv->add_arg();
  strides->set_name("strides");
  strides->add_ints(2);
  strides->add_ints(2);
  SetQuantizeInfo(conv, spec.output_scale, spec.output_zero_point);
}

// The same convolution by the reference kernels.
std::vector<uint8_t> ReferenceConv(const ConvSpec& spec, const std::vector<uint8_t>& input,
                                   float input_scale, int32_t input_zero_point) {
  ops::ref::Conv2DParams p;
  p.batch = 1;
  p.in_channels = kChannels;
  p.in_h = kHeight;
  p.in_w = kWidth;
  p.out_channels = kOutChannels;
  p.out_h = (kHeight + 1) / 2;
  p.out_w = (kWidth + 1) / 2;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  // SAME with stride 2 on odd sizes: (out - 1) * 2 + 3 - in = 2, split 1/1.
  p.pad_top = p.pad_left = 1;
  ops::ref::quantized::ConvQuantization quant;
  quant.input_zero_point = input_zero_point;
  quant.filter_zero_point = spec.per_channel ? 0 : spec.filter_zero_point;
  for (int64_t c = 0; c < (spec.per_channel ? kOutChannels : 1); ++c) {
    const float filter_scale = spec.per_channel ? spec.channel_scales[c] : spec.filter_scale;
    ops::QuantizedMultiplier m;
    EXPECT_TRUE(ops::MakeQuantizedMultiplier(
                    static_cast<double>(input_scale) * filter_scale / spec.output_scale, "ref", &m)
                    .ok());
    quant.multipliers.push_back(m);
  }
  const int32_t six = static_cast<int32_t>(std::round(6.0 / spec.output_scale));
  quant.output = ops::OutputClamp{spec.output_zero_point, spec.output_zero_point,
                                  std::min(255, spec.output_zero_point + six)};
  std::vector<uint8_t> output(kOutChannels * p.out_h * p.out_w);
  if (spec.per_channel) {
    ops::ref::quantized::Conv2D(p, quant, input.data(), spec.filter_i8.data(), spec.bias.data(),
                                output.data());
  } else {
    ops::ref::quantized::Conv2D(p, quant, input.data(), spec.filter_u8.data(), spec.bias.data(),
                                output.data());
  }
  return output;
}

std::vector<float> FloatInput() {
  std::mt19937 rng(7767517);
  std::uniform_real_distribution<float> real(-7.f, 7.f);
  std::vector<float> x(kChannels * kHeight * kWidth);
  for (float& v : x) v = real(rng);
  return x;
}

constexpr float kInputScale = 0.05f;
constexpr int32_t kInputZeroPoint = 120;

QuantizedModel FloatEdgeModel(const ConvSpec& spec) {
  QuantizedModel model;
  InputOutputInfo* input = model.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {int64_t{1}, kChannels, kHeight, kWidth}) input->add_dims(d);
  model.net.add_output_info()->set_name("y");
  SetQuantizeInfo(model.AddOp("Quantize", "quantize", {"x"}, "xq"), kInputScale, kInputZeroPoint);
  AddConv(&model, spec, "xq");
  model.AddOp("Dequantize", "dequantize", {"conv_out"}, "y");
  return model;
}

void ExpectFloatGraphMatchesReference(bool per_channel) {
  const ConvSpec spec = MakeConvSpec(per_channel);
  const QuantizedModel model = FloatEdgeModel(spec);
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = model.CreateEngine({"x"}, {"y"}, MaceEngineConfig(), &engine);
  ASSERT_TRUE(created.ok()) << created.ToString();
  const std::vector<float> x = FloatInput();
  std::shared_ptr<float> data(new float[x.size()], std::default_delete<float[]>());
  std::copy(x.begin(), x.end(), data.get());
  std::map<std::string, MaceTensor> outputs;
  const MaceStatus ran =
      engine->Run({{"x", MaceTensor({1, kChannels, kHeight, kWidth}, data)}}, &outputs);
  ASSERT_TRUE(ran.ok()) << ran.ToString();

  std::vector<uint8_t> xq(x.size());
  ops::ref::quantized::Quantize(x.data(), x.size(), kInputScale, kInputZeroPoint, xq.data());
  const std::vector<uint8_t> conv = ReferenceConv(spec, xq, kInputScale, kInputZeroPoint);
  std::vector<float> expected(conv.size());
  ops::ref::quantized::Dequantize(conv.data(), conv.size(), spec.output_scale,
                                  spec.output_zero_point, expected.data());
  const MaceTensor& y = outputs.at("y");
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{1, kOutChannels, 5, 4}));
  int saturated = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(y.data().get()[i], expected[i]) << i;
    saturated += conv[i] == spec.output_zero_point;
  }
  // The RELU6 clamp is exercised, but not everywhere.
  EXPECT_GT(saturated, 0);
  EXPECT_LT(saturated, static_cast<int>(conv.size()));
}

TEST(QuantizedEngine, FloatEdgesUint8Filter) { ExpectFloatGraphMatchesReference(false); }

// The float input is read where the app keeps it: the arena holds only the
// uint8 tensors and the float output, whatever buffer the app gives. A
// buffer not aligned to floats is copied, and the copy is reported.
TEST(QuantizedEngine, ArenaHoldsNoFloatInput) {
  const ConvSpec spec = MakeConvSpec(false);
  const QuantizedModel model = FloatEdgeModel(spec);
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.CreateEngine({"x"}, {"y"}, MaceEngineConfig(), &engine).ok());
  const int64_t count = kChannels * kHeight * kWidth;
  MemoryReport report;
  ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
  // xq (189 bytes) and conv_out (100) and y (400 bytes of floats), each
  // aligned to 64: xq dies at the conv, so conv_out and y are the peak.
  EXPECT_EQ(report.arena_bytes, 128 + 448);
  EXPECT_EQ(report.arena_bytes, report.lower_bound_bytes);
  EXPECT_EQ(report.app_input_bytes, count * 4);
  EXPECT_EQ(report.input_copy_bytes, 0);
  for (const TensorPlacement& t : report.tensors) EXPECT_NE(t.name, "x");
  // The conv keeps at least its packed filter.
  EXPECT_GE(report.op_bytes, kOutChannels * kChannels * 9);

  const std::vector<float> x = FloatInput();
  std::vector<float> first;
  for (int offset : {0, 0, 1}) {
    // offset 1: the floats start one byte into the buffer.
    std::shared_ptr<unsigned char> bytes(new unsigned char[count * 4 + 8],
                                         std::default_delete<unsigned char[]>());
    std::memcpy(bytes.get() + offset, x.data(), count * 4);
    std::shared_ptr<void> data(bytes, bytes.get() + offset);
    std::map<std::string, MaceTensor> outputs;
    ASSERT_TRUE(engine
                    ->Run({{"x", MaceTensor({1, kChannels, kHeight, kWidth}, data,
                                            TensorDataType::FLOAT32)}},
                          &outputs)
                    .ok());
    const MaceTensor& y = outputs.at("y");
    std::vector<float> got(y.data().get(), y.data().get() + y.size());
    if (first.empty()) first = got;
    EXPECT_EQ(got, first) << offset;
    // The app's input is left as it was.
    EXPECT_EQ(std::memcmp(bytes.get() + offset, x.data(), count * 4), 0);
    ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
    EXPECT_EQ(report.input_copy_bytes, offset == 0 ? 0 : (count * 4 + 7) / 8 * 8) << offset;
  }
}

TEST(QuantizedEngine, FloatEdgesPerChannelInt8Filter) { ExpectFloatGraphMatchesReference(true); }

TEST(QuantizedEngine, Uint8TensorsFromAndToTheApp) {
  const ConvSpec spec = MakeConvSpec(false);
  QuantizedModel model;
  InputOutputInfo* input = model.net.add_input_info();
  input->set_name("x");
  input->set_data_type(DT_UINT8);
  input->set_scale(kInputScale);
  input->set_zero_point(kInputZeroPoint);
  for (int64_t d : {int64_t{1}, kChannels, kHeight, kWidth}) input->add_dims(d);
  InputOutputInfo* output = model.net.add_output_info();
  output->set_name("conv_out");
  output->set_data_type(DT_UINT8);
  AddConv(&model, spec, "x");
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = model.CreateEngine({"x"}, {"conv_out"}, MaceEngineConfig(), &engine);
  ASSERT_TRUE(created.ok()) << created.ToString();

  std::mt19937 rng(7767517);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> x(kChannels * kHeight * kWidth);
  for (uint8_t& v : x) v = static_cast<uint8_t>(byte(rng));
  std::shared_ptr<void> data(new uint8_t[x.size()], std::default_delete<uint8_t[]>());
  std::memcpy(data.get(), x.data(), x.size());
  std::map<std::string, MaceTensor> outputs;
  const MaceStatus ran = engine->Run(
      {{"x", MaceTensor({1, kChannels, kHeight, kWidth}, data, TensorDataType::UINT8)}}, &outputs);
  ASSERT_TRUE(ran.ok()) << ran.ToString();
  const MaceTensor& y = outputs.at("conv_out");
  ASSERT_EQ(y.data_type(), TensorDataType::UINT8);
  const std::vector<uint8_t> expected = ReferenceConv(spec, x, kInputScale, kInputZeroPoint);
  const uint8_t* got = static_cast<const uint8_t*>(y.raw_data().get());
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(got[i], expected[i]) << i;
}

void ExpectCreateFails(const QuantizedModel& model, const std::string& needle) {
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = model.CreateEngine({"x"}, {"y"}, MaceEngineConfig(), &engine);
  ASSERT_FALSE(status.ok()) << needle;
  EXPECT_NE(status.information().find(needle), std::string::npos) << status.ToString();
}

TEST(QuantizedEngine, RefusesBadQuantization) {
  const ConvSpec spec = MakeConvSpec(false);
  {
    QuantizedModel model = FloatEdgeModel(spec);
    model.Op("quantize")->mutable_quantize_info(0)->set_scale(0.f);
    ExpectCreateFails(model, "'xq' has scale 0");
  }
  {
    QuantizedModel model = FloatEdgeModel(spec);
    model.Op("quantize")->mutable_quantize_info(0)->set_scale(std::nanf(""));
    ExpectCreateFails(model, "'xq' has scale nan");
  }
  {
    QuantizedModel model = FloatEdgeModel(spec);
    model.net.mutable_tensors(0)->set_zero_point(256);
    ExpectCreateFails(model, "'filter' has zero point 256");
  }
  {
    QuantizedModel model = FloatEdgeModel(spec);
    model.Op("conv")->mutable_quantize_info(0)->set_scale(
        std::numeric_limits<float>::infinity());
    ExpectCreateFails(model, "'conv_out' has scale inf");
  }
  {
    QuantizedModel model = FloatEdgeModel(spec);
    for (Argument& arg : *model.Op("conv")->mutable_arg()) {
      if (arg.name() == "activation") arg.set_s("SIGMOID");
    }
    ExpectCreateFails(model, "cannot be fused");
  }
  {
    const ConvSpec per_channel = MakeConvSpec(true);
    QuantizedModel model = FloatEdgeModel(per_channel);
    model.net.mutable_tensors(0)->add_channel_scales(0.1f);
    ExpectCreateFails(model, "'filter' has 6 channel scales");
  }
  {
    // A float filter on the uint8 kernel.
    QuantizedModel model = FloatEdgeModel(spec);
    model.AddWeight("float_filter", {kOutChannels, kChannels, 3, 3},
                    std::vector<float>(kOutChannels * kChannels * 9, 0.5f));
    model.Op("conv")->set_input(1, "float_filter");
    ExpectCreateFails(model, "'float_filter' is float32 but must be uint8 or int8");
  }
}

}  // namespace
}  // namespace mace
