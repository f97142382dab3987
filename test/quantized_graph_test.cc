// A small quantized network through the whole engine: float in, Quantize,
// Conv2D (uint8 filter, RELU6), DepthwiseConv2d (per-channel int8 filter,
// RELU), max Pooling, FullyConnected, Softmax, Dequantize, float out; bit for
// bit against the same chain of uint8 reference kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mace/ops/common/quantize.h"
#include "mace/ops/ref/quantized/conv_2d.h"
#include "mace/ops/ref/quantized/mat_mul.h"
#include "mace/ops/ref/quantized/pooling.h"
#include "mace/ops/ref/quantized/quantize.h"
#include "mace/ops/ref/quantized/softmax.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"

namespace mace {
namespace {

constexpr int64_t kC = 3, kH = 9, kW = 9, kConvC = 4, kUnits = 6;
constexpr int64_t kDwH = 5, kDwW = 5, kPoolH = 2, kPoolW = 2;
constexpr int64_t kDepth = kConvC * kPoolH * kPoolW;

// The network's constants and quantization, shared by the model and the
// reference chain.
struct Network {
  float x_scale = 0.05f;
  int32_t x_zp = 120;
  std::vector<uint8_t> conv_filter;  // [kConvC, kC, 3, 3], per tensor
  float conv_filter_scale = 0.01f;
  int32_t conv_filter_zp = 127;
  std::vector<int32_t> conv_bias;
  float conv_scale = 0.03f;
  int32_t conv_zp = 20;
  std::vector<int8_t> dw_filter;  // [1, kConvC, 3, 3], per channel
  std::vector<float> dw_scales = {0.01f, 0.004f, 0.02f, 0.007f};
  std::vector<int32_t> dw_bias;
  float dw_scale = 0.04f;
  int32_t dw_zp = 5;
  std::vector<uint8_t> fc_weight;  // [kUnits, kDepth], per tensor
  float fc_weight_scale = 0.002f;
  int32_t fc_weight_zp = 140;
  std::vector<int32_t> fc_bias;
  float fc_scale = 0.05f;
  int32_t fc_zp = 128;
};

Network MakeNetwork() {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> byte(0, 255), signed_byte(-127, 127), bias(-2000, 2000);
  Network n;
  for (int64_t i = 0; i < kConvC * kC * 9; ++i) n.conv_filter.push_back(byte(rng));
  for (int64_t i = 0; i < kConvC; ++i) n.conv_bias.push_back(bias(rng));
  for (int64_t i = 0; i < kConvC * 9; ++i) n.dw_filter.push_back(signed_byte(rng));
  for (int64_t i = 0; i < kConvC; ++i) n.dw_bias.push_back(bias(rng));
  for (int64_t i = 0; i < kUnits * kDepth; ++i) n.fc_weight.push_back(byte(rng));
  for (int64_t i = 0; i < kUnits; ++i) n.fc_bias.push_back(bias(rng));
  return n;
}

struct Model : testing::ModelBuilder {
  OperatorDef* AddUint8Op(const std::string& type, const std::string& name,
                          const std::vector<std::string>& inputs, const std::string& output,
                          float scale, int32_t zero_point) {
    OperatorDef* op = AddOp(type, name, inputs, output);
    SetInt(op, "T", DT_UINT8);
    if (scale != 0.f) {
      QuantizeActivationInfo* info = op->add_quantize_info();
      info->set_scale(scale);
      info->set_zero_point(zero_point);
    }
    return op;
  }
};

void SetInts(OperatorDef* op, const std::string& name, const std::vector<int64_t>& values) {
  Argument* arg = op->add_arg();
  arg->set_name(name);
  for (int64_t v : values) arg->add_ints(v);
}

Model BuildModel(const Network& n) {
  Model m;
  InputOutputInfo* input = m.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {int64_t{1}, kC, kH, kW}) input->add_dims(d);
  m.net.add_output_info()->set_name("y");

