// End-to-end engine tests on small models built here: the public API, model
// loading from memory and from a mapped file, and every bad-input path.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"

namespace mace {
namespace {

// x[1,2,3,3] -> Conv2D(1x1, 2->2, bias, RELU) -> Identity -> Eltwise SUM with x -> y
struct TinyModel : testing::ModelBuilder {
  TinyModel() {
    net.set_name("tiny");
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, 2, 3, 3}) input->add_dims(d);
    net.add_output_info()->set_name("y");
    AddWeight("w", {2, 2, 1, 1}, {1.f, 2.f, -1.f, 0.5f});
    AddWeight("b", {2}, {0.5f, -0.25f});
    OperatorDef* conv = AddOp("Conv2D", "conv", {"x", "w", "b"}, "c");
    Argument* act = conv->add_arg();
    act->set_name("activation");
    act->set_s("RELU");
    AddOp("Identity", "id", {"c"}, "i");
    OperatorDef* add = AddOp("Eltwise", "add", {"i", "x"}, "y");
    Argument* type = add->add_arg();
    type->set_name("type");
    type->set_i(0);
  }

  MaceStatus Create(std::shared_ptr<MaceEngine>* engine,
                    const MaceEngineConfig& config = MaceEngineConfig()) const {
    return CreateEngine({"x"}, {"y"}, config, engine);
  }
};

// Input x[1,2,3,3] and output y, with no weights or ops yet.
TinyModel BareModel() {
  TinyModel model;
  model.net = NetDef();
  InputOutputInfo* input = model.net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 2, 3, 3}) input->add_dims(d);
  model.net.add_output_info()->set_name("y");
  model.data.clear();
  return model;
}

std::vector<float> Input() {
  std::vector<float> x(18);
  for (int i = 0; i < 18; ++i) x[i] = (i % 7) - 3.f;
  return x;
}

std::vector<float> Expected() {
  const std::vector<float> x = Input();
  std::vector<float> y(18);
  for (int p = 0; p < 9; ++p) {
    const float c0 = std::max(0.f, 1.f * x[p] + 2.f * x[9 + p] + 0.5f);
    const float c1 = std::max(0.f, -1.f * x[p] + 0.5f * x[9 + p] - 0.25f);
    y[p] = c0 + x[p];
    y[9 + p] = c1 + x[9 + p];
  }
  return y;
}

std::map<std::string, MaceTensor> Inputs(std::vector<int64_t> shape = {1, 2, 3, 3}) {
  const std::vector<float> x = Input();
  std::shared_ptr<float> data(new float[18], std::default_delete<float[]>());
  std::copy(x.begin(), x.end(), data.get());
  return {{"x", MaceTensor(shape, data)}};
}

TEST(EngineTest, RunsFromMemoryAndMatchesHandComputation) {
  TinyModel model;
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  std::map<std::string, MaceTensor> outputs;
  RunMetadata metadata;
  MaceStatus status = engine->Run(Inputs(), &outputs, &metadata);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_EQ(outputs["y"].shape(), (std::vector<int64_t>{1, 2, 3, 3}));
  const std::vector<float> expected = Expected();
  for (int i = 0; i < 18; ++i) EXPECT_FLOAT_EQ(outputs["y"].data().get()[i], expected[i]) << i;
  ASSERT_EQ(metadata.op_stats.size(), 3u);
  EXPECT_EQ(metadata.op_stats[0].type, "Conv2D");
  EXPECT_EQ(metadata.op_stats[0].macs, 2 * 2 * 9);
}

TEST(EngineTest, RunsFromMappedWeightsFile) {
  TinyModel model;
  const std::string path = ::testing::TempDir() + "/tiny.data";
  std::ofstream(path, std::ios::binary) << model.data;
  const std::string graph = model.Graph();
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status =
      CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()), graph.size(),
                                path, {"x"}, {"y"}, MaceEngineConfig(), &engine);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::map<std::string, MaceTensor> outputs;
  ASSERT_TRUE(engine->Run(Inputs(), &outputs).ok());
  EXPECT_FLOAT_EQ(outputs["y"].data().get()[0], Expected()[0]);
  // Running twice gives the same answer: no state leaks between runs.
  std::map<std::string, MaceTensor> again;
  ASSERT_TRUE(engine->Run(Inputs(), &again).ok());
  for (int i = 0; i < 18; ++i) EXPECT_EQ(again["y"].data().get()[i], outputs["y"].data().get()[i]);
}

void ExpectError(const MaceStatus& status, MaceStatus::Code code, const std::string& words) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_NE(status.information().find(words), std::string::npos) << status.ToString();
}

