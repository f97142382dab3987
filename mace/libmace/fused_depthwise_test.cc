// The fusions of the net's layout plan (Net::FuseBlockedReaders), keyed in
// the op registry by (producer type, consumer type), through whole engines
// on small graphs. A depthwise convolution fused with the 1x1 convolution
// that alone reads its output (DepthwiseConv2d, Conv2D):
//
//   x -> pw0 (1x1) -> dw (3x3, ReLU) -> pw1 (1x1, ReLU6) -> head (1x1) -> z
//
// pw0 lets the run start blocked without packing x, so the net runs the
// convolutions in channel blocks up to the head, whose output the net keeps
// plain as every model output. Outputs are checked against the
// reference kernels and against the same engine with the fusion off
// (MACE_CPU_FUSE_DEPTHWISE=0); the per-op profile shows whether pw1 ran.
//
// Likewise a stem fused with the max pooling that alone reads its output
// (Conv2D, Pooling), as in ResNet-18 and SqueezeNet 1.1:
//
//   x -> stem (k x k, stride 2, ReLU) -> pool (3x3, stride 2) -> head (1x1) -> z
//
// against the reference kernels and the engine with MACE_CPU_FUSE_POOLING=0.
//
// And a whole inverted residual block, the 1x1 expansion fused with the
// depthwise and 1x1 pair that alone reads its output (Conv2D,
// DepthwiseConv2d, with a reader that fused with its own), as in MobileNet
// v2:
//
//   x -> pre (1x1, ReLU) -> r -> expand (1x1, ReLU6) -> dw (3x3, ReLU6)
//     -> project (1x1) [-> + r] -> head (1x1) -> z
//
// pre gives the block a blocked input, as the block before it does in the
// model; against the reference kernels and the engine with
// MACE_CPU_FUSE_EXPAND=0 (the pair still fused).
//
// Pairs the registry has no fusion for run as they are:
//
//   x -> pw0 (1x1) -> dw (3x3, ReLU) -> pool (3x3, stride 2) -> head (1x1) -> z
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/conv_2d.h"
#include "mace/ops/ref/depthwise_conv_2d.h"
#include "mace/ops/ref/pooling.h"
#include "mace/ops/registry.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "mace/utils/testing/test_threads.h"