  ConstTensor* conv_filter = m.AddRawWeight("conv_filter", {kConvC, kC, 3, 3}, DT_UINT8,
                                            n.conv_filter.data(), n.conv_filter.size(), 1);
  conv_filter->set_scale(n.conv_filter_scale);
  conv_filter->set_zero_point(n.conv_filter_zp);
  m.AddRawWeight("conv_bias", {kConvC}, DT_INT32, n.conv_bias.data(), kConvC, 4);
  ConstTensor* dw_filter = m.AddRawWeight("dw_filter", {1, kConvC, 3, 3}, DT_INT8,
                                          n.dw_filter.data(), n.dw_filter.size(), 1);
  for (float scale : n.dw_scales) dw_filter->add_channel_scales(scale);
  m.AddRawWeight("dw_bias", {kConvC}, DT_INT32, n.dw_bias.data(), kConvC, 4);
  ConstTensor* fc_weight = m.AddRawWeight("fc_weight", {kUnits, kDepth}, DT_UINT8,
                                          n.fc_weight.data(), n.fc_weight.size(), 1);
  fc_weight->set_scale(n.fc_weight_scale);
  fc_weight->set_zero_point(n.fc_weight_zp);
  m.AddRawWeight("fc_bias", {kUnits}, DT_INT32, n.fc_bias.data(), kUnits, 4);