TEST(EngineBadInputTest, CorruptAndTruncatedGraphs) {
  TinyModel model;
  std::string graph = model.Graph();
  std::shared_ptr<MaceEngine> engine;
  const std::string data = model.data;
  auto create = [&](const std::string& bytes) {
    return CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(bytes.data()),
                                     bytes.size(),
                                     reinterpret_cast<const unsigned char*>(data.data()),
                                     data.size(), {"x"}, {"y"}, MaceEngineConfig(), &engine);
  };
  ExpectError(create(graph.substr(0, graph.size() / 2)), MaceStatus::MACE_INVALID_ARGS,
              "not a valid MACE NetDef");
  ExpectError(create(std::string(64, '\xff')), MaceStatus::MACE_INVALID_ARGS,
              "not a valid MACE NetDef");
  ExpectError(create(""), MaceStatus::MACE_INVALID_ARGS, "graph is empty");
  EXPECT_EQ(engine, nullptr);
}

TEST(EngineBadInputTest, WeightsOutOfRange) {
  TinyModel model;
  model.net.mutable_tensors(1)->set_offset(model.data.size());
  std::shared_ptr<MaceEngine> engine;
  ExpectError(model.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "weight 'b' needs 8 bytes at offset 72");

  TinyModel truncated;
  truncated.data.resize(truncated.data.size() - 4);
  ExpectError(truncated.Create(&engine), MaceStatus::MACE_INVALID_ARGS, "weight 'b'");

  TinyModel negative;
  negative.net.mutable_tensors(0)->set_offset(-8);
  ExpectError(negative.Create(&engine), MaceStatus::MACE_INVALID_ARGS, "weight 'w'");

  TinyModel mismatch;
  mismatch.net.mutable_tensors(0)->set_data_size(3);
  ExpectError(mismatch.Create(&engine), MaceStatus::MACE_INVALID_ARGS, "data_size 3");
}

TEST(EngineBadInputTest, UnknownOpMissingTensorAndNames) {
  TinyModel unknown;
  unknown.net.mutable_op(1)->set_type("FancyOp");
  std::shared_ptr<MaceEngine> engine;
  ExpectError(unknown.Create(&engine), MaceStatus::MACE_UNSUPPORTED, "unknown type 'FancyOp'");

  TinyModel dangling;
  dangling.net.mutable_op(1)->set_input(0, "nowhere");
  ExpectError(dangling.Create(&engine), MaceStatus::MACE_INVALID_ARGS, "input 'nowhere'");

  TinyModel model;
  const std::string graph = model.Graph();
  MaceStatus status =
      CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()), graph.size(),
                                reinterpret_cast<const unsigned char*>(model.data.data()),
                                model.data.size(), {"x"}, {"zzz"}, MaceEngineConfig(), &engine);
  ExpectError(status, MaceStatus::MACE_INVALID_ARGS, "output 'zzz'");
  status =
      CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()), graph.size(),
                                "/nonexistent/w.data", {"x"}, {"y"}, MaceEngineConfig(), &engine);
  ExpectError(status, MaceStatus::MACE_INVALID_ARGS, "cannot open weights file");
}

TEST(EngineBadInputTest, WrongInputsAtRun) {
  TinyModel model;
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  std::map<std::string, MaceTensor> outputs;
  ExpectError(engine->Run({}, &outputs), MaceStatus::MACE_INVALID_ARGS, "input 'x' is missing");
  ExpectError(engine->Run(Inputs({1, 2, 9, 1}), &outputs), MaceStatus::MACE_INVALID_ARGS,
              "has shape [1,2,9,1] but the model expects [1,2,3,3]");
  auto extra = Inputs();
  extra["q"] = extra["x"];
  ExpectError(engine->Run(extra, &outputs), MaceStatus::MACE_INVALID_ARGS, "'q' is not an input");
  std::shared_ptr<float> small(new float[3], std::default_delete<float[]>());
  std::map<std::string, MaceTensor> bad_out = {{"y", MaceTensor({3}, small)}};
  ExpectError(engine->Run(Inputs(), &bad_out), MaceStatus::MACE_INVALID_ARGS, "buffer holds 3");
  // The element type is checked as well as the shape.
  std::shared_ptr<void> ints(new int32_t[18], std::default_delete<int32_t[]>());
  ExpectError(engine->Run({{"x", MaceTensor({1, 2, 3, 3}, ints, TensorDataType::INT32)}}, &outputs),
              MaceStatus::MACE_INVALID_ARGS, "input 'x' is int32 but the model expects float32");
  std::shared_ptr<void> bytes(new uint8_t[18], std::default_delete<uint8_t[]>());
  std::map<std::string, MaceTensor> byte_out = {
      {"y", MaceTensor({1, 2, 3, 3}, bytes, TensorDataType::UINT8)}};
  ExpectError(engine->Run(Inputs(), &byte_out), MaceStatus::MACE_INVALID_ARGS,
              "output 'y' buffer is uint8 but the output is float32");
}