namespace mace {
namespace {

struct Shape {
  int64_t batch, in_channels, mid_channels, out_channels, size, stride;
};

// One layer's weights, appended to the weights blob at a 64-byte offset.
void AddWeight(const std::string& name, const std::vector<int64_t>& dims,
               const std::vector<float>& values, NetDef* net, std::string* blob) {
  blob->resize((blob->size() + 63) / 64 * 64);
  ConstTensor* tensor = net->add_tensors();
  tensor->set_name(name);
  for (int64_t d : dims) tensor->add_dims(d);
  tensor->set_offset(static_cast<int64_t>(blob->size()));
  tensor->set_data_size(static_cast<int64_t>(values.size()));
  blob->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

OperatorDef* AddOp(const std::string& type, const std::string& name,
                   const std::vector<std::string>& inputs, const std::string& output,
                   NetDef* net) {
  OperatorDef* op = net->add_op();
  op->set_type(type);
  op->set_name(name);
  for (const std::string& input : inputs) op->add_input(input);
  op->add_output(output);
  return op;
}

void AddInts(OperatorDef* op, const std::string& name, const std::vector<int64_t>& values) {
  Argument* arg = op->add_arg();
  arg->set_name(name);
  for (int64_t v : values) arg->add_ints(v);
}

void AddString(OperatorDef* op, const std::string& name, const std::string& value) {
  Argument* arg = op->add_arg();
  arg->set_name(name);
  arg->set_s(value);
}

void AddInt(OperatorDef* op, const std::string& name, int64_t value) {
  Argument* arg = op->add_arg();
  arg->set_name(name);
  arg->set_i(value);
}

std::vector<float> Random(size_t count, std::mt19937* rng, float low, float high) {
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> values(count);
  for (float& v : values) v = dist(*rng);
  return values;
}

// The graph, its weights and the reference outputs.
struct Model {
  NetDef net;
  std::string blob;
  std::vector<float> input;
  std::map<std::string, std::vector<float>> expected;
  std::map<std::string, std::vector<int64_t>> shapes;
};

// A 1x1 convolution of `batch` images of `size` x `size`.
ops::ref::Conv2DParams Pointwise(int64_t batch, int64_t in_channels, int64_t out_channels,
                                 int64_t size) {
  ops::ref::Conv2DParams p;
  p.batch = batch;
  p.in_channels = in_channels;
  p.out_channels = out_channels;
  p.in_h = p.in_w = p.out_h = p.out_w = size;
  p.kernel_h = p.kernel_w = 1;
  return p;
}

// dw (3x3, stride s.stride, padding 1, `activation`: RELU or RELUX) from
// "a" to "d" on s.mid_channels channels: its weights, op and reference
// output.
std::vector<float> AddDepthwise(const Shape& s, const std::vector<float>& a,
                                ops::ActivationType activation, std::mt19937* rng, Model* m) {
  const int64_t n = s.batch, c1 = s.mid_channels, h = s.size, out = (s.size - 1) / s.stride + 1;
  const std::vector<float> wd = Random(static_cast<size_t>(c1 * 9), rng, -0.5f, 0.5f);
  const std::vector<float> bd = Random(static_cast<size_t>(c1), rng, -0.2f, 0.2f);
  AddWeight("wd", {1, c1, 3, 3}, wd, &m->net, &m->blob);
  AddWeight("bd", {c1}, bd, &m->net, &m->blob);
  OperatorDef* dw = AddOp("DepthwiseConv2d", "dw", {"a", "wd", "bd"}, "d", &m->net);
  AddInts(dw, "strides", {s.stride, s.stride});
  AddInts(dw, "pads", {1, 1, 1, 1});
  AddString(dw, "activation", activation == ops::ActivationType::RELU ? "RELU" : "RELUX");
  ops::ref::DepthwiseConv2dParams pd;
  pd.batch = n;
  pd.channels = c1;
  pd.in_h = pd.in_w = h;
  pd.out_h = pd.out_w = out;
  pd.kernel_h = pd.kernel_w = 3;
  pd.stride_h = pd.stride_w = s.stride;
  pd.pad_top = pd.pad_left = 1;
  pd.activation.type = activation;
  std::vector<float> d(static_cast<size_t>(n * c1 * out * out));
  ops::ref::DepthwiseConv2d(pd, a.data(), wd.data(), bd.data(), d.data());
  return d;
}

// A model with the input x of s.batch images of s.in_channels x s.size x
// s.size, in [-1, 1].
Model WithInput(const Shape& s, std::mt19937* rng) {
  Model m;
  InputOutputInfo* info = m.net.add_input_info();
  info->set_name("x");
  for (int64_t d : {s.batch, s.in_channels, s.size, s.size}) info->add_dims(d);
  m.input = Random(static_cast<size_t>(s.batch * s.in_channels * s.size * s.size), rng, -1.f, 1.f);
  return m;
}

// `second_reader`: a second 1x1 (pw2 -> head2 -> z2) also reads dw's output.
Model Build(const Shape& s, bool second_reader, uint32_t seed) {
  std::mt19937 rng(seed);
  Model m = WithInput(s, &rng);
  const int64_t n = s.batch, c0 = s.in_channels, c1 = s.mid_channels, c2 = s.out_channels;
  const int64_t h = s.size, out = (s.size - 1) / s.stride + 1;

  const std::vector<float> w0 = Random(static_cast<size_t>(c1 * c0), &rng, -0.5f, 0.5f);
  const std::vector<float> b0 = Random(static_cast<size_t>(c1), &rng, -0.2f, 0.2f);
  AddWeight("w0", {c1, c0, 1, 1}, w0, &m.net, &m.blob);
  AddWeight("b0", {c1}, b0, &m.net, &m.blob);
  AddOp("Conv2D", "pw0", {"x", "w0", "b0"}, "a", &m.net);

  const ops::ref::Conv2DParams p0 = Pointwise(n, c0, c1, h);
  std::vector<float> a(static_cast<size_t>(n * c1 * h * h));
  ops::ref::Conv2D(p0, m.input.data(), w0.data(), b0.data(), a.data());
  std::vector<float> d = AddDepthwise(s, a, ops::ActivationType::RELU, &rng, &m);

  for (int reader = 1; reader <= (second_reader ? 2 : 1); ++reader) {
    const std::string k = std::to_string(reader);
    const std::vector<float> w = Random(static_cast<size_t>(c2 * c1), &rng, -0.5f, 0.5f);
    const std::vector<float> b = Random(static_cast<size_t>(c2), &rng, -0.2f, 0.2f);
    AddWeight("w" + k, {c2, c1, 1, 1}, w, &m.net, &m.blob);
    AddWeight("b" + k, {c2}, b, &m.net, &m.blob);
    OperatorDef* pw = AddOp("Conv2D", "pw" + k, {"d", "w" + k, "b" + k}, "y" + k, &m.net);
    AddString(pw, "activation", "RELUX");
    ops::ref::Conv2DParams p = Pointwise(n, c1, c2, out);
    p.activation.type = ops::ActivationType::RELUX;
    std::vector<float> y(static_cast<size_t>(n * c2 * out * out));
    ops::ref::Conv2D(p, d.data(), w.data(), b.data(), y.data());
    // A head reads y: the net keeps model outputs plain, so the pair the
    // fusion is for sits inside the graph, as in MobileNet.
    const std::vector<float> wh = Random(static_cast<size_t>(8 * c2), &rng, -0.5f, 0.5f);
    AddWeight("wh" + k, {8, c2, 1, 1}, wh, &m.net, &m.blob);
    AddOp("Conv2D", "head" + k, {"y" + k, "wh" + k}, "z" + k, &m.net);
    ops::ref::Conv2DParams ph = p;
    ph.in_channels = c2;
    ph.out_channels = 8;
    ph.activation = ops::Activation();
    std::vector<float> z(static_cast<size_t>(n * 8 * out * out));
    ops::ref::Conv2D(ph, y.data(), wh.data(), nullptr, z.data());
    m.expected["z" + k] = std::move(z);
    m.shapes["z" + k] = {n, 8, out, out};
  }
  m.expected["d"] = std::move(d);
  m.shapes["d"] = {n, c1, out, out};
  return m;
}

// A stem of `kernel` x `kernel` at stride 2 and padding `pad` on a 3-channel
// `size` x `size` input, to 64 channels, then a 3x3 stride-2 max pooling
// with padding `pool_pad` before and after (ceil_mode: a last window that
// sticks out), then a 1x1 head to 8 channels.
struct StemShape {
  int64_t batch, size, kernel, pad, pool_pad;
  bool ceil_mode;
};

// `residual`: r is added to the projection's output (stride 1 and
// out_channels == in_channels only).
Model BuildBlock(const Shape& s, bool residual, uint32_t seed) {
  std::mt19937 rng(seed);
  Model m = WithInput(s, &rng);
  const int64_t n = s.batch, c0 = s.in_channels, c1 = s.mid_channels, c2 = s.out_channels;
  const int64_t h = s.size, out = (s.size - 1) / s.stride + 1;
  // One 1x1 layer: its weights, op and reference output.
  const auto pointwise = [&](const std::string& name, const std::string& in,
                             const std::vector<float>& x, int64_t cin, int64_t cout, int64_t size,
                             const char* activation, const std::string& out_name) {
    const std::vector<float> w = Random(static_cast<size_t>(cout * cin), &rng, -0.5f, 0.5f);
    const std::vector<float> b = Random(static_cast<size_t>(cout), &rng, -0.2f, 0.2f);
    AddWeight("w_" + name, {cout, cin, 1, 1}, w, &m.net, &m.blob);
    AddWeight("b_" + name, {cout}, b, &m.net, &m.blob);
    OperatorDef* op = AddOp("Conv2D", name, {in, "w_" + name, "b_" + name}, out_name, &m.net);
    ops::ref::Conv2DParams p = Pointwise(n, cin, cout, size);
    if (activation != nullptr) {
      AddString(op, "activation", activation);
      p.activation.type = std::string(activation) == "RELU" ? ops::ActivationType::RELU
                                                            : ops::ActivationType::RELUX;
    }
    std::vector<float> y(static_cast<size_t>(n * cout * size * size));
    ops::ref::Conv2D(p, x.data(), w.data(), b.data(), y.data());
    return y;
  };
  const std::vector<float> r = pointwise("pre", "x", m.input, c0, c0, h, "RELU", "r");
  const std::vector<float> a = pointwise("expand", "r", r, c0, c1, h, "RELUX", "a");
  const std::vector<float> d = AddDepthwise(s, a, ops::ActivationType::RELUX, &rng, &m);
  std::vector<float> y = pointwise("project", "d", d, c1, c2, out, nullptr, "y");
  std::string head_input = "y";
  if (residual) {
    OperatorDef* add = AddOp("Eltwise", "add", {"y", "r"}, "sum", &m.net);
    AddInt(add, "type", 0);
    for (size_t i = 0; i < y.size(); ++i) y[i] += r[i];
    head_input = "sum";
  }
  std::vector<float> z = pointwise("head", head_input, y, c2, 8, out, nullptr, "z");
  m.expected["z"] = std::move(z);
  m.shapes["z"] = {n, 8, out, out};
  return m;
}

Model BuildStem(const StemShape& s, uint32_t seed) {
  Model m;
  std::mt19937 rng(seed);
  const int64_t n = s.batch, c = 64;
  InputOutputInfo* info = m.net.add_input_info();
  info->set_name("x");
  for (int64_t d : {n, int64_t{3}, s.size, s.size}) info->add_dims(d);
  m.input = Random(static_cast<size_t>(n * 3 * s.size * s.size), &rng, -1.f, 1.f);
  const std::vector<float> ws =
      Random(static_cast<size_t>(c * 3 * s.kernel * s.kernel), &rng, -0.5f, 0.5f);
  const std::vector<float> bs = Random(static_cast<size_t>(c), &rng, -0.2f, 0.2f);
  const std::vector<float> wh = Random(static_cast<size_t>(8 * c), &rng, -0.5f, 0.5f);
  AddWeight("ws", {c, 3, s.kernel, s.kernel}, ws, &m.net, &m.blob);
  AddWeight("bs", {c}, bs, &m.net, &m.blob);
  AddWeight("wh", {8, c, 1, 1}, wh, &m.net, &m.blob);
  OperatorDef* stem = AddOp("Conv2D", "stem", {"x", "ws", "bs"}, "a", &m.net);
  AddInts(stem, "strides", {2, 2});
  AddInts(stem, "pads", {s.pad, s.pad, s.pad, s.pad});
  AddString(stem, "activation", "RELU");
  OperatorDef* pool = AddOp("Pooling", "pool", {"a"}, "p", &m.net);
  AddInt(pool, "pooling_type", 2);
  AddInts(pool, "kernels", {3, 3});
  AddInts(pool, "strides", {2, 2});
  AddInts(pool, "pads", {s.pool_pad, s.pool_pad, s.pool_pad, s.pool_pad});
  AddInt(pool, "ceil_mode", s.ceil_mode ? 1 : 0);
  AddOp("Conv2D", "head", {"p", "wh"}, "z", &m.net);

  ops::ref::Conv2DParams ps;
  ps.batch = n;
  ps.in_channels = 3;
  ps.in_h = ps.in_w = s.size;
  ps.out_channels = c;
  ps.out_h = ps.out_w = (s.size + 2 * s.pad - s.kernel) / 2 + 1;
  ps.kernel_h = ps.kernel_w = s.kernel;
  ps.stride_h = ps.stride_w = 2;
  ps.pad_top = ps.pad_left = s.pad;
  ps.activation.type = ops::ActivationType::RELU;
  std::vector<float> a(static_cast<size_t>(n * c * ps.out_h * ps.out_w));
  ops::ref::Conv2D(ps, m.input.data(), ws.data(), bs.data(), a.data());
  ops::ref::PoolingParams pp;
  pp.type = ops::ref::PoolingType::MAX;
  pp.batch = n;
  pp.channels = c;
  pp.in_h = pp.in_w = ps.out_h;
  pp.kernel_h = pp.kernel_w = 3;
  pp.stride_h = pp.stride_w = 2;
  pp.pad_top = pp.pad_left = pp.pad_bottom = pp.pad_right = s.pool_pad;
  const int64_t span = ps.out_h + 2 * s.pool_pad - 3;
  pp.out_h = pp.out_w = (s.ceil_mode ? (span + 1) / 2 : span / 2) + 1;
  std::vector<float> p(static_cast<size_t>(n * c * pp.out_h * pp.out_w));
  ops::ref::Pooling(pp, a.data(), p.data());
  ops::ref::Conv2DParams ph;
  ph.batch = n;
  ph.in_channels = c;
  ph.in_h = ph.in_w = ph.out_h = ph.out_w = pp.out_h;
  ph.out_channels = 8;
  ph.kernel_h = ph.kernel_w = 1;
  std::vector<float> z(static_cast<size_t>(n * 8 * pp.out_h * pp.out_w));
  ops::ref::Conv2D(ph, p.data(), wh.data(), nullptr, z.data());
  m.expected["z"] = std::move(z);
  m.shapes["z"] = {n, 8, pp.out_h, pp.out_w};
  return m;
}

struct Result {
  std::map<std::string, std::vector<float>> outputs;
  std::vector<std::string> ops;  // names in the per-op profile
  int64_t macs = 0;
};

const char* const kFusionSettings[] = {"MACE_CPU_FUSE_DEPTHWISE", "MACE_CPU_FUSE_POOLING",
                                        "MACE_CPU_FUSE_EXPAND"};

// Runs `m` in an engine made with `config`.
void RunWithConfig(const Model& m, const std::vector<std::string>& outputs,
                   const MaceEngineConfig& config, Result* result) {
  const std::string graph = m.net.SerializeAsString();
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = CreateMaceEngineFromProto(
      reinterpret_cast<const unsigned char*>(graph.data()), graph.size(),
      reinterpret_cast<const unsigned char*>(m.blob.data()), m.blob.size(), {"x"}, outputs,
      config, &engine);
  ASSERT_TRUE(created.ok()) << created.information();
  std::shared_ptr<float> input(new float[m.input.size()], std::default_delete<float[]>());
  std::copy(m.input.begin(), m.input.end(), input.get());
  const std::vector<int64_t> in_shape(m.net.input_info(0).dims().begin(),
                                      m.net.input_info(0).dims().end());
  std::map<std::string, MaceTensor> in{{"x", MaceTensor(in_shape, input)}};
  std::map<std::string, MaceTensor> out;
  for (const std::string& name : outputs) {
    const std::vector<float>& expected = m.expected.at(name);
    std::shared_ptr<float> data(new float[expected.size()], std::default_delete<float[]>());
    out[name] = MaceTensor(m.shapes.at(name), data);
  }
  RunMetadata metadata;
  const MaceStatus ran = engine->Run(in, &out, &metadata);
  ASSERT_TRUE(ran.ok()) << ran.information();
  for (const std::string& name : outputs) {
    const float* data = out[name].data().get();
    result->outputs[name].assign(data, data + m.expected.at(name).size());
  }
  for (const OperatorStats& stats : metadata.op_stats) {
    result->ops.push_back(stats.operator_name);
    result->macs += stats.macs;
  }
}

// Runs `m` with the fusions set from the environment (the debugging
// overrides): `fuse`: every fusion on, else off; `expand`: the expansion
// fusion on too (when `fuse`).
void RunEngine(const Model& m, const std::vector<std::string>& outputs, int threads, bool fuse,
               Result* result, bool expand = true) {
  for (const char* setting : kFusionSettings) unsetenv(setting);
  if (!fuse) {
    for (const char* setting : kFusionSettings) setenv(setting, "0", 1);
  } else if (!expand) {
    setenv("MACE_CPU_FUSE_EXPAND", "0", 1);
  }
  MaceEngineConfig config(DeviceType::CPU);
  ASSERT_TRUE(config.SetCPUThreadPolicy(threads, CPUAffinityPolicy::AFFINITY_NONE).ok());
  RunWithConfig(m, outputs, config, result);
  for (const char* setting : kFusionSettings) unsetenv(setting);
}

bool Ran(const Result& result, const std::string& op) {
  return std::find(result.ops.begin(), result.ops.end(), op) != result.ops.end();
}

void ExpectNear(const std::vector<float>& expected, const std::vector<float>& actual,
                const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(expected[i], actual[i], 1e-4f + 1e-4f * std::fabs(expected[i]))
        << what << " at " << i;
  }
}

void ExpectIdentical(const std::vector<float>& expected, const std::vector<float>& actual,
                     const std::string& what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(expected[i], actual[i]) << what << " at " << i;
  }
}

// Whether this build and CPU run the blocked layout with a blocked 1x1
// kernel, which the fusion needs (the test forces the layout on).
bool FusionPossible() {
  const ops::KernelTable* table = ops::ActiveKernelTable();
  return ops::BlockedLayoutBlock(table) > 0 && table->blocked_conv != nullptr;
}

class FusedDepthwiseTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("MACE_CPU_BLOCKED_LAYOUT", "1", 1); }
  void TearDown() override { unsetenv("MACE_CPU_BLOCKED_LAYOUT"); }
};