  m.AddUint8Op("Quantize", "quantize", {"x"}, "xq", n.x_scale, n.x_zp);
  OperatorDef* conv = m.AddUint8Op("Conv2D", "conv", {"xq", "conv_filter", "conv_bias"}, "conv_out",
                                   n.conv_scale, n.conv_zp);
  Model::SetInt(conv, "padding", 1);
  Model::SetString(conv, "activation", "RELU6");
  OperatorDef* dw = m.AddUint8Op("DepthwiseConv2d", "dw", {"conv_out", "dw_filter", "dw_bias"},
                                 "dw_out", n.dw_scale, n.dw_zp);
  SetInts(dw, "strides", {2, 2});
  SetInts(dw, "pads", {1, 1, 1, 1});
  Model::SetString(dw, "activation", "RELU");
  // Pooling keeps its input's quantization; its output states none.
  OperatorDef* pool = m.AddUint8Op("Pooling", "pool", {"dw_out"}, "pool_out", 0.f, 0);
  Model::SetInt(pool, "pooling_type", 2);
  SetInts(pool, "kernels", {2, 2});
  SetInts(pool, "strides", {2, 2});
  m.AddUint8Op("FullyConnected", "fc", {"pool_out", "fc_weight", "fc_bias"}, "fc_out", n.fc_scale,
               n.fc_zp);
  OperatorDef* softmax = m.AddUint8Op("Softmax", "softmax", {"fc_out"}, "prob",
                                      ops::ref::quantized::kSoftmaxOutputScale, 0);
  Model::SetInt(softmax, "axis", 1);
  m.AddOp("Dequantize", "dequantize", {"prob"}, "y");
  return m;
}

ops::QuantizedMultiplier Multiplier(double real) {
  ops::QuantizedMultiplier m;
  EXPECT_TRUE(ops::MakeQuantizedMultiplier(real, "reference", &m).ok());
  return m;
}

// The same network by the reference kernels, step by step.
std::vector<float> Reference(const Network& n, const std::vector<float>& x,
                             std::vector<uint8_t>* probabilities) {
  namespace rq = ops::ref::quantized;
  std::vector<uint8_t> xq(x.size());
  rq::Quantize(x.data(), x.size(), n.x_scale, n.x_zp, xq.data());

  ops::ref::Conv2DParams cp;
  cp.batch = 1;
  cp.in_channels = kC;
  cp.in_h = kH;
  cp.in_w = kW;
  cp.out_channels = kConvC;
  cp.out_h = kH;
  cp.out_w = kW;
  cp.kernel_h = cp.kernel_w = 3;
  cp.pad_top = cp.pad_left = 1;
  rq::ConvQuantization cq;
  cq.input_zero_point = n.x_zp;
  cq.filter_zero_point = n.conv_filter_zp;
  cq.multipliers = {Multiplier(double{n.x_scale} * n.conv_filter_scale / n.conv_scale)};
  cq.output = ops::OutputClamp{
      n.conv_zp, n.conv_zp,
      std::min(255, n.conv_zp + static_cast<int32_t>(std::round(6.0 / n.conv_scale)))};
  std::vector<uint8_t> conv(kConvC * kH * kW);
  rq::Conv2D(cp, cq, xq.data(), n.conv_filter.data(), n.conv_bias.data(), conv.data());

  ops::ref::DepthwiseConv2dParams dp;
  dp.batch = 1;
  dp.channels = kConvC;
  dp.in_h = kH;
  dp.in_w = kW;
  dp.out_h = kDwH;
  dp.out_w = kDwW;
  dp.kernel_h = dp.kernel_w = 3;
  dp.stride_h = dp.stride_w = 2;
  dp.pad_top = dp.pad_left = 1;
  rq::ConvQuantization dq;
  dq.input_zero_point = n.conv_zp;
  for (float scale : n.dw_scales) {
    dq.multipliers.push_back(Multiplier(double{n.conv_scale} * scale / n.dw_scale));
  }
  dq.output = ops::OutputClamp{n.dw_zp, n.dw_zp, 255};
  std::vector<uint8_t> dw(kConvC * kDwH * kDwW);
  rq::DepthwiseConv2d(dp, dq, conv.data(), n.dw_filter.data(), n.dw_bias.data(), dw.data());

  ops::ref::PoolingParams pp;
  pp.type = ops::ref::PoolingType::MAX;
  pp.batch = 1;
  pp.channels = kConvC;
  pp.in_h = kDwH;
  pp.in_w = kDwW;
  pp.out_h = kPoolH;
  pp.out_w = kPoolW;
  pp.kernel_h = pp.kernel_w = 2;
  pp.stride_h = pp.stride_w = 2;
  std::vector<uint8_t> pool(kDepth);
  rq::Pooling(pp, n.dw_zp, dw.data(), pool.data());

  rq::ConvQuantization fq;
  fq.input_zero_point = n.dw_zp;
  fq.filter_zero_point = n.fc_weight_zp;
  fq.multipliers = {Multiplier(double{n.dw_scale} * n.fc_weight_scale / n.fc_scale)};
  fq.output = ops::OutputClamp{n.fc_zp, 0, 255};
  std::vector<uint8_t> fc(kUnits);
  rq::FullyConnected({1, kDepth, kUnits}, fq, pool.data(), n.fc_weight.data(), n.fc_bias.data(),
                     fc.data());

  ops::ref::SoftmaxParams sp;
  sp.outer = 1;
  sp.axis_size = kUnits;
  sp.inner = 1;
  probabilities->assign(kUnits, 0);
  rq::Softmax(sp, rq::MakeSoftmaxTable(n.fc_scale), fc.data(), probabilities->data());
  std::vector<float> y(kUnits);
  rq::Dequantize(probabilities->data(), kUnits, rq::kSoftmaxOutputScale, 0, y.data());
  return y;
}

TEST(QuantizedGraph, MixedOpsMatchReferenceChain) {
  const Network network = MakeNetwork();
  const Model model = BuildModel(network);
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = model.CreateEngine({"x"}, {"y"}, MaceEngineConfig(), &engine);
  ASSERT_TRUE(created.ok()) << created.ToString();
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> real(-6.f, 6.f);
    std::vector<float> x(kC * kH * kW);
    for (float& v : x) v = real(rng);
    std::shared_ptr<float> data(new float[x.size()], std::default_delete<float[]>());
    std::copy(x.begin(), x.end(), data.get());
    std::map<std::string, MaceTensor> outputs;
    const MaceStatus ran = engine->Run({{"x", MaceTensor({1, kC, kH, kW}, data)}}, &outputs);
    ASSERT_TRUE(ran.ok()) << ran.ToString();
    std::vector<uint8_t> probabilities;
    const std::vector<float> expected = Reference(network, x, &probabilities);
    const MaceTensor& y = outputs.at("y");
    ASSERT_EQ(y.shape(), (std::vector<int64_t>{1, kUnits, 1, 1}));
    for (int64_t i = 0; i < kUnits; ++i) EXPECT_EQ(y.data().get()[i], expected[i]) << i;
    // Not a degenerate run: the probabilities are spread over several units.
    std::string spread;
    for (uint8_t p : probabilities) spread += std::to_string(p) + " ";
    EXPECT_LT(*std::max_element(probabilities.begin(), probabilities.end()), 200) << spread;
  }
}

TEST(QuantizedGraph, MismatchedRangeOnPoolingIsRefused) {
  const Network network = MakeNetwork();
  Model model = BuildModel(network);
  QuantizeActivationInfo* info = model.Op("pool")->add_quantize_info();
  info->set_scale(0.5f);
  info->set_zero_point(9);
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = model.CreateEngine({"x"}, {"y"}, MaceEngineConfig(), &engine);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.information().find("output 'pool_out' has scale 0.5 and zero point 9 but "
                                      "input 'dw_out'"),
            std::string::npos)
      << status.ToString();
}

}  // namespace
}  // namespace mace