// "T" names the kernel's data type; anything but an int naming a DataType
// is refused, and a valid one is not an unknown argument.
TEST(EngineBadInputTest, KernelDataTypeArgument) {
  for (const bool valid : {true, false}) {
    TinyModel model;
    Argument* type = model.net.mutable_op(0)->add_arg();
    type->set_name("T");
    type->set_i(valid ? DT_FLOAT : 99);
    std::shared_ptr<MaceEngine> engine;
    const MaceStatus status = model.Create(&engine);
    if (valid) {
      EXPECT_TRUE(status.ok()) << status.ToString();
    } else {
      ExpectError(status, MaceStatus::MACE_INVALID_ARGS,
                  "Conv2D 'conv': argument 'T' must be an int naming a DataType");
    }
  }
}

// A net whose data type has no kernels (no int8 Conv2D on the CPU) is
// refused, naming the type, instead of running float kernels on it.
TEST(EngineBadInputTest, NetDataTypeWithoutKernels) {
  TinyModel model;
  model.net.set_data_type(DT_INT8);
  std::shared_ptr<MaceEngine> engine;
  ExpectError(model.Create(&engine), MaceStatus::MACE_UNSUPPORTED, "no int8 kernel for CPU");
}

// ArgMax gives int32 indices: the app reads them as an int32 MaceTensor.
TEST(EngineTest, IntegerOutputsReachTheApp) {
  TinyModel model = BareModel();
  model.net.mutable_output_info(0)->set_data_type(DT_INT32);
  OperatorDef* argmax = model.AddOp("ArgMax", "argmax", {"x"}, "y");
  Argument* axis = argmax->add_arg();
  axis->set_name("axis");
  axis->set_i(1);
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  std::map<std::string, MaceTensor> outputs;
  ASSERT_TRUE(engine->Run(Inputs(), &outputs).ok());
  const MaceTensor& y = outputs.at("y");
  EXPECT_EQ(y.data_type(), TensorDataType::INT32);
  EXPECT_EQ(y.data(), nullptr);  // not float data
  EXPECT_EQ(y.shape(), std::vector<int64_t>({1, 1, 3, 3}));
  const std::vector<float> x = Input();
  const int32_t* indices = static_cast<const int32_t*>(y.raw_data().get());
  for (int p = 0; p < 9; ++p) EXPECT_EQ(indices[p], x[9 + p] > x[p] ? 1 : 0) << p;
}

TEST(EngineBadInputTest, UnavailableRuntimeIsReported) {
  TinyModel model;
  std::shared_ptr<MaceEngine> engine;
  ExpectError(model.Create(&engine, MaceEngineConfig(DeviceType::HEXAGON)),
              MaceStatus::MACE_UNSUPPORTED, "Hexagon");
}

class ScaleByArg : public CustomOp {
 public:
  MaceStatus Prepare(CustomOpContext* context) override {
    if (context->InputCount() != 1) return MaceStatus(MaceStatus::MACE_INVALID_ARGS, "one input");
    return context->SetOutputShape(0, context->InputShape(0));
  }
  MaceStatus Run(CustomOpContext* context) override {
    const float factor = context->GetFloatArg("factor", 1.f);
    int64_t count = 1;
    for (int64_t d : context->InputShape(0)) count *= d;
    for (int64_t i = 0; i < count; ++i) {
      context->OutputData(0)[i] = context->InputData(0)[i] * factor;
    }
    return MaceStatus();
  }
};

TEST(EngineTest, CustomOpFromTheApp) {
  TinyModel model;
  model.net.mutable_op(1)->set_type("ScaleByArg");
  Argument* factor = model.net.mutable_op(1)->add_arg();
  factor->set_name("factor");
  factor->set_f(2.f);
  MaceEngineConfig config;
  ASSERT_TRUE(config
                  .RegisterCustomOp("ScaleByArg",
                                    [] { return std::unique_ptr<CustomOp>(new ScaleByArg()); })
                  .ok());
  EXPECT_FALSE(config.RegisterCustomOp("ScaleByArg", nullptr).ok());
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status = model.Create(&engine, config);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::map<std::string, MaceTensor> outputs;
  ASSERT_TRUE(engine->Run(Inputs(), &outputs).ok());
  const std::vector<float> x = Input();
  const float c0 = std::max(0.f, x[0] + 2.f * x[9] + 0.5f);
  EXPECT_FLOAT_EQ(outputs["y"].data().get()[0], 2.f * c0 + x[0]);

  MaceEngineConfig clash;
  ASSERT_TRUE(
      clash.RegisterCustomOp("Conv2D", [] { return std::unique_ptr<CustomOp>(new ScaleByArg()); })
          .ok());
  ExpectError(model.Create(&engine, clash), MaceStatus::MACE_INVALID_ARGS, "built-in op");
}