// Runs `m` unfused at one thread and fused at one to three: `output` as the
// reference and the unfused engine have it, op `kept` in every profile and
// op `absorbed` in the fused ones only when the fusion is `possible`, and
// the same multiply-adds (the fused op reports both layers').
void ExpectFusedMatches(const Model& m, const std::string& output, const std::string& kept,
                        const std::string& absorbed, bool possible, const std::string& shape) {
  Result unfused;
  RunEngine(m, {output}, 1, false, &unfused);
  ExpectNear(m.expected.at(output), unfused.outputs[output], shape + ", unfused");
  EXPECT_TRUE(Ran(unfused, absorbed)) << shape;
  for (int threads : mace::testing::TestThreadCounts()) {
    Result fused;
    RunEngine(m, {output}, threads, true, &fused);
    const std::string what = shape + ", " + std::to_string(threads) + " threads";
    ExpectNear(m.expected.at(output), fused.outputs[output], what);
    ExpectNear(unfused.outputs[output], fused.outputs[output], what + " against unfused");
    EXPECT_TRUE(Ran(fused, kept)) << what;
    EXPECT_EQ(Ran(fused, absorbed), !possible) << what;
    EXPECT_EQ(fused.macs, unfused.macs) << what;
  }
}

// The fused pair against the reference and the unfused engine: stride 1
// and 2 (MobileNet's 112 -> 56 pair, two images), one to three threads.
TEST_F(FusedDepthwiseTest, MatchesReferenceAndUnfused) {
  const Shape shapes[] = {{1, 16, 32, 48, 56, 1}, {2, 16, 32, 32, 112, 2}, {1, 32, 48, 64, 57, 1}};
  uint32_t seed = 7;
  for (const Shape& s : shapes) {
    ExpectFusedMatches(Build(s, false, seed++), "z1", "dw", "pw1", FusionPossible(),
                       "size " + std::to_string(s.size) + ", stride " + std::to_string(s.stride));
  }
}

