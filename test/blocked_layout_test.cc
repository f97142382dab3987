// The CPU runtime's channel-blocked layout, end to end: a graph where blocked
// ops (a shallow stem reading the plain model input, depthwise and 1x1
// and 3x3 convolutions, a residual sum, a channel concat, pooling) meet ops
// that stay plain (a grouped convolution, the model output's global pooling)
// gives the same outputs with the layout on and off, at 1 and 2 threads, with
// the conversions where the layouts meet and nowhere else.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"

namespace mace {
namespace {

class Graph {
 public:
  Graph() {
    InputOutputInfo* input = net_.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, 3, 21, 19}) input->add_dims(d);
    net_.add_output_info()->set_name("y");
  }

  // Conv2D (group 1) or DepthwiseConv2d with random weights and a bias.
  OperatorDef* Conv(const std::string& type, const std::string& input, const std::string& output,
                    int64_t in_channels, int64_t out_channels, int64_t kernel, int64_t stride,
                    const std::string& activation, int64_t group = 1) {
    const bool depthwise = type == "DepthwiseConv2d";
    const std::vector<int64_t> filter =
        depthwise ? std::vector<int64_t>{1, in_channels, kernel, kernel}
                  : std::vector<int64_t>{out_channels, in_channels / group, kernel, kernel};
    AddWeight(output + "_w", filter);
    AddWeight(output + "_b", {out_channels});
    OperatorDef* op = AddOp(type, {input, output + "_w", output + "_b"}, output);
    AddInts(op, "strides", {stride, stride});
    const int64_t pad = kernel / 2;
    AddInts(op, "pads", {pad, pad, pad, pad});
    if (group > 1) AddInt(op, "group", group);
    if (!activation.empty()) {
      Argument* arg = op->add_arg();
      arg->set_name("activation");
      arg->set_s(activation);
    }
    return op;
  }

  OperatorDef* AddOp(const std::string& type, const std::vector<std::string>& inputs,
                     const std::string& output) {
    OperatorDef* op = net_.add_op();
    op->set_type(type);
    op->set_name(output);
    for (const std::string& input : inputs) op->add_input(input);
    op->add_output(output);
    return op;
  }

  static void AddInts(OperatorDef* op, const std::string& name, const std::vector<int64_t>& v) {
    Argument* arg = op->add_arg();
    arg->set_name(name);
    for (int64_t x : v) arg->add_ints(x);
  }
  static void AddInt(OperatorDef* op, const std::string& name, int64_t v) {
    Argument* arg = op->add_arg();
    arg->set_name(name);
    arg->set_i(v);
  }

  MaceStatus Create(const MaceEngineConfig& config, std::shared_ptr<MaceEngine>* engine) const {
    const std::string graph = net_.SerializeAsString();
    return CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()),
                                     graph.size(),
                                     reinterpret_cast<const unsigned char*>(data_.data()),
                                     data_.size(), {"x"}, {"y"}, config, engine);
  }

  void AddWeight(const std::string& name, const std::vector<int64_t>& dims) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    std::vector<float> values(count);
    for (float& v : values) {
      seed_ = seed_ * 1664525u + 1013904223u;
      v = static_cast<float>(seed_ >> 8) / static_cast<float>(1 << 24) - 0.5f;
    }
    data_.resize((data_.size() + 63) / 64 * 64, '\0');
    ConstTensor* tensor = net_.add_tensors();
    tensor->set_name(name);
    for (int64_t d : dims) tensor->add_dims(d);
    tensor->set_offset(data_.size());
    tensor->set_data_size(count);
    data_.append(reinterpret_cast<const char*>(values.data()), count * sizeof(float));
  }

 private:
  NetDef net_;
  std::string data_;
  uint32_t seed_ = 1234;
};