// A custom op that throws, in Prepare or in its first Run, as app code may;
// later runs copy the input.
class Throws : public CustomOp {
 public:
  explicit Throws(bool in_prepare) : in_prepare_(in_prepare) {}
  MaceStatus Prepare(CustomOpContext* context) override {
    if (in_prepare_) throw std::bad_alloc();
    return context->SetOutputShape(0, context->InputShape(0));
  }
  MaceStatus Run(CustomOpContext* context) override {
    if (runs_++ == 0) throw std::runtime_error("the app's own failure");
    std::copy(context->InputData(0), context->InputData(0) + 18, context->OutputData(0));
    return MaceStatus();
  }

 private:
  bool in_prepare_;
  int runs_ = 0;
};

TEST(EngineBadInputTest, ExceptionsFromOpsBecomeStatuses) {
  TinyModel model;
  model.net.mutable_op(1)->set_type("Throws");
  for (const bool in_prepare : {true, false}) {
    MaceEngineConfig config;
    ASSERT_TRUE(config
                    .RegisterCustomOp(
                        "Throws",
                        [in_prepare] { return std::unique_ptr<CustomOp>(new Throws(in_prepare)); })
                    .ok());
    std::shared_ptr<MaceEngine> engine;
    const MaceStatus created = model.Create(&engine, config);
    if (in_prepare) {
      // The op is named, with its index and type.
      ExpectError(created, MaceStatus::MACE_OUT_OF_RESOURCES, "op #1 'id' (Throws): out of memory");
      continue;
    }
    ASSERT_TRUE(created.ok()) << created.ToString();
    std::map<std::string, MaceTensor> outputs;
    ExpectError(engine->Run(Inputs(), &outputs), MaceStatus::MACE_RUNTIME_ERROR,
                "the app's own failure");
    // The engine runs again after the failed run, and gets the model's answer.
    const MaceStatus again = engine->Run(Inputs(), &outputs);
    ASSERT_TRUE(again.ok()) << again.ToString();
    const std::vector<float> expected = Expected();
    for (int i = 0; i < 18; ++i) EXPECT_FLOAT_EQ(outputs["y"].data().get()[i], expected[i]) << i;
  }
}

TEST(EngineTest, MemoryReportAndAliasing) {
  TinyModel model;
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  MemoryReport report;
  ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
  EXPECT_EQ(report.weights_bytes, 6 * 4);
  EXPECT_GE(report.arena_bytes, report.lower_bound_bytes);
  EXPECT_GE(report.naive_bytes, report.arena_bytes);
  bool identity_aliased = false;
  for (const TensorPlacement& t : report.tensors) {
    if (t.name == "i") identity_aliased = t.alias_of == "c";
  }
  EXPECT_TRUE(identity_aliased);

  MaceEngineConfig debug;
  debug.SetPreserveIntermediates(true);
  ASSERT_TRUE(model.Create(&engine, debug).ok());
  ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
  for (const TensorPlacement& t : report.tensors) EXPECT_TRUE(t.alias_of.empty()) << t.name;
}

TEST(EngineTest, EveryMemoryStrategyGivesTheSameOutputs) {
  TinyModel model;
  const std::vector<float> expected = Expected();
  for (MemoryStrategy strategy :
       {MemoryStrategy::NAIVE, MemoryStrategy::EQUALITY, MemoryStrategy::GREEDY_IN_ORDER,
        MemoryStrategy::GREEDY_BY_BREADTH, MemoryStrategy::GREEDY_BY_SIZE,
        MemoryStrategy::GREEDY_BEST, MemoryStrategy::MINCOSTFLOW, MemoryStrategy::OPTIMAL}) {
    MaceEngineConfig config;
    config.SetMemoryStrategy(strategy);
    std::shared_ptr<MaceEngine> engine;
    ASSERT_TRUE(model.Create(&engine, config).ok()) << static_cast<int>(strategy);
    std::map<std::string, MaceTensor> outputs;
    ASSERT_TRUE(engine->Run(Inputs(), &outputs).ok());
    for (int i = 0; i < 18; ++i) {
      EXPECT_FLOAT_EQ(outputs.at("y").data().get()[i], expected[i])
          << "strategy " << static_cast<int>(strategy) << " element " << i;
    }
    MemoryReport report;
    ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
    EXPECT_GE(report.arena_bytes, report.lower_bound_bytes);
  }
}