// Runs `m` at two threads with the fusion on: every output as the
// reference has it, and every op of `unfused` in the profile.
void ExpectUnfused(const Model& m, const std::vector<std::string>& outputs,
                   const std::vector<std::string>& unfused) {
  Result result;
  RunEngine(m, outputs, 2, true, &result);
  for (const std::string& name : outputs) {
    ExpectNear(m.expected.at(name), result.outputs[name], name);
  }
  for (const std::string& op : unfused) EXPECT_TRUE(Ran(result, op)) << op;
}

// Below 56x56 the two layers run as they are.
TEST_F(FusedDepthwiseTest, SmallMapsStayUnfused) {
  ExpectUnfused(Build({1, 16, 32, 48, 28, 1}, false, 11), {"z1"}, {"pw1"});
}

// A depthwise output with two readers is computed and kept for both.
TEST_F(FusedDepthwiseTest, TwoReadersStayUnfused) {
  ExpectUnfused(Build({1, 16, 32, 48, 56, 1}, true, 13), {"z1", "z2"}, {"pw1", "pw2"});
}

// A depthwise output that is also a model output is written for the app.
TEST_F(FusedDepthwiseTest, ModelOutputStaysUnfused) {
  ExpectUnfused(Build({1, 16, 32, 48, 56, 1}, false, 17), {"d", "z1"}, {"pw1"});
}