Graph MixedGraph() {
  Graph g;
  g.Conv("Conv2D", "x", "stem", 3, 32, 3, 2, "RELU");               // 11x10, plain input
  g.Conv("DepthwiseConv2d", "stem", "dw1", 32, 32, 3, 1, "RELUX");  // blocked
  g.Conv("Conv2D", "dw1", "pw1", 32, 48, 1, 1, "");
  g.Conv("Conv2D", "stem", "pw1b", 32, 48, 1, 1, "");
  OperatorDef* sum = g.AddOp("Eltwise", {"pw1", "pw1b"}, "res");
  Graph::AddInt(sum, "type", 0);
  g.Conv("Conv2D", "res", "wide", 48, 16, 3, 1, "RELU", 2);  // grouped: stays plain
  g.Conv("Conv2D", "res", "three", 48, 16, 3, 1, "RELU");    // joins the blocked run
  g.Conv("Conv2D", "res", "narrow", 48, 32, 1, 1, "HARDSWISH");
  // Winograd, blocked on the blocked sum.
  Graph::AddInt(g.Conv("Conv2D", "res", "wino", 48, 16, 3, 1, "RELUX"), "winograd", 4);
  OperatorDef* cat = g.AddOp("Concat", {"narrow", "wide", "three", "wino"}, "cat");
  Graph::AddInt(cat, "axis", 1);
  OperatorDef* pool = g.AddOp("Pooling", {"cat"}, "pool");
  Graph::AddInt(pool, "pooling_type", 2);
  Graph::AddInts(pool, "kernels", {3, 3});
  Graph::AddInts(pool, "strides", {2, 2});
  g.Conv("DepthwiseConv2d", "pool", "dw2", 80, 80, 3, 2, "RELU");
  // A constant operand keeps the sum plain: its NCHW bytes are not reordered.
  g.AddWeight("offset", {1, 80, 3, 2});
  OperatorDef* shift = g.AddOp("Eltwise", {"dw2", "offset"}, "shifted");
  Graph::AddInt(shift, "type", 0);
  OperatorDef* global = g.AddOp("Pooling", {"shifted"}, "y");  // the output stays plain
  Graph::AddInt(global, "pooling_type", 1);
  Graph::AddInt(global, "global", 1);
  return g;
}

// A ResNet-like stage: a blocked stem and max pool, then residual sums
// around convolutions that stay plain. Blocked, the sums would need a
// conversion on each side of every convolution for one op faster blocked.
Graph ResidualGraph() {
  Graph g;
  g.Conv("Conv2D", "x", "stem", 3, 32, 3, 2, "RELU");
  OperatorDef* pool = g.AddOp("Pooling", {"stem"}, "pool");
  Graph::AddInt(pool, "pooling_type", 2);
  Graph::AddInts(pool, "kernels", {3, 3});
  Graph::AddInts(pool, "strides", {1, 1});
  Graph::AddInts(pool, "pads", {1, 1, 1, 1});
  g.Conv("Conv2D", "pool", "a", 32, 32, 3, 1, "RELU");
  OperatorDef* sum1 = g.AddOp("Eltwise", {"a", "pool"}, "sum1");
  Graph::AddInt(sum1, "type", 0);
  g.Conv("Conv2D", "sum1", "b", 32, 32, 3, 1, "");
  OperatorDef* sum2 = g.AddOp("Eltwise", {"b", "sum1"}, "y");
  Graph::AddInt(sum2, "type", 0);
  return g;
}

std::map<std::string, MaceTensor> Input() {
  std::shared_ptr<float> x(new float[3 * 21 * 19], std::default_delete<float[]>());
  for (int i = 0; i < 3 * 21 * 19; ++i) x.get()[i] = std::sin(0.37f * i);
  return {{"x", MaceTensor({1, 3, 21, 19}, x)}};
}

struct Result {
  std::vector<float> y;
  std::set<std::string> tensors;
};

// MixedGraph's output and tensor names in an engine made with `config`.
Result RunMixedGraph(const MaceEngineConfig& config) {
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = MixedGraph().Create(config, &engine);
  EXPECT_TRUE(created.ok()) << created.information();
  Result result;
  if (!created.ok()) return result;
  std::map<std::string, MaceTensor> outputs;
  EXPECT_TRUE(engine->Run(Input(), &outputs).ok());
  const MaceTensor& y = outputs.at("y");
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 80, 1, 1}));
  result.y.assign(y.data().get(), y.data().get() + 80);
  MemoryReport report;
  EXPECT_TRUE(engine->GetMemoryReport(&report).ok());
  for (const TensorPlacement& t : report.tensors) result.tensors.insert(t.name);
  return result;
}