TEST(EngineTest, DefaultPlanReachesTheLowerBoundOnAChain) {
  // x -> Conv -> Conv -> Conv -> Conv -> y, tensors of equal size. The input
  // is kept for the whole run and at most two intermediates are live at once,
  // so a good plan needs exactly three slots: the lower bound.
  NetDef net;
  InputOutputInfo* input = net.add_input_info();
  input->set_name("x");
  for (int64_t d : {1, 2, 4, 4}) input->add_dims(d);
  net.add_output_info()->set_name("y");
  TinyModel helper;
  helper.net = net;
  helper.AddWeight("w", {2, 2, 1, 1}, {1.f, 0.f, 0.f, 1.f});
  helper.AddOp("Conv2D", "c1", {"x", "w"}, "a");
  helper.AddOp("Conv2D", "c2", {"a", "w"}, "b");
  helper.AddOp("Conv2D", "c3", {"b", "w"}, "c");
  helper.AddOp("Conv2D", "c4", {"c", "w"}, "y");
  helper.net.mutable_output_info(0)->set_name("y");
  const std::string graph = helper.Graph();
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(
      CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()), graph.size(),
                                reinterpret_cast<const unsigned char*>(helper.data.data()),
                                helper.data.size(), {"x"}, {"y"}, MaceEngineConfig(), &engine)
          .ok());
  MemoryReport report;
  ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
  EXPECT_EQ(MaceEngineConfig().memory_strategy(), MemoryStrategy::OPTIMAL);
  EXPECT_EQ(MaceEngineConfig().memory_plan_time_limit_ms(), 10);
  EXPECT_EQ(report.strategy, "optimal");
  EXPECT_EQ(report.arena_bytes, report.lower_bound_bytes);
  EXPECT_LT(report.arena_bytes, report.naive_bytes);
}

TEST(EngineTest, InputsAreReadFromTheAppsBuffers) {
  // x -> Conv -> Conv -> Conv -> y with identity filters. x is read where
  // the app keeps it, preserved or not: the arena holds two tensors either
  // way, and the output is unchanged on every run.
  TinyModel model = BareModel();
  model.AddWeight("w", {2, 2, 1, 1}, {1.f, 0.f, 0.f, 1.f});
  model.AddOp("Conv2D", "c1", {"x", "w"}, "a");
  model.AddOp("Conv2D", "c2", {"a", "w"}, "b");
  model.AddOp("Conv2D", "c3", {"b", "w"}, "y");
  int64_t arena[2] = {0, 0};
  for (bool preserve : {true, false}) {
    MaceEngineConfig config;
    config.SetPreserveInputs(preserve);
    EXPECT_EQ(config.preserve_inputs(), preserve);
    std::shared_ptr<MaceEngine> engine;
    ASSERT_TRUE(model.Create(&engine, config).ok());
    MemoryReport report;
    ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
    EXPECT_EQ(report.arena_bytes, report.lower_bound_bytes) << preserve;
    EXPECT_EQ(report.app_input_bytes, 72) << preserve;
    for (const TensorPlacement& t : report.tensors) EXPECT_NE(t.name, "x") << preserve;
    arena[preserve ? 0 : 1] = report.arena_bytes;
    for (int round = 0; round < 2; ++round) {
      std::map<std::string, MaceTensor> outputs;
      ASSERT_TRUE(engine->Run(Inputs(), &outputs).ok());
      for (int i = 0; i < 18; ++i) {
        EXPECT_EQ(outputs.at("y").data().get()[i], Input()[i]) << preserve << " " << i;
      }
    }
  }
  // Each tensor is 72 bytes, 128 after the arena's 64-byte alignment.
  EXPECT_EQ(arena[0], 2 * 128);
  EXPECT_EQ(arena[1], 2 * 128);
}