// The fused stem and pooling against the reference and the unfused engine:
// ResNet-18's 7x7 stem and padded pooling (two images, odd sizes) and
// SqueezeNet 1.1's 3x3 one with a ceil-mode pooling, stem outputs of just
// over 2 MiB; one to three threads.
TEST_F(FusedDepthwiseTest, StemAndPoolingMatchReferenceAndUnfused) {
  const StemShape shapes[] = {{2, 181, 7, 3, 1, false}, {1, 189, 3, 0, 0, true}};
  const ops::KernelTable* table = ops::ActiveKernelTable();
  const bool possible = FusionPossible() && table->blocked_window != nullptr;
  uint32_t seed = 19;
  for (const StemShape& s : shapes) {
    ExpectFusedMatches(BuildStem(s, seed++), "z", "stem", "pool", possible,
                       "size " + std::to_string(s.size) + ", kernel " + std::to_string(s.kernel));
  }
}

// A stem output that fits in L2 (64 x 50 x 50) is pooled on its own.
TEST_F(FusedDepthwiseTest, SmallStemStaysUnfused) {
  ExpectUnfused(BuildStem({1, 101, 3, 0, 0, false}, 23), {"z"}, {"pool"});
}

// The whole block against the reference and the engine with only the pair
// fused, bit for bit: the same kernels on the same values in the same
// order. Expanded tensors of more than 2 MiB: MobileNet v2's 56x56 block
// with its residual sum (two images) and its 112 -> 56 one, odd channel counts (partial blocks; inputs the layout keeps
// blocked), a map of 57 rows (a
// last band shorter than the others, padding rows below), two images; one
// to three threads.
TEST_F(FusedDepthwiseTest, ExpandedBlockMatchesReferenceAndPair) {
  struct BlockCase {
    Shape shape;
    bool residual;
  };
  const BlockCase cases[] = {{{2, 24, 144, 24, 56, 1}, true},
                             {{1, 16, 96, 24, 112, 2}, false},
                             {{2, 13, 93, 13, 57, 1}, true},
                             {{1, 12, 51, 29, 113, 2}, false}};
  uint32_t seed = 29;
  for (const BlockCase& c : cases) {
    const Model m = BuildBlock(c.shape, c.residual, seed++);
    const std::string shape = "size " + std::to_string(c.shape.size) + ", stride " +
                              std::to_string(c.shape.stride) + ", " +
                              std::to_string(c.shape.in_channels) + " -> " +
                              std::to_string(c.shape.mid_channels) + " channels";
    Result pair;
    RunEngine(m, {"z"}, 1, true, &pair, /*expand=*/false);
    ExpectNear(m.expected.at("z"), pair.outputs["z"], shape + ", pair");
    EXPECT_TRUE(Ran(pair, "dw")) << shape;
    for (int threads : mace::testing::TestThreadCounts()) {
      Result block;
      RunEngine(m, {"z"}, threads, true, &block);
      const std::string what = shape + ", " + std::to_string(threads) + " threads";
      ExpectNear(m.expected.at("z"), block.outputs["z"], what);
      ExpectIdentical(pair.outputs["z"], block.outputs["z"], what + " against the pair");
      EXPECT_TRUE(Ran(block, "expand")) << what;
      // Where the pair fuses, the block does: dw then runs inside expand.
      EXPECT_EQ(Ran(pair, "project"), !FusionPossible()) << what;
      EXPECT_EQ(Ran(block, "dw"), !FusionPossible()) << what;
      EXPECT_EQ(Ran(block, "project"), !FusionPossible()) << what;
      EXPECT_EQ(block.macs, pair.macs) << what;
    }
  }
}

