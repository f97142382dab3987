// Winograd F(2x2, 3x3) convolution and the kernel time limit on the GPU.
// Winograd against the CPU reference in both storages at edge shapes: odd
// output heights and widths (tail tiles), channels not a multiple of 4,
// batch > 1, SAME, VALID and explicit padding, fused RELU and RELU6, and
// one-row or one-column outputs that keep the direct kernel. Which kernel
// ran is told by the number of kernel launches: Winograd is three, the
// direct kernel one. The time limit must change nothing but the number of
// launches.
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mace/runtimes/opencl/opencl_runtime.h"
#include "mace/runtimes/opencl/testing/gpu_engine.h"

namespace mace {
namespace {

using testing::AddInts;
using testing::Count;
using testing::ModelBuilder;

struct WinogradCase {
  std::string name;
  std::vector<int64_t> input;   // NCHW
  std::vector<int64_t> filter;  // OIHW, 3x3
  int padding = 1;              // 0 VALID, 1 SAME
  std::vector<int64_t> pads;    // explicit [top, left, bottom, right]
  bool bias = true;
  std::string activation = "NOOP";
  bool winograd = true;  // false: the shape keeps the direct kernel
};

void AddConv(ModelBuilder* model, const std::vector<int64_t>& filter, int padding,
             const std::vector<int64_t>& pads, bool bias, const std::string& activation,
             const std::string& name, const std::string& input, const std::string& output,
             uint32_t seed) {
  model->AddWeight(name + "_w", filter, testing::RandomValues(Count(filter), seed));
  std::vector<std::string> inputs = {input, name + "_w"};
  if (bias) {
    model->AddWeight(name + "_b", {filter[0]}, testing::RandomValues(filter[0], seed + 1));
    inputs.push_back(name + "_b");
  }
  OperatorDef* op = model->AddOp("Conv2D", name, inputs, output);
  AddInts(op, "strides", {1, 1});
  AddInts(op, "dilations", {1, 1});
  if (!pads.empty()) {
    AddInts(op, "pads", pads);
  } else {
    ModelBuilder::SetInt(op, "padding", padding);
  }
  if (activation != "NOOP") ModelBuilder::SetString(op, "activation", activation);
}

// Sets an environment variable for the engines created in its scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

std::shared_ptr<MaceEngine> Engine(const ModelBuilder& model, const MaceEngineConfig& config) {
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = model.CreateEngine({}, {}, config, &engine);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return engine;
}

// Output "y" of a GPU engine made with `winograd` ("on", "off", "auto") and
// the kernel launches its Run took.
struct GpuRun {
  std::vector<float> output;
  int64_t launches = 0;
};

GpuRun RunGpu(const ModelBuilder& model, const std::map<std::string, MaceTensor>& inputs,
              MaceEngineConfig config, const char* winograd) {
  ScopedEnv env("MACE_OPENCL_WINOGRAD", winograd);
  std::shared_ptr<MaceEngine> engine = Engine(model, config);
  GpuRun run;
  if (engine == nullptr) return run;
  const int64_t before = opencl::KernelEnqueueCount();
  run.output = testing::RunEngine(engine.get(), inputs, "y");
  run.launches = opencl::KernelEnqueueCount() - before;
  return run;
}

std::map<std::string, MaceTensor> Inputs(const std::vector<int64_t>& shape) {
  return {{"x", testing::MakeTensor(shape, testing::RandomValues(Count(shape), 5, 2.f))}};
}

std::vector<WinogradCase> Cases() {
  std::vector<WinogradCase> cases;
  cases.push_back({"odd_hw_same_relu", {1, 5, 7, 9}, {6, 5, 3, 3}});
  cases.back().activation = "RELU";
  cases.push_back({"valid_batch2_relu6", {2, 3, 6, 5}, {4, 3, 3, 3}, 0});
  cases.back().activation = "RELUX";  // max_limit 6: RELU6
  cases.push_back({"same_c13_to_9_no_bias", {1, 13, 4, 4}, {9, 13, 3, 3}});
  cases.back().bias = false;
  cases.push_back({"explicit_pads_batch3", {3, 4, 5, 6}, {5, 4, 3, 3}, 0, {2, 0, 1, 2}});
  cases.push_back({"valid_2x2_output", {1, 8, 4, 4}, {8, 8, 3, 3}, 0});
  cases.push_back({"w1_direct", {1, 4, 5, 1}, {4, 4, 3, 3}});
  cases.back().winograd = false;
  cases.push_back({"h1_direct", {2, 6, 1, 6}, {3, 6, 3, 3}});
  cases.back().activation = "RELU";
  cases.back().winograd = false;
  return cases;
}

class WinogradOpenCLTest : public ::testing::TestWithParam<GPUDataType> {};

TEST_P(WinogradOpenCLTest, MatchesTheCpuReferenceAtEdgeShapes) {
  for (const WinogradCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    ModelBuilder model = testing::ModelWithInput(c.input);
    AddConv(&model, c.filter, c.padding, c.pads, c.bias, c.activation, "conv", "x", "y", 11);
    const auto inputs = Inputs(c.input);
    std::shared_ptr<MaceEngine> cpu = Engine(model, testing::ReferenceCpuConfig());
    ASSERT_NE(cpu, nullptr);
    const std::vector<float> expected = testing::RunEngine(cpu.get(), inputs, "y");
    const GpuRun on = RunGpu(model, inputs, testing::GpuConfig(GetParam()), "on");
    const GpuRun off = RunGpu(model, inputs, testing::GpuConfig(GetParam()), "off");
    testing::ExpectNear(on.output, expected, testing::Tolerance(GetParam()));
    testing::ExpectNear(off.output, expected, testing::Tolerance(GetParam()));
    EXPECT_EQ(on.launches - off.launches, c.winograd ? 2 : 0);
  }
}

// "auto" takes Winograd from 16 input and 16 output channels on.
TEST_P(WinogradOpenCLTest, ChannelRuleChoosesWinograd) {
  struct RuleCase {
    int64_t in, out;
    bool winograd;
  };
  for (const RuleCase& c :
       {RuleCase{16, 16, true}, RuleCase{15, 32, false}, RuleCase{32, 12, false}}) {
    SCOPED_TRACE(std::to_string(c.in) + " to " + std::to_string(c.out));
    const std::vector<int64_t> shape = {1, c.in, 3, 4};
    ModelBuilder model = testing::ModelWithInput(shape);
    AddConv(&model, {c.out, c.in, 3, 3}, 1, {}, true, "NOOP", "conv", "x", "y", 17);
    const auto inputs = Inputs(shape);
    const GpuRun chosen = RunGpu(model, inputs, testing::GpuConfig(GetParam()), "auto");
    const GpuRun direct = RunGpu(model, inputs, testing::GpuConfig(GetParam()), "off");
    EXPECT_EQ(chosen.launches - direct.launches, c.winograd ? 2 : 0);
    testing::ExpectNear(chosen.output, direct.output, testing::Tolerance(GetParam()));
  }
}

// Winograd conv -> direct conv -> depthwise conv -> FullyConnected -> MatMul,
// with a work-per-ms figure so small that every kernel that can be split is
// cut into one piece per work-group row or column.
ModelBuilder LongKernelsModel() {
  ModelBuilder model = testing::ModelWithInput({2, 6, 9, 7});
  AddConv(&model, {8, 6, 3, 3}, 1, {}, true, "RELU", "wino", "x", "a", 41);
  AddConv(&model, {7, 8, 5, 3}, 1, {}, true, "NOOP", "direct", "a", "b", 43);
  model.AddWeight("dw_w", {1, 7, 3, 3}, testing::RandomValues(63, 45));
  OperatorDef* dw = model.AddOp("DepthwiseConv2d", "dw", {"b", "dw_w"}, "c");
  AddInts(dw, "strides", {1, 1});
  AddInts(dw, "dilations", {1, 1});
  ModelBuilder::SetInt(dw, "padding", 1);
  // 72 features: more than one work-group of columns, so FullyConnected
  // (one row of work-groups) splits too. Its [2, 72, 1, 1] output is a
  // batch of 1x1 matrices for MatMul, whose [2, 72, 1, 80] output splits
  // along its columns.
  model.AddWeight("fc_w", {72, 7 * 9 * 7}, testing::RandomValues(72 * 7 * 9 * 7, 47));
  model.AddOp("FullyConnected", "fc", {"c", "fc_w"}, "d");
  model.AddWeight("mm_b", {1, 80}, testing::RandomValues(80, 49));
  model.AddOp("MatMul", "mm", {"d", "mm_b"}, "y");
  return model;
}

TEST_P(WinogradOpenCLTest, SplitKernelsGiveTheSameBits) {
  const ModelBuilder model = LongKernelsModel();
  const auto inputs = Inputs({2, 6, 9, 7});
  const GpuRun whole = RunGpu(model, inputs, testing::GpuConfig(GetParam()), "on");
  MaceEngineConfig limited = testing::GpuConfig(GetParam());
  limited.SetLimitOpenCLKernelTime(true);
  // With the default figure (tens of millions of multiply-adds per ms)
  // these small kernels are short enough to run whole.
  EXPECT_EQ(RunGpu(model, inputs, limited, "on").launches, whole.launches);
  ScopedEnv work("MACE_OPENCL_WORK_PER_MS", "1");
  const GpuRun split = RunGpu(model, inputs, limited, "on");
  ASSERT_FALSE(whole.output.empty());
  EXPECT_EQ(split.output, whole.output);
  EXPECT_GT(split.launches, whole.launches + 4) << "the kernels were not split";
  // And the split run still matches the CPU.
  std::shared_ptr<MaceEngine> cpu = Engine(model, testing::ReferenceCpuConfig());
  ASSERT_NE(cpu, nullptr);
  testing::ExpectNear(split.output, testing::RunEngine(cpu.get(), inputs, "y"),
                      testing::Tolerance(GetParam()));
}

// Off by default: the same small figure splits nothing.
TEST_P(WinogradOpenCLTest, NoSplitWithoutTheLimit) {
  const ModelBuilder model = LongKernelsModel();
  const auto inputs = Inputs({2, 6, 9, 7});
  const GpuRun plain = RunGpu(model, inputs, testing::GpuConfig(GetParam()), "on");
  ScopedEnv work("MACE_OPENCL_WORK_PER_MS", "1");
  const GpuRun again = RunGpu(model, inputs, testing::GpuConfig(GetParam()), "on");
  EXPECT_EQ(again.launches, plain.launches);
  EXPECT_EQ(again.output, plain.output);
}

// Kernel launches of one Run of `engine`, and its output "y".
int64_t Launches(MaceEngine* engine, const std::map<std::string, MaceTensor>& inputs,
                 std::vector<float>* output) {
  const int64_t before = opencl::KernelEnqueueCount();
  *output = testing::RunEngine(engine, inputs, "y");
  return opencl::KernelEnqueueCount() - before;
}

// Winograd and the work-per-ms figure are engine settings: engines alive
// together keep their own, an explicit choice wins over the environment,
// and a figure of 1 splits only that engine's kernels.
TEST_P(WinogradOpenCLTest, ConfigChoosesPerEngine) {
  ScopedEnv env("MACE_OPENCL_WINOGRAD", "off");
  const ModelBuilder model = LongKernelsModel();
  const auto inputs = Inputs({2, 6, 9, 7});
  MaceEngineConfig on = testing::GpuConfig(GetParam());
  on.SetOpenCLWinograd("on");
  MaceEngineConfig split = on;
  split.SetLimitOpenCLKernelTime(true);
  split.SetOpenCLWorkPerMs(1);
  std::shared_ptr<MaceEngine> winograd = Engine(model, on);
  std::shared_ptr<MaceEngine> direct = Engine(model, testing::GpuConfig(GetParam()));
  std::shared_ptr<MaceEngine> pieces = Engine(model, split);
  ASSERT_TRUE(winograd != nullptr && direct != nullptr && pieces != nullptr);
  std::vector<float> a, b, c;
  const int64_t with = Launches(winograd.get(), inputs, &a);
  const int64_t without = Launches(direct.get(), inputs, &b);
  const int64_t cut = Launches(pieces.get(), inputs, &c);
  EXPECT_EQ(with - without, 2);  // the input and output transforms
  EXPECT_GT(cut, with + 4) << "the kernels were not split";
  EXPECT_EQ(c, a);
  testing::ExpectNear(a, b, testing::Tolerance(GetParam()));
}

TEST_P(WinogradOpenCLTest, BadSettingsAreRefused) {
  const ModelBuilder model = LongKernelsModel();
  MaceEngineConfig mode = testing::GpuConfig(GetParam());
  mode.SetOpenCLWinograd("sometimes");
  MaceEngineConfig figure = testing::GpuConfig(GetParam());
  figure.SetOpenCLWorkPerMs(-1);
  for (const MaceEngineConfig& config : {mode, figure}) {
    std::shared_ptr<MaceEngine> engine;
    const MaceStatus status = model.CreateEngine({}, {}, config, &engine);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(Storages, WinogradOpenCLTest,
                         ::testing::Values(GPUDataType::FP32_FP32, GPUDataType::FP16_FP32),
                         [](const ::testing::TestParamInfo<GPUDataType>& info) {
                           return std::string(testing::StorageName(info.param));
                         });

}  // namespace
}  // namespace mace