// A fire-module-like graph: two convs of x concatenated along channels, one
// of them also read before the concat, then that concat concatenated again.
// The first concat's inputs live inside its output (its producers write in
// place); the second cannot nest it and copies.
TEST(EngineTest, ConcatInputsArePlacedInsideTheOutput) {
  TinyModel model = BareModel();
  model.AddWeight("w1", {2, 2, 1, 1}, {1.f, 2.f, -1.f, 0.5f});
  model.AddWeight("w2", {3, 2, 1, 1}, {0.5f, 0.f, -2.f, 1.f, 1.f, 1.f});
  model.AddOp("Conv2D", "ca", {"x", "w1"}, "a");
  OperatorDef* conv_b = model.AddOp("Conv2D", "cb", {"x", "w2"}, "b");
  Argument* act = conv_b->add_arg();
  act->set_name("activation");
  act->set_s("RELU");
  Argument* type = model.AddOp("Eltwise", "sum", {"a", "x"}, "s")->add_arg();
  type->set_name("type");
  type->set_i(0);
  model.AddOp("Concat", "cat1", {"a", "b"}, "cat");
  model.AddOp("Concat", "cat2", {"cat", "s"}, "y");
  const std::vector<float> x = Input();
  std::vector<float> expected(7 * 9);
  for (int p = 0; p < 9; ++p) {
    const float x0 = x[p], x1 = x[9 + p];
    const float a[2] = {1.f * x0 + 2.f * x1, -1.f * x0 + 0.5f * x1};
    const float b[3] = {std::max(0.f, 0.5f * x0), std::max(0.f, -2.f * x0 + x1),
                        std::max(0.f, x0 + x1)};
    const float channels[7] = {a[0], a[1], b[0], b[1], b[2], a[0] + x0, a[1] + x1};
    for (int c = 0; c < 7; ++c) expected[c * 9 + p] = channels[c];
  }
  for (bool preserve : {false, true}) {
    for (MemoryStrategy strategy : {MemoryStrategy::GREEDY_BY_SIZE, MemoryStrategy::NAIVE,
                                    MemoryStrategy::GREEDY_IN_ORDER, MemoryStrategy::OPTIMAL}) {
      SCOPED_TRACE(::testing::Message()
                   << "preserve " << preserve << " strategy " << static_cast<int>(strategy));
      MaceEngineConfig config;
      config.SetMemoryStrategy(strategy);
      config.SetPreserveIntermediates(preserve);
      std::shared_ptr<MaceEngine> engine;
      const MaceStatus created = model.Create(&engine, config);
      ASSERT_TRUE(created.ok()) << created.information();
      for (int round = 0; round < 2; ++round) {
        std::map<std::string, MaceTensor> outputs;
        ASSERT_TRUE(engine->Run(Inputs(), &outputs).ok());
        ASSERT_EQ(outputs.at("y").shape(), (std::vector<int64_t>{1, 7, 3, 3}));
        for (int i = 0; i < 63; ++i) {
          EXPECT_FLOAT_EQ(outputs.at("y").data().get()[i], expected[i]) << "element " << i;
        }
      }
      MemoryReport report;
      ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
      std::map<std::string, std::string> alias_of;
      for (const TensorPlacement& t : report.tensors) alias_of[t.name] = t.alias_of;
      EXPECT_EQ(alias_of["a"], preserve ? "" : "cat");
      EXPECT_EQ(alias_of["b"], preserve ? "" : "cat");
      EXPECT_EQ(alias_of["s"], "");
      EXPECT_EQ(alias_of["cat"], "");
    }
  }
}

TEST(EngineTest, OfflinePlanInTheModelIsHonoured) {
  TinyModel model;
  // Conv's output "c" goes at byte 1024 of the arena, as an offline planner
  // decided; the engine places everything else around it.
  model.net.mutable_op(0)->add_output_mem_offset(1024);
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  MemoryReport report;
  ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
  bool found = false;
  for (const TensorPlacement& t : report.tensors) {
    if (t.name == "c") {
      found = true;
      EXPECT_EQ(t.offset, 1024);
    }
  }
  EXPECT_TRUE(found);
  std::map<std::string, MaceTensor> outputs;
  ASSERT_TRUE(engine->Run(Inputs(), &outputs).ok());
  EXPECT_FLOAT_EQ(outputs.at("y").data().get()[0], Expected()[0]);

  // An offset that breaks the arena alignment is refused with a clear error.
  model.net.mutable_op(0)->set_output_mem_offset(0, 100);
  const MaceStatus status = model.Create(&engine);
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("offset 100"), std::string::npos) << status.information();
}

// An offline offset near 2^63 is a multiple of every alignment; offset + size
// used to wrap, the arena came out tiny and the input copy wrote far past it.
TEST(EngineBadInputTest, OfflineOffsetsPastAnyArenaAreRefused) {
  for (int64_t offset :
       {(int64_t{1} << 62), std::numeric_limits<int64_t>::max() / 64 * 64, (int64_t{1} << 41)}) {
    TinyModel model;
    model.net.mutable_op(0)->add_output_mem_offset(offset);
    std::shared_ptr<MaceEngine> engine;
    const MaceStatus status = model.Create(&engine);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << offset;
    EXPECT_NE(status.information().find("beyond any arena"), std::string::npos)
        << status.information();
    EXPECT_EQ(engine, nullptr);
  }
}

// Input shapes whose element count overflows int64 (each dimension alone is
// in range) are refused when the model is loaded.
TEST(EngineBadInputTest, InputShapeWhoseProductOverflows) {
  TinyModel model = BareModel();
  InputOutputInfo* input = model.net.mutable_input_info(0);
  input->clear_dims();
  for (int64_t d : {2147483647, 2147483647, 2147483647, 2147483647}) input->add_dims(d);
  model.AddOp("Identity", "id", {"x"}, "y");
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = model.Create(&engine);
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("model input 'x'"), std::string::npos)
      << status.information();
}