// An expanded tensor that fits in L2 (144 x 56 x 56, 1.8 MB), or a 1x1
// that only doubles the channels, is written whole: the pair alone reads
// it.
TEST_F(FusedDepthwiseTest, SmallExpansionStaysUnfused) {
  ExpectUnfused(BuildBlock({1, 24, 144, 24, 56, 1}, true, 37), {"z"}, {"expand", "dw"});
  ExpectUnfused(BuildBlock({1, 32, 64, 32, 112, 2}, false, 41), {"z"}, {"expand", "dw"});
}

// The expansion of a pair that is not fused (a 28x28 map) runs on its own.
TEST_F(FusedDepthwiseTest, SmallBlockStaysUnfused) {
  ExpectUnfused(BuildBlock({1, 16, 48, 16, 28, 1}, true, 31), {"z"}, {"expand", "dw", "project"});
}

// Each fusion is a choice of the engine's config: in one process, an
// engine with a fusion off runs both layers and the default engine fuses
// them (where this CPU can), with the same outputs.
TEST_F(FusedDepthwiseTest, FusionsAreChosenPerEngine) {
  const bool possible = FusionPossible();
  const ops::KernelTable* table = ops::ActiveKernelTable();
  struct FusionCase {
    Model model;
    std::string absorbed;  // the op the fusion takes in
    bool possible;
    void (MaceEngineConfig::*turn_off)(bool);
  };
  const FusionCase cases[] = {
      {Build({1, 16, 32, 48, 56, 1}, false, 43), "pw1", possible,
       &MaceEngineConfig::SetCPUDepthwisePointwiseFusion},
      {BuildStem({1, 189, 3, 0, 0, true}, 47), "pool",
       possible && table->blocked_window != nullptr, &MaceEngineConfig::SetCPUConvPoolingFusion},
      {BuildBlock({2, 24, 144, 24, 56, 1}, true, 53), "dw", possible,
       &MaceEngineConfig::SetCPUExpandFusion},
  };
  for (const FusionCase& c : cases) {
    const std::string output = c.model.expected.count("z1") != 0 ? "z1" : "z";
    MaceEngineConfig fusing(DeviceType::CPU);
    MaceEngineConfig separate(DeviceType::CPU);
    (separate.*c.turn_off)(false);
    Result fused;
    Result unfused;
    RunWithConfig(c.model, {output}, fusing, &fused);
    RunWithConfig(c.model, {output}, separate, &unfused);
    EXPECT_EQ(Ran(fused, c.absorbed), !c.possible) << c.absorbed;
    EXPECT_TRUE(Ran(unfused, c.absorbed)) << c.absorbed;
    ExpectNear(c.model.expected.at(output), fused.outputs[output], c.absorbed + " fused");
    ExpectNear(c.model.expected.at(output), unfused.outputs[output], c.absorbed + " unfused");
  }
  // The expansion fusion needs the pair's: with the pair off, neither fuses.
  MaceEngineConfig no_pair(DeviceType::CPU);
  no_pair.SetCPUDepthwisePointwiseFusion(false);
  Result result;
  RunWithConfig(cases[2].model, {"z"}, no_pair, &result);
  EXPECT_TRUE(Ran(result, "dw"));
  EXPECT_TRUE(Ran(result, "project"));
}

