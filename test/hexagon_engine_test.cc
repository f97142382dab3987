// uint8 models through MaceEngine on DeviceType::HEXAGON (the emulated DSP,
// docs/design/dsp.md): outputs equal the CPU engine's bit for bit, also
// with ops the DSP lacks placed on the CPU between DSP graphs and with
// engines sharing a MaceContext's DSP session, and a missing DSP image is
// a clear error.
#include <sys/stat.h>

#include <cstdio>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"

namespace mace {
namespace {

using testing::ModelBuilder;

void SetQuantizeInfo(OperatorDef* op, float scale, int32_t zero_point) {
  QuantizeActivationInfo* info = op->add_quantize_info();
  info->set_scale(scale);
  info->set_zero_point(zero_point);
}

void SetInts(OperatorDef* op, const std::string& name, const std::vector<int64_t>& values) {
  Argument* arg = op->add_arg();
  arg->set_name(name);
  for (int64_t v : values) arg->add_ints(v);
}

std::vector<uint8_t> RandomBytes(size_t count, std::mt19937* rng) {
  std::vector<uint8_t> bytes(count);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>((*rng)() & 0xff);
  return bytes;
}

// x [1,3,9,7] float -> Quantize -> Conv2D 3x3 s2 SAME RELU6 (8 channels)
// -> DepthwiseConv2d 3x3 SAME -> Conv2D 1x1 (6 channels) -> max pool 2x2
// -> Dequantize -> y.
struct Model {
  ModelBuilder builder;
  std::vector<uint8_t> w1, w2, w3;
  std::vector<int32_t> b1;
};

Model MakeModel() {
  Model m;
  std::mt19937 rng(7767517);
  m.w1 = RandomBytes(8 * 3 * 9, &rng);
  m.w2 = RandomBytes(8 * 9, &rng);
  m.w3 = RandomBytes(6 * 8, &rng);
  for (int i = 0; i < 8; ++i) m.b1.push_back(static_cast<int32_t>(rng() % 4001) - 2000);
  ModelBuilder& b = m.builder;
  InputOutputInfo* input = b.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 3, 9, 7}) input->add_dims(d);
  b.net.add_output_info()->set_name("y");
  SetQuantizeInfo(b.AddOp("Quantize", "quantize", {"x"}, "xq"), 0.05f, 120);
  auto weight = [&b](const std::string& name, const std::vector<int64_t>& dims,
                     const std::vector<uint8_t>& data, float scale, int32_t zero_point) {
    ConstTensor* t = b.AddRawWeight(name, dims, DT_UINT8, data.data(), data.size(), 1);
    t->set_scale(scale);
    t->set_zero_point(zero_point);
  };
  weight("w1", {8, 3, 3, 3}, m.w1, 0.011f, 131);
  b.AddRawWeight("b1", {8}, DT_INT32, m.b1.data(), m.b1.size(), 4);
  OperatorDef* conv = b.AddOp("Conv2D", "conv", {"xq", "w1", "b1"}, "c1");
  ModelBuilder::SetInt(conv, "T", DT_UINT8);
  ModelBuilder::SetInt(conv, "padding", 1);
  ModelBuilder::SetString(conv, "activation", "RELU6");
  SetInts(conv, "strides", {2, 2});
  SetQuantizeInfo(conv, 0.04f, 10);
  weight("w2", {1, 8, 3, 3}, m.w2, 0.02f, 100);
  OperatorDef* dw = b.AddOp("DepthwiseConv2d", "dw", {"c1", "w2"}, "c2");
  ModelBuilder::SetInt(dw, "T", DT_UINT8);
  ModelBuilder::SetInt(dw, "padding", 1);
  SetQuantizeInfo(dw, 0.3f, 128);
  weight("w3", {6, 8, 1, 1}, m.w3, 0.015f, 127);
  OperatorDef* pw = b.AddOp("Conv2D", "pw", {"c2", "w3"}, "c3");
  ModelBuilder::SetInt(pw, "T", DT_UINT8);
  SetQuantizeInfo(pw, 0.5f, 120);
  OperatorDef* pool = b.AddOp("Pooling", "pool", {"c3"}, "c4");
  ModelBuilder::SetInt(pool, "T", DT_UINT8);
  ModelBuilder::SetInt(pool, "pooling_type", 2);
  SetInts(pool, "kernels", {2, 2});
  SetQuantizeInfo(pool, 0.5f, 120);
  b.AddOp("Dequantize", "dequantize", {"c4"}, "y");
  return m;
}

std::vector<float> RunEngine(const ModelBuilder& model, const MaceEngineConfig& config,
                             MaceStatus* status) {
  std::shared_ptr<MaceEngine> engine;
  *status = model.CreateEngine({"x"}, {"y"}, config, &engine);
  if (!status->ok()) return {};
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> real(-6.f, 6.f);
  std::shared_ptr<float> data(new float[3 * 9 * 7], std::default_delete<float[]>());
  for (int i = 0; i < 3 * 9 * 7; ++i) data.get()[i] = real(rng);
  std::vector<float> result;
  for (int run = 0; run < 2; ++run) {
    std::map<std::string, MaceTensor> outputs;
    *status = engine->Run({{"x", MaceTensor({1, 3, 9, 7}, data)}}, &outputs);
    if (!status->ok()) return {};
    const MaceTensor& y = outputs.at("y");
    result.assign(y.data().get(), y.data().get() + y.size());
  }
  return result;
}

std::vector<float> RunEngine(const ModelBuilder& model, DeviceType device, MaceStatus* status) {
  return RunEngine(model, MaceEngineConfig(device), status);
}

// The model on the CPU and on the DSP: equal bit for bit, of `size`
// values, not nearly constant. Returns the CPU's output.
std::vector<float> ExpectDspEqualsCpu(const ModelBuilder& model, size_t size) {
  MaceStatus status;
  const std::vector<float> cpu = RunEngine(model, DeviceType::CPU, &status);
  EXPECT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> dsp = RunEngine(model, DeviceType::HEXAGON, &status);
  EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(cpu.size(), size);
  EXPECT_EQ(dsp, cpu);
  EXPECT_GT(std::set<float>(cpu.begin(), cpu.end()).size(), 3u);
  return cpu;
}

TEST(HexagonEngineTest, MatchesTheCpuEngineBitForBit) {
  ExpectDspEqualsCpu(MakeModel().builder, 6u * 4 * 3);
}

// Makes the model's input the uint8 "xq" (the Quantize removed) and drops
// the final Dequantize.
void UseUint8Edges(ModelBuilder* b) {
  InputOutputInfo* input = b->net.mutable_input_info(0);
  input->set_name("xq");
  input->set_data_type(DT_UINT8);
  input->set_scale(0.05f);
  input->set_zero_point(120);
  b->net.mutable_op()->DeleteSubrange(b->net.op_size() - 1, 1);  // Dequantize
  b->net.mutable_op()->DeleteSubrange(0, 1);                     // Quantize
}