// An argument in the wrong field, or under a name no op reads, used to fall
// back to its default and the model ran without its activation.
TEST(EngineBadInputTest, ArgumentsOfTheWrongTypeOrNameAreRefused) {
  std::shared_ptr<MaceEngine> engine;
  TinyModel wrong_type;
  Argument* activation = wrong_type.net.mutable_op(0)->mutable_arg(0);
  activation->clear_s();
  activation->set_i(6);
  ExpectError(wrong_type.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "Conv2D 'conv': argument 'activation' must be a string, got an int");

  // One flipped byte in the serialized graph renames the argument.
  TinyModel model;
  std::string graph = model.Graph();
  const size_t at = graph.find("activation");
  ASSERT_NE(at, std::string::npos);
  graph[at + 6] = '[';
  const MaceStatus flipped =
      CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()), graph.size(),
                                reinterpret_cast<const unsigned char*>(model.data.data()),
                                model.data.size(), {"x"}, {"y"}, MaceEngineConfig(), &engine);
  ExpectError(flipped, MaceStatus::MACE_INVALID_ARGS,
              "Conv2D 'conv': unknown argument 'activa[ion'");
  EXPECT_EQ(engine, nullptr);
}

TEST(EngineBadInputTest, CustomOpArgumentOfTheWrongTypeFailsItsRun) {
  TinyModel model;
  model.net.mutable_op(1)->set_type("ScaleByArg");
  Argument* factor = model.net.mutable_op(1)->add_arg();
  factor->set_name("factor");
  factor->set_i(2);
  MaceEngineConfig config;
  ASSERT_TRUE(config
                  .RegisterCustomOp("ScaleByArg",
                                    [] { return std::unique_ptr<CustomOp>(new ScaleByArg()); })
                  .ok());
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = model.Create(&engine, config);
  ASSERT_TRUE(created.ok()) << created.ToString();
  std::map<std::string, MaceTensor> outputs;
  ExpectError(engine->Run(Inputs(), &outputs), MaceStatus::MACE_INVALID_ARGS,
              "ScaleByArg 'id': argument 'factor' must be a float, got an int");
}

TEST(EngineBadInputTest, OutputInfoMustMatchWhatTheModelComputes) {
  std::shared_ptr<MaceEngine> engine;
  TinyModel declared;
  for (int64_t d : {1, 2, 3, 3}) declared.net.mutable_output_info(0)->add_dims(d);
  const MaceStatus ok = declared.Create(&engine);
  EXPECT_TRUE(ok.ok()) << ok.ToString();

  TinyModel shape;
  for (int64_t d : {1, 2, 9}) shape.net.mutable_output_info(0)->add_dims(d);
  ExpectError(shape.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "model output 'y' is declared with shape [1,2,9] but the model computes [1,2,3,3]");

  TinyModel type;
  type.net.mutable_output_info(0)->set_data_type(DT_INT32);
  ExpectError(type.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "model output 'y' is declared int32 but the model computes float32");

  TinyModel missing;
  missing.net.add_output_info()->set_name("nowhere");
  ExpectError(missing.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "model output 'nowhere' is not produced by any op of the model");
}

TEST(EngineBadInputTest, DataFormatMustBeADataFormatValue) {
  std::shared_ptr<MaceEngine> engine;
  TinyModel nhwc;
  nhwc.net.mutable_input_info(0)->set_data_format(static_cast<int>(DataFormat::NHWC));
  const MaceStatus ok = nhwc.Create(&engine);
  EXPECT_TRUE(ok.ok()) << ok.ToString();

  TinyModel input;
  input.net.mutable_input_info(0)->set_data_format(99);
  ExpectError(input.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "model input 'x' has data_format 99, which is not a DataFormat value");

  TinyModel output;
  output.net.mutable_output_info(0)->set_data_format(-1);
  ExpectError(output.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "model output 'y' has data_format -1, which is not a DataFormat value");
}

TEST(EngineBadInputTest, OfflineOffsetsBeyondAnOpsOutputsAreRefused) {
  TinyModel model;
  model.net.mutable_op(0)->add_output_mem_offset(0);
  model.net.mutable_op(0)->add_output_mem_offset(1024);
  std::shared_ptr<MaceEngine> engine;
  ExpectError(model.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "Conv2D 'conv': 2 output_mem_offset entries for 1 outputs");
}

// A flipped bit in a field's tag makes protobuf keep the field aside as
// unknown; the op used to run without it (here: without its activation).
TEST(EngineBadInputTest, FieldsTheEngineDoesNotKnowAreRefused) {
  std::shared_ptr<MaceEngine> engine;
  TinyModel in_op;
  // Field 14 of OperatorDef (unused), a varint: tag (14 << 3) | 0.
  std::string op_bytes = in_op.net.op(0).SerializeAsString() + std::string("\x70\x01", 2);
  ASSERT_TRUE(in_op.net.mutable_op(0)->ParseFromString(op_bytes));
  ExpectError(in_op.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "field 14 in op 'conv'");

  TinyModel in_arg;
  std::string arg_bytes =
      in_arg.net.op(0).arg(0).SerializeAsString() + std::string("\x48\x02", 2);  // field 9
  ASSERT_TRUE(in_arg.net.mutable_op(0)->mutable_arg(0)->ParseFromString(arg_bytes));
  ExpectError(in_arg.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "field 9 in op 'conv' argument 'activation'");

  // At the top level, after the whole graph.
  TinyModel model;
  const std::string graph = model.Graph() + std::string("\xf8\x01\x01", 3);  // field 31
  ExpectError(CreateMaceEngineFromProto(reinterpret_cast<const unsigned char*>(graph.data()),
                                        graph.size(),
                                        reinterpret_cast<const unsigned char*>(model.data.data()),
                                        model.data.size(), {"x"}, {"y"}, MaceEngineConfig(),
                                        &engine),
              MaceStatus::MACE_INVALID_ARGS, "field 31 in the NetDef");
  EXPECT_EQ(engine, nullptr);
}