// Conv2D's library registers the three fusions, and no other pair.
TEST(FusionRegistryTest, Conv2DRegistersItsPairsOnly) {
  OpRegistry registry;
  ASSERT_TRUE(ops::RegisterConv2D(&registry).ok());
  const auto found = [&](const char* producer, const char* consumer,
                         DeviceType device = DeviceType::CPU, DataType dtype = DT_FLOAT) {
    return registry.FindFusion(producer, consumer, device, dtype) != nullptr;
  };
  EXPECT_TRUE(found("Conv2D", "Pooling"));
  EXPECT_TRUE(found("Conv2D", "DepthwiseConv2d"));
  EXPECT_TRUE(found("DepthwiseConv2d", "Conv2D"));
  EXPECT_FALSE(found("Pooling", "Conv2D"));
  EXPECT_FALSE(found("Conv2D", "Conv2D"));
  EXPECT_FALSE(found("DepthwiseConv2d", "Pooling"));
  EXPECT_FALSE(found("DepthwiseConv2d", "DepthwiseConv2d"));
  EXPECT_FALSE(found("Conv2D", "Eltwise"));
  // Only the CPU float kernels fuse.
  EXPECT_FALSE(found("Conv2D", "Pooling", DeviceType::CPU, DT_UINT8));
  EXPECT_FALSE(found("DepthwiseConv2d", "Conv2D", DeviceType::GPU));
  // Registering the ops again fails on the kernels before the fusions.
  EXPECT_FALSE(ops::RegisterConv2D(&registry).ok());
}