// Runs a model with uint8 input "xq" (random bytes from `seed`) and the
// uint8 output `output` on the CPU and on the DSP: their output bytes.
std::vector<std::vector<uint8_t>> RunUint8OnBoth(ModelBuilder* b, const std::string& output,
                                                 unsigned seed) {
  InputOutputInfo* info = b->net.mutable_output_info(0);
  info->set_name(output);
  info->set_data_type(DT_UINT8);
  std::mt19937 rng(seed);
  const std::vector<uint8_t> x = RandomBytes(3 * 9 * 7, &rng);
  std::vector<std::vector<uint8_t>> results;
  for (DeviceType device : {DeviceType::CPU, DeviceType::HEXAGON}) {
    std::shared_ptr<MaceEngine> engine;
    MaceStatus status = b->CreateEngine({"xq"}, {output}, MaceEngineConfig(device), &engine);
    EXPECT_TRUE(status.ok()) << status.ToString();
    if (!status.ok()) return {};
    std::shared_ptr<void> data(new uint8_t[x.size()], std::default_delete<uint8_t[]>());
    std::copy(x.begin(), x.end(), static_cast<uint8_t*>(data.get()));
    std::map<std::string, MaceTensor> outputs;
    status = engine->Run({{"xq", MaceTensor({1, 3, 9, 7}, data, TensorDataType::UINT8)}}, &outputs);
    EXPECT_TRUE(status.ok()) << status.ToString();
    if (!status.ok()) return {};
    const MaceTensor& y = outputs.at(output);
    const uint8_t* bytes = static_cast<const uint8_t*>(y.raw_data().get());
    results.emplace_back(bytes, bytes + y.size());
  }
  return results;
}

// The same model with uint8 tensors straight from and to the app.
TEST(HexagonEngineTest, Uint8InputsAndOutputsPassThrough) {
  Model model = MakeModel();
  UseUint8Edges(&model.builder);
  const std::vector<std::vector<uint8_t>> results = RunUint8OnBoth(&model.builder, "c4", 99);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1], results[0]);
}

// Inserts `op_type` (uint8, output quantization given) between the pool
// and the Dequantize.
void InsertBeforeDequantize(ModelBuilder* b, const std::string& op_type, float scale,
                            int32_t zero_point) {
  OperatorDef* op = b->AddOp(op_type, "extra", {"c4"}, "c5");
  ModelBuilder::SetInt(op, "T", DT_UINT8);
  SetQuantizeInfo(op, scale, zero_point);
  b->Op("dequantize")->set_input(0, "c5");
  b->net.mutable_op()->SwapElements(b->net.op_size() - 1, b->net.op_size() - 2);
}