Result RunGraph(bool blocked, int threads) {
  // On by default only where it pays (x86); asked for here, so that the ARM
  // builds under qemu test it too.
  setenv("MACE_CPU_BLOCKED_LAYOUT", "1", 1);
  MaceEngineConfig config;
  config.SetLayoutOptimization(blocked);
  EXPECT_TRUE(config.SetCPUThreadPolicy(threads, CPUAffinityPolicy::AFFINITY_NONE).ok());
  return RunMixedGraph(config);
}

TEST(BlockedLayoutTest, SameOutputsAsThePlainLayout) {
  const Result plain = RunGraph(false, 1);
  for (int threads : {1, 2}) {
    const Result blocked = RunGraph(true, threads);
    ASSERT_EQ(blocked.y.size(), plain.y.size());
    for (size_t i = 0; i < plain.y.size(); ++i) {
      EXPECT_NEAR(blocked.y[i], plain.y[i], 1e-4f * (1.f + std::fabs(plain.y[i])))
          << "channel " << i << " threads " << threads;
    }
  }
}

TEST(BlockedLayoutTest, ConvertsOnlyWhereTheLayoutsMeet) {
  const Result blocked = RunGraph(true, 1);
  std::set<std::string> conversions;
  for (const std::string& name : blocked.tensors) {
    if (name.find('#') != std::string::npos) conversions.insert(name);
  }
  // The grouped convolution reads the residual sum unpacked and its output
  // goes back into blocks for the concat; the output's pooling reads dw2
  // unpacked. The stem reads the model input as it is.
  EXPECT_EQ(conversions, (std::set<std::string>{"res#plain", "wide#blocked", "dw2#plain"}));
  for (const std::string& name : RunGraph(false, 1).tensors) {
    EXPECT_EQ(name.find('#'), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

TEST(BlockedLayoutTest, RunsWithMoreConversionsThanGainsStayPlain) {
  setenv("MACE_CPU_BLOCKED_LAYOUT", "1", 1);
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = ResidualGraph().Create(MaceEngineConfig(), &engine);
  ASSERT_TRUE(created.ok()) << created.information();
  std::map<std::string, MaceTensor> outputs;
  ASSERT_TRUE(engine->Run(Input(), &outputs).ok());
  MemoryReport report;
  ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
  for (const TensorPlacement& t : report.tensors) {
    EXPECT_EQ(t.name.find('#'), std::string::npos) << t.name;
  }
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

// The same graph in an fp16 engine: where the CPU computes in half precision
// (ARMv8.2 FP16: qemu's default CPU) the convolutions (but the grouped one),
// the residual sum, the concat and the max pool keep their tensors in half
// precision, with conversions
// where that run meets float ops, and the outputs stay within half-precision
// error of the fp32 engine's. Without FP16 (x86, qemu -cpu cortex-a53) the
// engine runs fp32: no conversion, bit-identical outputs.
Result RunFp16Graph(CPUPrecision precision, int threads) {
  setenv("MACE_CPU_BLOCKED_LAYOUT", "0", 1);
  MaceEngineConfig config;
  config.SetCPUPrecision(precision);
  EXPECT_TRUE(config.SetCPUThreadPolicy(threads, CPUAffinityPolicy::AFFINITY_NONE).ok());
  return RunMixedGraph(config);
}

TEST(HalfTensorsTest, Fp16EngineKeepsHalfRuns) {
  const Result fp32 = RunFp16Graph(CPUPrecision::FP32, 1);
  for (int threads : {1, 2}) {
    const Result fp16 = RunFp16Graph(CPUPrecision::FP16, threads);
    std::set<std::string> conversions;
    for (const std::string& name : fp16.tensors) {
      if (name.find('#') != std::string::npos) conversions.insert(name);
    }
    ASSERT_EQ(fp16.y.size(), fp32.y.size());
    if (conversions.empty()) {
      // No FP16 arithmetic: the fp32 kernels, to the bit.
      EXPECT_EQ(fp16.y, fp32.y) << "threads " << threads;
      continue;
    }
    // Everything from the stem to dw2 runs in half precision: the model
    // input goes in, the sum goes out to the grouped convolution and its
    // output back in to the concat; dw2's output goes out to the sum with
    // a constant.
    EXPECT_EQ(conversions,
              (std::set<std::string>{"x#half", "res#plain", "wide#half", "dw2#plain"}));
    float scale = 0.f;
    for (float v : fp32.y) scale = std::max(scale, std::fabs(v));
    for (size_t i = 0; i < fp32.y.size(); ++i) {
      EXPECT_NEAR(fp16.y[i], fp32.y[i], 1e-2f * scale) << "channel " << i << " threads " << threads;
    }
    EXPECT_NE(fp16.y, fp32.y);
  }
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

// The blocked layout is chosen per engine (MaceEngineConfig::SetCPUBlockedLayout).
std::shared_ptr<MaceEngine> MixedEngine(const std::string& layout) {
  MaceEngineConfig config;
  config.SetCPUBlockedLayout(layout);
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = MixedGraph().Create(config, &engine);
  EXPECT_TRUE(created.ok()) << created.information();
  return engine;
}

// Whether `engine` converts any tensor between the layouts.
bool Converts(MaceEngine* engine) {
  MemoryReport report;
  EXPECT_TRUE(engine->GetMemoryReport(&report).ok());
  for (const TensorPlacement& t : report.tensors) {
    if (t.name.find('#') != std::string::npos) return true;
  }
  return false;
}

std::vector<float> RunY(MaceEngine* engine) {
  std::map<std::string, MaceTensor> outputs;
  EXPECT_TRUE(engine->Run(Input(), &outputs).ok());
  const MaceTensor& y = outputs.at("y");
  return std::vector<float>(y.data().get(), y.data().get() + 80);
}

// Two engines of one process, one blocked and one plain, alive and running
// in turns: each keeps its own layout and both give the same outputs.
TEST(BlockedLayoutTest, LayoutIsChosenPerEngine) {
  unsetenv("MACE_CPU_BLOCKED_LAYOUT");
  std::shared_ptr<MaceEngine> blocked = MixedEngine("on");
  std::shared_ptr<MaceEngine> plain = MixedEngine("off");
  ASSERT_TRUE(blocked != nullptr && plain != nullptr);
  EXPECT_TRUE(Converts(blocked.get()));
  EXPECT_FALSE(Converts(plain.get()));
  for (int round = 0; round < 2; ++round) {
    const std::vector<float> a = RunY(blocked.get());
    const std::vector<float> b = RunY(plain.get());
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], b[i], 1e-4f * (1.f + std::fabs(b[i]))) << "channel " << i;
    }
  }
}

// MACE_CPU_BLOCKED_LAYOUT overrides an engine left at "auto" and no other.
TEST(BlockedLayoutTest, EnvironmentOverridesOnlyAuto) {
  setenv("MACE_CPU_BLOCKED_LAYOUT", "1", 1);
  std::shared_ptr<MaceEngine> automatic = MixedEngine("auto");
  std::shared_ptr<MaceEngine> plain = MixedEngine("off");
  setenv("MACE_CPU_BLOCKED_LAYOUT", "0", 1);
  std::shared_ptr<MaceEngine> forced_plain = MixedEngine("auto");
  std::shared_ptr<MaceEngine> blocked = MixedEngine("on");
  unsetenv("MACE_CPU_BLOCKED_LAYOUT");
  ASSERT_TRUE(automatic != nullptr && plain != nullptr && forced_plain != nullptr &&
              blocked != nullptr);
  EXPECT_TRUE(Converts(automatic.get()));
  EXPECT_FALSE(Converts(plain.get()));
  EXPECT_FALSE(Converts(forced_plain.get()));
  EXPECT_TRUE(Converts(blocked.get()));
}

TEST(BlockedLayoutTest, UnknownModeIsRefused) {
  MaceEngineConfig config;
  config.SetCPUBlockedLayout("sometimes");
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = MixedGraph().Create(config, &engine);
  EXPECT_EQ(created.code(), MaceStatus::MACE_INVALID_ARGS) << created.information();
  EXPECT_NE(created.information().find("sometimes"), std::string::npos);
}

}  // namespace
}  // namespace mace