// Blocked ops whose pairs have no fusion all run: the depthwise op and the
// pooling that alone reads it, the pooling and the 1x1 that alone reads it.
TEST_F(FusedDepthwiseTest, UnregisteredPairsStayUnfused) {
  const Shape s{1, 16, 32, 32, 56, 1};
  std::mt19937 rng(31);
  Model m = WithInput(s, &rng);
  const int64_t n = s.batch, c0 = s.in_channels, c1 = s.mid_channels, h = s.size;
  const std::vector<float> w0 = Random(static_cast<size_t>(c1 * c0), &rng, -0.5f, 0.5f);
  AddWeight("w0", {c1, c0, 1, 1}, w0, &m.net, &m.blob);
  AddOp("Conv2D", "pw0", {"x", "w0"}, "a", &m.net);
  std::vector<float> a(static_cast<size_t>(n * c1 * h * h));
  ops::ref::Conv2D(Pointwise(n, c0, c1, h), m.input.data(), w0.data(), nullptr, a.data());
  const std::vector<float> d = AddDepthwise(s, a, ops::ActivationType::RELU, &rng, &m);
  OperatorDef* pool = AddOp("Pooling", "pool", {"d"}, "p", &m.net);
  AddInt(pool, "pooling_type", 2);
  AddInts(pool, "kernels", {3, 3});
  AddInts(pool, "strides", {2, 2});
  ops::ref::PoolingParams pp;
  pp.type = ops::ref::PoolingType::MAX;
  pp.batch = n;
  pp.channels = c1;
  pp.in_h = pp.in_w = h;
  pp.kernel_h = pp.kernel_w = 3;
  pp.stride_h = pp.stride_w = 2;
  pp.out_h = pp.out_w = (h - 3) / 2 + 1;
  std::vector<float> p(static_cast<size_t>(n * c1 * pp.out_h * pp.out_w));
  ops::ref::Pooling(pp, d.data(), p.data());
  const std::vector<float> wh = Random(static_cast<size_t>(8 * c1), &rng, -0.5f, 0.5f);
  AddWeight("wh", {8, c1, 1, 1}, wh, &m.net, &m.blob);
  AddOp("Conv2D", "head", {"p", "wh"}, "z", &m.net);
  std::vector<float> z(static_cast<size_t>(n * 8 * pp.out_h * pp.out_w));
  ops::ref::Conv2D(Pointwise(n, c1, 8, pp.out_h), p.data(), wh.data(), nullptr, z.data());
  m.expected["z"] = std::move(z);
  m.shapes["z"] = {n, 8, pp.out_h, pp.out_w};
  ExpectUnfused(m, {"z"}, {"pw0", "dw", "pool", "head"});
}

}  // namespace
}  // namespace mace