// The weights checksum covers the blob, not where each weight is in it: an
// offset changed to another weight's used to run with the wrong weights.
TEST(EngineBadInputTest, WeightsSharingBytesAreRefused) {
  TinyModel model;
  model.net.mutable_tensors(1)->set_offset(0);
  std::shared_ptr<MaceEngine> engine;
  ExpectError(model.Create(&engine), MaceStatus::MACE_INVALID_ARGS,
              "weight 'w' at offset 0 overlaps weight 'b' at [0, +8)");
}

TEST(EngineBadInputTest, MemoryLimitRefusesLargerPlans) {
  TinyModel model;
  std::shared_ptr<MaceEngine> engine;
  MaceEngineConfig tight;
  tight.SetMemoryLimit(64);
  ExpectError(model.Create(&engine, tight), MaceStatus::MACE_OUT_OF_RESOURCES,
              "more than the engine's memory limit of 64 bytes");
  EXPECT_EQ(engine, nullptr);
  MaceEngineConfig roomy;
  roomy.SetMemoryLimit(1 << 20);
  EXPECT_EQ(roomy.memory_limit(), 1 << 20);
  ASSERT_TRUE(model.Create(&engine, roomy).ok());
  std::map<std::string, MaceTensor> outputs;
  EXPECT_TRUE(engine->Run(Inputs(), &outputs).ok());
}

TEST(MaceTensorTest, SizeOfAHugeOrNegativeShapeIsMinusOne) {
  EXPECT_EQ(MaceTensor({2, 3}, nullptr).size(), 6);
  EXPECT_EQ(MaceTensor({}, nullptr).size(), 1);
  EXPECT_EQ(MaceTensor({2147483648, 4611686018427387904}, nullptr).size(), -1);
  EXPECT_EQ(MaceTensor({2, -3}, nullptr).size(), -1);
  // A run with such a shape is refused, not copied.
  TinyModel model;
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine).ok());
  std::map<std::string, MaceTensor> outputs;
  EXPECT_EQ(engine->Run(Inputs({1, 2, 3, 4611686018427387904}), &outputs).code(),
            MaceStatus::MACE_INVALID_ARGS);
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

TEST(EngineTest, OutputObserverSeesEachOpOutputAfterItRuns) {
  TinyModel model;
  std::vector<std::string> names;
  std::map<std::string, std::vector<float>> values;
  MaceEngineConfig config;
  config.SetOutputObserver(
      [&](const std::string& name, const std::vector<int64_t>& shape, const float* data) {
        names.push_back(name);
        int64_t count = 1;
        for (int64_t d : shape) count *= d;
        values[name].assign(data, data + count);
      });
  std::shared_ptr<MaceEngine> engine;
  ASSERT_TRUE(model.Create(&engine, config).ok());
  std::map<std::string, MaceTensor> outputs;
  ASSERT_TRUE(engine->Run(Inputs(), &outputs).ok());
  // The Identity aliases the convolution's output; each is seen in turn.
  EXPECT_EQ(names, (std::vector<std::string>{"c", "i", "y"}));
  const std::vector<float> x = Input();
  const std::vector<float> expected = Expected();
  for (int p = 0; p < 9; ++p) {
    EXPECT_FLOAT_EQ(values["c"][p], expected[p] - x[p]) << p;
    EXPECT_FLOAT_EQ(values["i"][9 + p], expected[9 + p] - x[9 + p]) << p;
  }
  for (int i = 0; i < 18; ++i) EXPECT_FLOAT_EQ(values["y"][i], expected[i]) << i;
  // A second run is observed again; an engine without an observer is not.
  ASSERT_TRUE(engine->Run(Inputs(), &outputs).ok());
  EXPECT_EQ(names.size(), 6u);
  std::shared_ptr<MaceEngine> plain;
  ASSERT_TRUE(model.Create(&plain).ok());
  ASSERT_TRUE(plain->Run(Inputs(), &outputs).ok());
  EXPECT_EQ(names.size(), 6u);
}

}  // namespace
}  // namespace mace