TEST(HexagonEngineTest, SoftmaxOverChannelsMatchesTheCpuEngine) {
  Model model = MakeModel();
  InsertBeforeDequantize(&model.builder, "Softmax", 1.f / 256, 0);
  ModelBuilder::SetInt(model.builder.Op("extra"), "axis", 1);
  MaceStatus status;
  const std::vector<float> cpu = RunEngine(model.builder, DeviceType::CPU, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> dsp = RunEngine(model.builder, DeviceType::HEXAGON, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(dsp, cpu);
}

// A classifier head: global average pool, FullyConnected, Softmax.
TEST(HexagonEngineTest, ClassifierHeadMatchesTheCpuEngine) {
  Model model = MakeModel();
  ModelBuilder& b = model.builder;
  b.net.mutable_op()->DeleteSubrange(b.net.op_size() - 1, 1);  // Dequantize
  OperatorDef* pool = b.AddOp("Pooling", "gap", {"c4"}, "g");
  ModelBuilder::SetInt(pool, "T", DT_UINT8);
  ModelBuilder::SetInt(pool, "pooling_type", 1);
  ModelBuilder::SetInt(pool, "global", 1);
  SetQuantizeInfo(pool, 0.5f, 120);
  std::mt19937 rng(5);
  const std::vector<uint8_t> w = RandomBytes(5 * 6, &rng);
  ConstTensor* weight = b.AddRawWeight("fc_w", {5, 6}, DT_UINT8, w.data(), w.size(), 1);
  weight->set_scale(0.02f);
  weight->set_zero_point(128);
  OperatorDef* fc = b.AddOp("FullyConnected", "fc", {"g", "fc_w"}, "logits");
  ModelBuilder::SetInt(fc, "T", DT_UINT8);
  SetQuantizeInfo(fc, 0.1f, 128);
  OperatorDef* softmax = b.AddOp("Softmax", "softmax", {"logits"}, "prob");
  ModelBuilder::SetInt(softmax, "T", DT_UINT8);
  ModelBuilder::SetInt(softmax, "axis", 1);  // the logits are [1, 5, 1, 1]
  SetQuantizeInfo(softmax, 1.f / 256, 0);
  b.AddOp("Dequantize", "dequantize", {"prob"}, "y");
  MaceStatus status;
  const std::vector<float> cpu = RunEngine(b, DeviceType::CPU, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> dsp = RunEngine(b, DeviceType::HEXAGON, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(cpu.size(), 5u);
  EXPECT_EQ(dsp, cpu);
  EXPECT_GT(std::set<float>(cpu.begin(), cpu.end()).size(), 1u);
}

// A float Softmax after the Dequantize runs on the CPU after the DSP; a
// uint8 Reshape (a flatten) on the DSP is the tensor it renames.
TEST(HexagonEngineTest, FloatTailAndReshapeMatchTheCpuEngine) {
  Model model = MakeModel();
  ModelBuilder& b = model.builder;
  InsertBeforeDequantize(&b, "Reshape", 0.5f, 120);
  SetInts(b.Op("extra"), "shape", {1, 6 * 4 * 3});
  b.Op("dequantize")->set_output(0, "yf");
  OperatorDef* softmax = b.AddOp("Softmax", "softmax", {"yf"}, "y");
  ModelBuilder::SetInt(softmax, "axis", 1);
  MaceStatus status;
  const std::vector<float> cpu = RunEngine(b, DeviceType::CPU, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> dsp = RunEngine(b, DeviceType::HEXAGON, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(cpu.size(), 6u * 4 * 3);
  EXPECT_EQ(dsp, cpu);
  EXPECT_GT(std::set<float>(cpu.begin(), cpu.end()).size(), 3u);
}

// A uint8 op after the CPU's float tail runs on the DSP again: two DSP
// segments with the float Activation and the Quantize between them.
TEST(HexagonEngineTest, Uint8AfterTheFloatTailRunsOnTheDspAgain) {
  Model model = MakeModel();
  ModelBuilder& b = model.builder;
  b.Op("dequantize")->set_output(0, "yf");
  OperatorDef* relu = b.AddOp("Activation", "relu", {"yf"}, "r");
  ModelBuilder::SetString(relu, "activation", "RELU");
  OperatorDef* quantize = b.AddOp("Quantize", "requantize", {"r"}, "rq");
  ModelBuilder::SetInt(quantize, "T", DT_UINT8);
  SetQuantizeInfo(quantize, 0.25f, 0);
  OperatorDef* pool = b.AddOp("Pooling", "pool2", {"rq"}, "p2");
  ModelBuilder::SetInt(pool, "T", DT_UINT8);
  ModelBuilder::SetInt(pool, "pooling_type", 1);
  SetInts(pool, "kernels", {2, 2});
  SetInts(pool, "strides", {1, 1});
  SetQuantizeInfo(pool, 0.25f, 0);
  b.AddOp("Dequantize", "dequantize2", {"p2"}, "y");
  ExpectDspEqualsCpu(b, 6u * 3 * 2);
}

// ChannelShuffle (ShuffleNet's op) has a uint8 CPU kernel and no DSP one:
// placed in the middle of the graph it runs on the CPU between two DSP
// graphs, which hand it the uint8 bytes with their quantization.
void ShuffleBeforePool(ModelBuilder* b) {
  OperatorDef* shuffle = b->AddOp("ChannelShuffle", "shuffle", {"c3"}, "c3s");
  ModelBuilder::SetInt(shuffle, "T", DT_UINT8);
  ModelBuilder::SetInt(shuffle, "group", 3);
  SetQuantizeInfo(shuffle, 0.5f, 120);
  b->Op("pool")->set_input(0, "c3s");
  // Model order: the shuffle right after the 1x1 convolution.
  auto* ops = b->net.mutable_op();
  for (int i = ops->size() - 1; i > 0 && ops->Get(i - 1).name() != "pw"; --i) {
    ops->SwapElements(i, i - 1);
  }
}

TEST(HexagonEngineTest, MidGraphCpuOpMatchesTheCpuEngine) {
  Model model = MakeModel();
  ShuffleBeforePool(&model.builder);
  ASSERT_EQ(model.builder.net.op(4).name(), "shuffle");
  const std::vector<float> cpu = ExpectDspEqualsCpu(model.builder, 6u * 4 * 3);
  // The shuffle changes the result: without it the engine gives another.
  MaceStatus status;
  const std::vector<float> plain = RunEngine(MakeModel().builder, DeviceType::HEXAGON, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_NE(plain, cpu);
}

// Creates the Hexagon engine of `model` and runs it once with RunMetadata
// on an input of `value`s (kept in `data`).
MaceStatus RunWithMetadata(const ModelBuilder& model, float value,
                           std::shared_ptr<MaceEngine>* engine, std::shared_ptr<float>* data,
                           std::map<std::string, MaceTensor>* outputs, RunMetadata* metadata) {
  MaceStatus status =
      model.CreateEngine({"x"}, {"y"}, MaceEngineConfig(DeviceType::HEXAGON), engine);
  if (!status.ok()) return status;
  data->reset(new float[3 * 9 * 7], std::default_delete<float[]>());
  std::fill(data->get(), data->get() + 3 * 9 * 7, value);
  return (*engine)->Run({{"x", MaceTensor({1, 3, 9, 7}, *data)}}, outputs, metadata);
}

// RunMetadata on a split model: each CPU op; each DSP graph as an entry
// for the call, followed by one entry per op of the graph with its MACs
// and the DSP's time for it.
TEST(HexagonEngineTest, RunMetadataHasCpuOpsAndDspGraphs) {
  Model model = MakeModel();
  ShuffleBeforePool(&model.builder);
  std::shared_ptr<MaceEngine> engine;
  std::shared_ptr<float> data;
  std::map<std::string, MaceTensor> outputs;
  RunMetadata metadata;
  MaceStatus status = RunWithMetadata(model.builder, 0.5f, &engine, &data, &outputs, &metadata);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::vector<std::string> names, types;
  const std::set<std::string> on_dsp = {"conv", "dw", "pw", "pool"};
  for (const OperatorStats& op : metadata.op_stats) {
    names.push_back(op.operator_name);
    types.push_back(op.type);
    EXPECT_GE(op.end_micros, op.start_micros) << op.operator_name;
    const bool dsp = op.type == "HexagonGraph" || on_dsp.count(op.operator_name) > 0;
    EXPECT_EQ(op.device_micros >= 0, dsp) << op.operator_name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"quantize", "DSP segment 1 of 2 (3 ops)", "conv",
                                             "dw", "pw", "shuffle", "DSP segment 2 of 2 (1 ops)",
                                             "pool", "dequantize"}));
  EXPECT_EQ(types, (std::vector<std::string>{"Quantize", "HexagonGraph", "Conv2D",
                                             "DepthwiseConv2d", "Conv2D", "ChannelShuffle",
                                             "HexagonGraph", "Pooling", "Dequantize"}));
  ASSERT_EQ(metadata.op_stats.size(), 9u);
  // conv 3x3 s2 (8 x 5 x 4 outputs, 27 taps), depthwise 3x3 (160 x 9),
  // 1x1 (6 x 5 x 4 outputs, 8 taps); the pooling and the graphs' own
  // entries have no MACs.
  std::vector<int64_t> macs;
  for (const OperatorStats& op : metadata.op_stats) macs.push_back(op.macs);
  EXPECT_EQ(macs, (std::vector<int64_t>{0, 0, 8 * 5 * 4 * 27, 8 * 5 * 4 * 9, 6 * 5 * 4 * 8, 0,
                                        0, 0, 0}));
  EXPECT_EQ(metadata.op_stats[1].output_shape,
            (std::vector<std::vector<int64_t>>{{1, 6, 5, 4}}));
  EXPECT_EQ(metadata.op_stats[3].output_shape,
            (std::vector<std::vector<int64_t>>{{1, 8, 5, 4}}));
  // The DSP ops took time on the DSP; they follow their graph's entry at
  // its end on the host's clock.
  EXPECT_GT(metadata.op_stats[2].device_micros + metadata.op_stats[3].device_micros +
                metadata.op_stats[4].device_micros,
            0);
  for (int k : {2, 3, 4}) {
    EXPECT_EQ(metadata.op_stats[k].start_micros, metadata.op_stats[1].end_micros);
    EXPECT_EQ(metadata.op_stats[k].end_micros, metadata.op_stats[1].end_micros);
  }
  // Without RunMetadata the DSP is not asked to time its ops, and the run
  // gives the same outputs.
  const std::vector<float> profiled(outputs.at("y").data().get(),
                                    outputs.at("y").data().get() + outputs.at("y").size());
  outputs.clear();
  status = engine->Run({{"x", MaceTensor({1, 3, 9, 7}, data)}}, &outputs);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(std::vector<float>(outputs.at("y").data().get(),
                               outputs.at("y").data().get() + outputs.at("y").size()),
            profiled);
}

// The host arena of a split model holds what the CPU ops read and write,
// what crosses between the DSP graphs and the CPU, and the app's tensors;
// the convolution and depthwise outputs that live only inside the first
// DSP graph get no host memory, which the CPU engine does give them.
TEST(HexagonEngineTest, HostArenaHoldsOnlyWhatTheHostTouches) {
  Model model = MakeModel();
  ShuffleBeforePool(&model.builder);
  MemoryReport reports[2];
  std::set<std::string> names[2];
  const DeviceType devices[2] = {DeviceType::CPU, DeviceType::HEXAGON};
  for (int d = 0; d < 2; ++d) {
    MaceEngineConfig config(devices[d]);
    config.SetLayoutOptimization(false);
    std::shared_ptr<MaceEngine> engine;
    MaceStatus status = model.builder.CreateEngine({"x"}, {"y"}, config, &engine);
    ASSERT_TRUE(status.ok()) << status.ToString();
    ASSERT_TRUE(engine->GetMemoryReport(&reports[d]).ok());
    for (const TensorPlacement& t : reports[d].tensors) names[d].insert(t.name);
  }
  // The CPU engine reads the float input where the app keeps it; the DSP
  // split's host net still plans a copy of it.
  EXPECT_EQ(names[0], (std::set<std::string>{"xq", "c1", "c2", "c3", "c3s", "c4", "y"}));
  EXPECT_EQ(names[1], (std::set<std::string>{"x", "xq", "c3", "c3s", "c4", "y"}));
  const int64_t x_bytes = 1 * 3 * 9 * 7 * sizeof(float);
  EXPECT_EQ(reports[0].app_input_bytes, x_bytes);
  int64_t planned_x = 0;
  for (const TensorPlacement& t : reports[1].tensors) {
    if (t.name == "x") planned_x = t.size;
  }
  EXPECT_GE(planned_x, x_bytes);  // rounded up to the arena alignment
  // Apart from that copy, the host holds fewer bytes than the CPU engine.
  EXPECT_LT(reports[1].naive_bytes - planned_x, reports[0].naive_bytes);
  // The run is still the CPU engine's, bit for bit.
  ExpectDspEqualsCpu(model.builder, 6u * 4 * 3);
}

// A depthwise convolution with channel multiplier 2 (16 outputs from 8
// channels) has no DSP kernel: the split runs it on the CPU between the
// first convolution's DSP graph and one for the 1x1 convolution and the
// pooling, and the result is the CPU engine's bit for bit.
TEST(HexagonEngineTest, DepthwiseChannelMultiplierRunsOnTheCpu) {
  Model model = MakeModel();
  ModelBuilder& b = model.builder;
  std::mt19937 rng(31);
  const std::vector<uint8_t> w2 = RandomBytes(2 * 8 * 9, &rng), w3 = RandomBytes(6 * 16, &rng);
  ConstTensor* t2 = b.AddRawWeight("w2m", {2, 8, 3, 3}, DT_UINT8, w2.data(), w2.size(), 1);
  t2->set_scale(0.02f);
  t2->set_zero_point(100);
  ConstTensor* t3 = b.AddRawWeight("w3m", {6, 16, 1, 1}, DT_UINT8, w3.data(), w3.size(), 1);
  t3->set_scale(0.015f);
  t3->set_zero_point(127);
  b.Op("dw")->set_input(1, "w2m");
  b.Op("pw")->set_input(1, "w3m");
  ExpectDspEqualsCpu(b, 6u * 4 * 3);
  std::shared_ptr<MaceEngine> engine;
  std::shared_ptr<float> data;
  std::map<std::string, MaceTensor> outputs;
  RunMetadata metadata;
  const MaceStatus status = RunWithMetadata(b, 0.25f, &engine, &data, &outputs, &metadata);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::vector<std::string> names;
  for (const OperatorStats& op : metadata.op_stats) names.push_back(op.operator_name);
  EXPECT_EQ(names, (std::vector<std::string>{"quantize", "DSP segment 1 of 2 (1 ops)", "conv", "dw",
                                             "DSP segment 2 of 2 (2 ops)", "pw", "pool",
                                             "dequantize"}));
  ASSERT_EQ(metadata.op_stats.size(), 8u);
  EXPECT_EQ(metadata.op_stats[3].device_micros, -1);  // the CPU's
  EXPECT_EQ(metadata.op_stats[3].output_shape, (std::vector<std::vector<int64_t>>{{1, 16, 5, 4}}));
}

// The same with uint8 app tensors and a second CPU op (a Concat on the
// height axis, which the DSP does not do) at the end: the app's bytes go
// straight to the first DSP graph, and the CPU writes the app's output.
TEST(HexagonEngineTest, TwoCpuSegmentsWithUint8Edges) {
  Model model = MakeModel();
  ModelBuilder& b = model.builder;
  ShuffleBeforePool(&b);
  UseUint8Edges(&b);
  OperatorDef* concat = b.AddOp("Concat", "concat_h", {"c4", "c4"}, "c5");
  ModelBuilder::SetInt(concat, "T", DT_UINT8);
  ModelBuilder::SetInt(concat, "axis", 2);
  SetQuantizeInfo(concat, 0.5f, 120);
  const std::vector<std::vector<uint8_t>> results = RunUint8OnBoth(&b, "c5", 4321);
  ASSERT_EQ(results.size(), 2u);
  ASSERT_EQ(results[0].size(), 6u * 8 * 3);
  EXPECT_EQ(results[1], results[0]);
  EXPECT_GT(std::set<uint8_t>(results[0].begin(), results[0].end()).size(), 3u);
}

TEST(HexagonEngineTest, ResizeBilinearMatchesTheCpuEngine) {
  Model model = MakeModel();
  InsertBeforeDequantize(&model.builder, "ResizeBilinear", 0.5f, 120);
  SetInts(model.builder.Op("extra"), "size", {5, 7});
  MaceStatus status;
  const std::vector<float> cpu = RunEngine(model.builder, DeviceType::CPU, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> dsp = RunEngine(model.builder, DeviceType::HEXAGON, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(cpu.size(), 6u * 5 * 7);
  EXPECT_EQ(dsp, cpu);
}

// Writes an emulator script that counts its starts in `counter` and then
// runs qemu-hexagon, or, with `hang`, never answers.
std::string CountingEmulator(const std::string& name, const std::string& counter, bool hang) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string script = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  std::remove(counter.c_str());
  {
    std::ofstream file(script);
    file << "#!/bin/sh\n"
         << "n=$(cat '" << counter << "' 2>/dev/null || echo 0)\n"
         << "echo $((n + 1)) > '" << counter << "'\n"
         << (hang ? "exec sleep 30\n" : "exec qemu-hexagon \"$@\"\n");
  }
  EXPECT_EQ(chmod(script.c_str(), 0755), 0);
  return script;
}

int ReadCount(const std::string& counter) {
  std::ifstream count(counter);
  int value = 0;
  count >> value;
  return value;
}

// All the DSP graphs of a split model share one DSP session (one emulator
// process); a session that does not answer fails engine creation cleanly.
TEST(HexagonEngineTest, OneDspSessionForEverySegment) {
  Model model = MakeModel();
  ShuffleBeforePool(&model.builder);
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string counter = std::string(tmp != nullptr ? tmp : "/tmp") + "/sessions.count";
  MaceEngineConfig config(DeviceType::HEXAGON);
  HexagonOptions options;
  options.emulator_path = CountingEmulator("counting.sh", counter, false);
  options.call_timeout_ms = 60000;
  ASSERT_TRUE(config.SetHexagonOptions(options).ok());
  MaceStatus status;
  const std::vector<float> dsp = RunEngine(model.builder, config, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(ReadCount(counter), 1);
  EXPECT_EQ(dsp, RunEngine(model.builder, DeviceType::CPU, &status));

  options.emulator_path = CountingEmulator("hanging.sh", counter, true);
  options.call_timeout_ms = 1000;
  ASSERT_TRUE(config.SetHexagonOptions(options).ok());
  RunEngine(model.builder, config, &status);
  EXPECT_EQ(status.code(), MaceStatus::MACE_RUNTIME_ERROR) << status.ToString();
  EXPECT_NE(status.information().find("no reply before the deadline (1000 ms a call)"),
            std::string::npos)
      << status.ToString();
  EXPECT_EQ(ReadCount(counter), 1);
  std::remove(counter.c_str());
}

// MakeModel's input x [1,3,9,7] of the tests below, from a fixed seed.
std::shared_ptr<float> SeededInput() {
  std::shared_ptr<float> data(new float[3 * 9 * 7], std::default_delete<float[]>());
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> real(-6.f, 6.f);
  for (int i = 0; i < 3 * 9 * 7; ++i) data.get()[i] = real(rng);
  return data;
}

// Writes an emulator that runs qemu-hexagon behind a relay of the host's
// requests: `settings` (Python lines) first, then `on_request` (indented
// Python lines) for each whole request (`header` + `body`, of type `kind`;
// 3 is kExecute) before it is relayed.
std::string RelayEmulator(const std::string& name, const std::string& settings,
                          const std::string& on_request) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string script = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  {
    std::ofstream file(script);
    file << "#!/usr/bin/python3\n"
         << "import os, signal, struct, subprocess, sys, time\n"
         << settings
         << "dsp = subprocess.Popen(['qemu-hexagon'] + sys.argv[1:], stdin=subprocess.PIPE)\n"
         << "def read(n):\n"
         << "    data = b''\n"
         << "    while len(data) < n:\n"
         << "        chunk = os.read(0, n - len(data))\n"
         << "        if not chunk:\n"
         << "            return None\n"
         << "        data += chunk\n"
         << "    return data\n"
         << "while True:\n"
         << "    header = read(20)\n"
         << "    if header is None:\n"
         << "        break\n"
         << "    _, kind, nparams, nbytes, _ = struct.unpack('<5I', header)\n"
         << "    body = read(4 * nparams + nbytes)\n"
         << "    if body is None:\n"
         << "        break\n"
         << on_request
         << "    dsp.stdin.write(header + body)\n"
         << "    dsp.stdin.flush()\n"
         << "dsp.stdin.close()\n"
         << "sys.exit(dsp.wait())\n";
  }
  EXPECT_EQ(chmod(script.c_str(), 0755), 0);
  return script;
}

// A relay that kills qemu-hexagon with SIGKILL, and itself, when the
// `kill_at`-th kExecute request arrives (counting from 1; 0: never): with
// `mid_call` after relaying half of that request, so the DSP dies while the
// host waits for the reply; without, before the DSP sees any of it.
std::string KillingEmulator(const std::string& name, int kill_at, bool mid_call) {
  return RelayEmulator(
      name,
      "KILL_AT, MID_CALL = " + std::to_string(kill_at) + (mid_call ? ", True" : ", False") +
          "\nexecutes = 0\n",
      "    if kind == 3:\n"
      "        executes += 1\n"
      "        if executes == KILL_AT:\n"
      "            if MID_CALL:\n"
      "                request = header + body\n"
      "                dsp.stdin.write(request[:len(request) // 2])\n"
      "                dsp.stdin.flush()\n"
      "            dsp.kill()\n"
      "            dsp.wait()\n"
      "            os.kill(os.getpid(), signal.SIGKILL)\n");
}

// The DSP process is killed in the middle of a run of a split model (two
// DSP graphs with a CPU op between them): that run fails with a
// MACE_RUNTIME_ERROR naming the segment and the signal, later runs of the
// engine fail saying the session ended, and an engine created again gives
// the CPU engine's result. The relay without a kill gives it too.
TEST(HexagonEngineTest, DspKilledMidRunFailsCleanly) {
  Model model = MakeModel();
  ShuffleBeforePool(&model.builder);
  MaceStatus status;
  const std::vector<float> cpu = RunEngine(model.builder, DeviceType::CPU, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::shared_ptr<float> data = SeededInput();
  // Executes 1 and 2 are the first run's two graphs; 3 and 4 the second's.
  struct Case {
    int kill_at;
    bool mid_call;
    const char* segment;
  };
  for (const Case& c : {Case{0, false, ""}, Case{4, true, "DSP segment 2 of 2 (1 ops): "},
                        Case{3, true, "DSP segment 1 of 2 (3 ops): "},
                        Case{4, false, "DSP segment 2 of 2 (1 ops): "}}) {
    SCOPED_TRACE(::testing::Message() << "kill at execute " << c.kill_at << ", mid call "
                                    << c.mid_call);
    MaceEngineConfig config(DeviceType::HEXAGON);
    HexagonOptions options;
    options.emulator_path = KillingEmulator("killing.py", c.kill_at, c.mid_call);
    options.call_timeout_ms = 60000;  // a hang would fail the test by its timeout
    ASSERT_TRUE(config.SetHexagonOptions(options).ok());
    std::shared_ptr<MaceEngine> engine;
    status = model.builder.CreateEngine({"x"}, {"y"}, config, &engine);
    ASSERT_TRUE(status.ok()) << status.ToString();
    std::vector<MaceStatus> runs;
    std::vector<float> result;
    for (int run = 0; run < 3; ++run) {
      std::map<std::string, MaceTensor> outputs;
      runs.push_back(engine->Run({{"x", MaceTensor({1, 3, 9, 7}, data)}}, &outputs));
      if (runs.back().ok()) {
        const MaceTensor& y = outputs.at("y");
        result.assign(y.data().get(), y.data().get() + y.size());
      }
    }
    engine.reset();  // ends the session, dead or alive
    if (c.kill_at == 0) {
      for (const MaceStatus& run : runs) EXPECT_TRUE(run.ok()) << run.ToString();
      EXPECT_EQ(result, cpu);
      continue;
    }
    EXPECT_TRUE(runs[0].ok()) << runs[0].ToString();
    EXPECT_EQ(runs[1].code(), MaceStatus::MACE_RUNTIME_ERROR) << runs[1].ToString();
    const std::string& failure = runs[1].information();
    EXPECT_EQ(failure.find(c.segment), 0u) << failure;
    EXPECT_NE(failure.find("ExecuteGraph: "), std::string::npos) << failure;
    EXPECT_NE(failure.find("killed by signal 9"), std::string::npos) << failure;
    EXPECT_EQ(runs[2].code(), MaceStatus::MACE_RUNTIME_ERROR) << runs[2].ToString();
    EXPECT_EQ(runs[2].information().find("the Hexagon DSP session ended in an earlier run ("), 0u)
        << runs[2].ToString();
    EXPECT_NE(runs[2].information().find("destroy the engine and create it again"),
              std::string::npos)
        << runs[2].ToString();
    // Created again, with the emulator that does not kill, the engine works.
    options.emulator_path.clear();
    ASSERT_TRUE(config.SetHexagonOptions(options).ok());
    EXPECT_EQ(RunEngine(model.builder, config, &status), cpu);
    EXPECT_TRUE(status.ok()) << status.ToString();
  }
}

// A relay that holds the first kExecute request of all its runs (until
// `marker` exists) for `delay_s` seconds before relaying it: a DSP call
// that takes that long.
std::string SlowEmulator(const std::string& name, const std::string& marker, double delay_s) {
  return RelayEmulator(name, "MARKER, DELAY = '" + marker + "', " + std::to_string(delay_s) + "\n",
                       "    if kind == 3 and not os.path.exists(MARKER):\n"
                       "        open(MARKER, 'w').close()\n"
                       "        time.sleep(DELAY)\n");
}

// A Run stopped (cancelled, or its deadline passed) while the DSP works on
// a graph abandons the call: it returns within milliseconds of the stop,
// not when the DSP replies, and the engine's next Run starts a new session,
// sets the graph up again and gives the CPU engine's result.
TEST(HexagonEngineTest, StopDuringADspCallAbandonsItAndTheNextRunStartsAgain) {
  Model model = MakeModel();
  MaceStatus status;
  const std::vector<float> cpu = RunEngine(model.builder, DeviceType::CPU, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::shared_ptr<float> data = SeededInput();
  const std::map<std::string, MaceTensor> inputs = {{"x", MaceTensor({1, 3, 9, 7}, data)}};
  using Clock = std::chrono::steady_clock;
  constexpr int kStopAfterMs = 300;
  constexpr double kDspCallS = 5;
  for (bool by_deadline : {false, true}) {
    SCOPED_TRACE(by_deadline ? "deadline" : "cancellation");
    const char* tmp = std::getenv("TEST_TMPDIR");
    const std::string marker = std::string(tmp != nullptr ? tmp : "/tmp") + "/slow_dsp_" +
                               (by_deadline ? "deadline" : "cancel") + ".done";
    std::remove(marker.c_str());
    MaceEngineConfig config(DeviceType::HEXAGON);
    HexagonOptions options;
    options.emulator_path = SlowEmulator("slow.py", marker, kDspCallS);
    options.call_timeout_ms = 60000;
    ASSERT_TRUE(config.SetHexagonOptions(options).ok());
    std::shared_ptr<MaceEngine> engine;
    status = model.builder.CreateEngine({"x"}, {"y"}, config, &engine);
    ASSERT_TRUE(status.ok()) << status.ToString();
    CancellationFlag flag;
    RunOptions run_options;
    if (by_deadline) {
      run_options.timeout_micros = kStopAfterMs * 1000;
    } else {
      run_options.cancellation = &flag;
    }
    const Clock::time_point start = Clock::now();
    std::thread canceller([&] {
      if (by_deadline) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(kStopAfterMs));
      flag.Cancel();
    });
    std::map<std::string, MaceTensor> outputs;
    status = engine->Run(inputs, &outputs, nullptr, run_options);
    const int64_t returned_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    canceller.join();
    EXPECT_EQ(status.code(), by_deadline ? MaceStatus::MACE_DEADLINE_EXCEEDED
                                         : MaceStatus::MACE_CANCELLED)
        << status.ToString();
    EXPECT_TRUE(outputs.empty());
    std::printf("%s: the stopped Run returned %lld ms after the stop (the DSP call takes %g s)\n",
                by_deadline ? "deadline" : "cancellation",
                static_cast<long long>(returned_ms - kStopAfterMs), kDspCallS);
    // Within a second of the stop on a busy host; the DSP would reply
    // after five.
    EXPECT_GE(returned_ms, kStopAfterMs);
    EXPECT_LT(returned_ms, kStopAfterMs + 1000);
    for (int run = 0; run < 2; ++run) {
      outputs.clear();
      const Clock::time_point again = Clock::now();
      status = engine->Run(inputs, &outputs);
      ASSERT_TRUE(status.ok()) << status.ToString();
      std::printf("  next run %d: %lld ms%s\n", run,
                  static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                             Clock::now() - again)
                                             .count()),
                  run == 0 ? " (a new DSP session, the graph set up again)" : "");
      const MaceTensor& y = outputs.at("y");
      EXPECT_EQ(std::vector<float>(y.data().get(), y.data().get() + y.size()), cpu);
    }
  }
}

// Runs `engine` once on SeededInput; empty when the run fails.
std::vector<float> RunOnce(MaceEngine* engine, MaceStatus* status,
                           const RunOptions& options = RunOptions()) {
  std::map<std::string, MaceTensor> outputs;
  *status = engine->Run({{"x", MaceTensor({1, 3, 9, 7}, SeededInput())}}, &outputs, nullptr,
                        options);
  if (!status->ok()) return {};
  const MaceTensor& y = outputs.at("y");
  return std::vector<float>(y.data().get(), y.data().get() + y.size());
}

// A Hexagon config in `context` whose emulator is `emulator`.
MaceEngineConfig ContextConfig(const std::shared_ptr<MaceContext>& context,
                               const std::string& emulator) {
  MaceEngineConfig config(DeviceType::HEXAGON);
  config.SetContext(context);
  HexagonOptions options;
  options.emulator_path = emulator;
  options.call_timeout_ms = 60000;
  EXPECT_TRUE(config.SetHexagonOptions(options).ok());
  return config;
}

// The models of the context tests: one DSP graph, and two DSP graphs with
// a CPU op between them; their CPU engine outputs.
struct TwoModels {
  Model one = MakeModel();
  Model split = MakeModel();
  std::vector<float> one_cpu, split_cpu;
  TwoModels() {
    ShuffleBeforePool(&split.builder);
    MaceStatus status;
    one_cpu = RunEngine(one.builder, DeviceType::CPU, &status);
    EXPECT_TRUE(status.ok()) << status.ToString();
    split_cpu = RunEngine(split.builder, DeviceType::CPU, &status);
    EXPECT_TRUE(status.ok()) << status.ToString();
    EXPECT_NE(one_cpu, split_cpu);
  }
};

// The Hexagon engines of one MaceContext share one DSP session (one
// emulator process) with their graphs in slots of their own: outputs equal
// the CPU engine's, an engine that leaves takes only its own graphs with
// it, and the session lives as long as the context. An engine outside the
// context has a session of its own.
TEST(HexagonEngineTest, EnginesOfOneContextShareOneDspSession) {
  TwoModels models;
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string counter = std::string(tmp != nullptr ? tmp : "/tmp") + "/shared.count";
  const std::string emulator = CountingEmulator("shared_counting.sh", counter, false);
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(1, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  const MaceEngineConfig config = ContextConfig(context, emulator);
  MaceStatus status;
  std::shared_ptr<MaceEngine> a, b, c;
  ASSERT_TRUE(models.one.builder.CreateEngine({"x"}, {"y"}, config, &a).ok());
  ASSERT_TRUE(models.split.builder.CreateEngine({"x"}, {"y"}, config, &b).ok());
  ASSERT_TRUE(models.one.builder.CreateEngine({"x"}, {"y"}, config, &c).ok());
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(RunOnce(a.get(), &status), models.one_cpu) << status.ToString();
    EXPECT_EQ(RunOnce(b.get(), &status), models.split_cpu) << status.ToString();
    EXPECT_EQ(RunOnce(c.get(), &status), models.one_cpu) << status.ToString();
  }
  EXPECT_EQ(ReadCount(counter), 1);
  // The first engine leaves; the others keep their graphs.
  a.reset();
  EXPECT_EQ(RunOnce(b.get(), &status), models.split_cpu) << status.ToString();
  EXPECT_EQ(RunOnce(c.get(), &status), models.one_cpu) << status.ToString();
  // Every engine left: an engine created now finds the context's session.
  b.reset();
  c.reset();
  ASSERT_TRUE(models.split.builder.CreateEngine({"x"}, {"y"}, config, &b).ok());
  EXPECT_EQ(RunOnce(b.get(), &status), models.split_cpu) << status.ToString();
  EXPECT_EQ(ReadCount(counter), 1);
  // Without the context: a session of its own.
  MaceEngineConfig alone = ContextConfig(nullptr, emulator);
  ASSERT_TRUE(models.one.builder.CreateEngine({"x"}, {"y"}, alone, &a).ok());
  EXPECT_EQ(RunOnce(a.get(), &status), models.one_cpu) << status.ToString();
  EXPECT_EQ(ReadCount(counter), 2);
  std::remove(counter.c_str());
}

// Two app threads run two engines of one context at once: their calls to
// the shared session take turns, and every output is the CPU engine's.
TEST(HexagonEngineTest, EnginesOfAContextRunFromTwoThreads) {
  TwoModels models;
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(2, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  const MaceEngineConfig config = ContextConfig(context, "");
  std::shared_ptr<MaceEngine> a, b;
  ASSERT_TRUE(models.one.builder.CreateEngine({"x"}, {"y"}, config, &a).ok());
  ASSERT_TRUE(models.split.builder.CreateEngine({"x"}, {"y"}, config, &b).ok());
  constexpr int kRuns = 6;
  int a_right = 0, b_right = 0;
  std::thread other([&] {
    for (int run = 0; run < kRuns; ++run) {
      MaceStatus status;
      b_right += RunOnce(b.get(), &status) == models.split_cpu ? 1 : 0;
    }
  });
  for (int run = 0; run < kRuns; ++run) {
    MaceStatus status;
    a_right += RunOnce(a.get(), &status) == models.one_cpu ? 1 : 0;
  }
  other.join();
  EXPECT_EQ(a_right, kRuns);
  EXPECT_EQ(b_right, kRuns);
}

// A Run of one engine stopped during its DSP call ends the shared session
// (the process is killed): the other engine's next Run opens it again and
// sets its graphs up again, and both engines give the CPU engine's outputs
// after.
TEST(HexagonEngineTest, AStopInOneEngineLeavesTheOthersOfTheContextReady) {
  TwoModels models;
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = tmp != nullptr ? tmp : "/tmp";
  const std::string marker = dir + "/shared_slow.done";
  std::remove(marker.c_str());
  // The relay holds the first kExecute of its runs for 5 s, then relays
  // every later one at once; the counter counts the sessions.
  const std::string slow = SlowEmulator("shared_slow.py", marker, 5);
  const std::string counter = dir + "/shared_slow.count";
  std::remove(counter.c_str());
  const std::string emulator = dir + "/shared_slow.sh";
  {
    std::ofstream file(emulator);
    file << "#!/bin/sh\n"
         << "n=$(cat '" << counter << "' 2>/dev/null || echo 0)\n"
         << "echo $((n + 1)) > '" << counter << "'\n"
         << "exec '" << slow << "' \"$@\"\n";
  }
  ASSERT_EQ(chmod(emulator.c_str(), 0755), 0);
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(1, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  const MaceEngineConfig config = ContextConfig(context, emulator);
  std::shared_ptr<MaceEngine> a, b;
  ASSERT_TRUE(models.one.builder.CreateEngine({"x"}, {"y"}, config, &a).ok());
  ASSERT_TRUE(models.split.builder.CreateEngine({"x"}, {"y"}, config, &b).ok());
  CancellationFlag flag;
  RunOptions options;
  options.cancellation = &flag;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    flag.Cancel();
  });
  MaceStatus status;
  const auto start = std::chrono::steady_clock::now();
  RunOnce(a.get(), &status, options);
  const auto stopped_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
  canceller.join();
  EXPECT_EQ(status.code(), MaceStatus::MACE_CANCELLED) << status.ToString();
  EXPECT_LT(stopped_ms, 300 + 1000);
  EXPECT_EQ(ReadCount(counter), 1);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(RunOnce(b.get(), &status), models.split_cpu) << status.ToString();
    EXPECT_EQ(RunOnce(a.get(), &status), models.one_cpu) << status.ToString();
  }
  EXPECT_EQ(ReadCount(counter), 2);
  std::remove(counter.c_str());
}

// The DSP process dies during one engine's call: that engine's Run fails
// naming the signal, the other engine of the context refuses to run on the
// dead session, and an engine created after gets a new session and the
// CPU engine's output.
TEST(HexagonEngineTest, ADeadSharedSessionFailsEveryEngineOfIt) {
  TwoModels models;
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(1, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  // Executes 1 and 2 are b's first run; 3 is a's first run, killed midway.
  const MaceEngineConfig config =
      ContextConfig(context, KillingEmulator("shared_killing.py", 3, true));
  std::shared_ptr<MaceEngine> a, b;
  ASSERT_TRUE(models.one.builder.CreateEngine({"x"}, {"y"}, config, &a).ok());
  ASSERT_TRUE(models.split.builder.CreateEngine({"x"}, {"y"}, config, &b).ok());
  MaceStatus status;
  EXPECT_EQ(RunOnce(b.get(), &status), models.split_cpu) << status.ToString();
  RunOnce(a.get(), &status);
  EXPECT_EQ(status.code(), MaceStatus::MACE_RUNTIME_ERROR) << status.ToString();
  EXPECT_NE(status.information().find("killed by signal 9"), std::string::npos)
      << status.ToString();
  RunOnce(b.get(), &status);
  EXPECT_EQ(status.code(), MaceStatus::MACE_RUNTIME_ERROR) << status.ToString();
  EXPECT_EQ(status.information().find("the Hexagon DSP session ended in another engine's run ("),
            0u)
      << status.ToString();
  // A new engine of the context: a new session (which the relay, counting
  // afresh, lets live past its third execute for this one run).
  std::shared_ptr<MaceEngine> c;
  ASSERT_TRUE(models.one.builder.CreateEngine({"x"}, {"y"}, config, &c).ok());
  EXPECT_EQ(RunOnce(c.get(), &status), models.one_cpu) << status.ToString();
}

// A model with no op the DSP runs is refused, naming each op and why.
TEST(HexagonEngineTest, NothingForTheDspIsRefusedNamingEachOp) {
  ModelBuilder b;
  InputOutputInfo* input = b.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 3, 9, 7}) input->add_dims(d);
  b.net.add_output_info()->set_name("y");
  OperatorDef* quantize = b.AddOp("Quantize", "quantize", {"x"}, "xq");
  ModelBuilder::SetInt(quantize, "T", DT_UINT8);
  SetQuantizeInfo(quantize, 0.05f, 120);
  // The DSP concatenates channels only.
  OperatorDef* concat = b.AddOp("Concat", "extra", {"xq", "xq"}, "c");
  ModelBuilder::SetInt(concat, "T", DT_UINT8);
  ModelBuilder::SetInt(concat, "axis", 2);
  SetQuantizeInfo(concat, 0.05f, 120);
  b.AddOp("Dequantize", "dequantize", {"c"}, "y");
  MaceStatus status;
  std::shared_ptr<MaceEngine> engine;
  status = b.CreateEngine({"x"}, {"y"}, MaceEngineConfig(DeviceType::HEXAGON), &engine);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED) << status.ToString();
  for (const char* name : {"'quantize'", "'extra'", "concatenates channels", "'dequantize'"}) {
    EXPECT_NE(status.information().find(name), std::string::npos) << name << status.ToString();
  }
}

TEST(HexagonEngineTest, MissingDspImageIsAClearError) {
  const char* image = std::getenv("MACE_DSP_RUNTIME");
  const std::string saved = image != nullptr ? image : "";
  setenv("MACE_DSP_RUNTIME", "/nonexistent/dsp_runtime.elf", 1);
  MaceStatus status;
  RunEngine(MakeModel().builder, DeviceType::HEXAGON, &status);
  setenv("MACE_DSP_RUNTIME", saved.c_str(), 1);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED) << status.ToString();
  EXPECT_NE(status.information().find("/nonexistent/dsp_runtime.elf"), std::string::npos)
      << status.ToString();
}

// MACE_DSP_TIMEOUT_MS sets the deadline of each call: a bad value is refused,
// a deadline too short for start-up fails cleanly, and a longer one runs.
TEST(HexagonEngineTest, TimeoutFromTheEnvironment) {
  const Model model = MakeModel();
  MaceStatus status;
  for (const char* bad : {"", "0", "-5", "12x", "99999999999"}) {
    setenv("MACE_DSP_TIMEOUT_MS", bad, 1);
    RunEngine(model.builder, DeviceType::HEXAGON, &status);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << bad << ": " << status.ToString();
    EXPECT_NE(status.information().find("MACE_DSP_TIMEOUT_MS"), std::string::npos);
  }
  setenv("MACE_DSP_TIMEOUT_MS", "1", 1);
  RunEngine(model.builder, DeviceType::HEXAGON, &status);
  EXPECT_EQ(status.code(), MaceStatus::MACE_RUNTIME_ERROR) << status.ToString();
  setenv("MACE_DSP_TIMEOUT_MS", "120000", 1);
  const std::vector<float> dsp = RunEngine(model.builder, DeviceType::HEXAGON, &status);
  unsetenv("MACE_DSP_TIMEOUT_MS");
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> cpu = RunEngine(model.builder, DeviceType::CPU, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(dsp, cpu);
}

// MaceEngineConfig::SetHexagonOptions: its paths and timeout take
// precedence over the environment's, which stays the fallback.
TEST(HexagonEngineTest, HexagonOptionsOverrideTheEnvironment) {
  const Model model = MakeModel();
  const char* env_image = std::getenv("MACE_DSP_RUNTIME");
  ASSERT_NE(env_image, nullptr);
  const std::string image = env_image;
  MaceStatus status;
  const std::vector<float> cpu = RunEngine(model.builder, DeviceType::CPU, &status);
  ASSERT_TRUE(status.ok()) << status.ToString();

  // A wrong image path in the options is a clear error, though the
  // environment's image is fine.
  MaceEngineConfig wrong(DeviceType::HEXAGON);
  HexagonOptions options;
  options.image_path = "/nonexistent/options_dsp_runtime.elf";
  ASSERT_TRUE(wrong.SetHexagonOptions(options).ok());
  RunEngine(model.builder, wrong, &status);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED) << status.ToString();
  EXPECT_NE(status.information().find("/nonexistent/options_dsp_runtime.elf"), std::string::npos)
      << status.ToString();
  // So is an emulator that does not exist.
  options.image_path = image;
  options.emulator_path = "/nonexistent/qemu-hexagon";
  ASSERT_TRUE(wrong.SetHexagonOptions(options).ok());
  RunEngine(model.builder, wrong, &status);
  EXPECT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED) << status.ToString();
  EXPECT_NE(status.information().find("not an executable"), std::string::npos)
      << status.ToString();

  // The options' image runs though the environment's is wrong.
  setenv("MACE_DSP_RUNTIME", "/nonexistent/dsp_runtime.elf", 1);
  MaceEngineConfig right(DeviceType::HEXAGON);
  options.emulator_path.clear();
  options.call_timeout_ms = 120000;
  ASSERT_TRUE(right.SetHexagonOptions(options).ok());
  EXPECT_EQ(right.hexagon_options().image_path, image);
  const std::vector<float> dsp = RunEngine(model.builder, right, &status);
  setenv("MACE_DSP_RUNTIME", image.c_str(), 1);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(dsp, cpu);

  // The options' timeout wins over a bad MACE_DSP_TIMEOUT_MS, and one too
  // short for start-up fails cleanly.
  setenv("MACE_DSP_TIMEOUT_MS", "-5", 1);
  RunEngine(model.builder, right, &status);
  EXPECT_TRUE(status.ok()) << status.ToString();
  options.call_timeout_ms = 1;
  ASSERT_TRUE(right.SetHexagonOptions(options).ok());
  RunEngine(model.builder, right, &status);
  unsetenv("MACE_DSP_TIMEOUT_MS");
  EXPECT_EQ(status.code(), MaceStatus::MACE_RUNTIME_ERROR) << status.ToString();

  // Timeouts out of range are refused and leave the options unchanged.
  for (int64_t bad : {int64_t{-1}, int64_t{24} * 3600 * 1000 + 1}) {
    HexagonOptions refused = options;
    refused.call_timeout_ms = bad;
    EXPECT_EQ(right.SetHexagonOptions(refused).code(), MaceStatus::MACE_INVALID_ARGS) << bad;
    EXPECT_EQ(right.hexagon_options().call_timeout_ms, 1) << bad;
  }
}

}  // namespace
}  // namespace mace
