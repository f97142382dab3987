// State tensors (NetDef.state_tensors, docs/how-to/streaming_state.md): a
// value kept from one Run to the next, written by Assign, restored by
// ResetState, never planned into an arena, and bad models refused at
// creation.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"

namespace mace {
namespace {

using testing::ModelBuilder;

constexpr int kWidth = 4;

// A state `name` [1, kWidth] with initial `values` in the blob (empty:
// zeros, data_size 0).
ConstTensor* AddState(ModelBuilder* model, const std::string& name,
                      const std::vector<float>& values, DataType dtype = DT_FLOAT) {
  ConstTensor* state = model->net.add_state_tensors();
  state->set_name(name);
  state->add_dims(1);
  state->add_dims(kWidth);
  state->set_data_type(dtype);
  if (!values.empty()) {
    model->data.resize((model->data.size() + 63) / 64 * 64, '\0');
    state->set_offset(model->data.size());
    state->set_data_size(values.size());
    model->data.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  }
  return state;
}

OperatorDef* AddSum(ModelBuilder* model, const std::string& name, const std::string& a,
                    const std::string& b, const std::string& out) {
  OperatorDef* op = model->AddOp("Eltwise", name, {a, b}, out);
  ModelBuilder::SetInt(op, "type", 0);
  return op;
}

OperatorDef* AddAssign(ModelBuilder* model, const std::string& name, const std::string& state,
                       const std::string& value) {
  OperatorDef* op = model->net.add_op();
  op->set_type("Assign");
  op->set_name(name);
  op->add_input(state);
  op->add_input(value);
  return op;
}

// x [1, kWidth] float; outputs listed by the caller.
ModelBuilder BareModel(const std::vector<std::string>& outputs) {
  ModelBuilder model;
  InputOutputInfo* input = model.net.add_input_info();
  input->set_name("x");
  input->add_dims(1);
  input->add_dims(kWidth);
  input->set_data_format(0);
  for (const std::string& name : outputs) {
    InputOutputInfo* info = model.net.add_output_info();
    info->set_name(name);
    info->set_data_format(0);
  }
  return model;
}

// Two accumulators: acc = x + s (s starts at kInitial) and count = x + z (z
// starts at zeros); each Run stores its sum back into its state.
const std::vector<float> kInitial = {1.f, -2.f, 0.5f, 10.f};

ModelBuilder Accumulators() {
  ModelBuilder model = BareModel({"acc", "count"});
  AddState(&model, "s", kInitial);
  AddState(&model, "z", {});
  AddSum(&model, "add_s", "x", "s", "acc");
  AddSum(&model, "add_z", "z", "x", "count");
  AddAssign(&model, "store_s", "s", "acc");
  AddAssign(&model, "store_z", "z", "count");
  return model;
}

std::shared_ptr<MaceEngine> Create(const ModelBuilder& model,
                                   const std::vector<std::string>& outputs,
                                   const MaceEngineConfig& config = MaceEngineConfig()) {
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = model.CreateEngine({"x"}, outputs, config, &engine);
  EXPECT_TRUE(status.ok()) << status.information();
  return status.ok() ? engine : nullptr;
}

std::map<std::string, MaceTensor> RunOnce(MaceEngine* engine, const std::vector<float>& x) {
  std::shared_ptr<float> data(new float[kWidth], std::default_delete<float[]>());
  std::copy(x.begin(), x.end(), data.get());
  const std::map<std::string, MaceTensor> inputs = {{"x", MaceTensor({1, kWidth}, data)}};
  std::map<std::string, MaceTensor> outputs;
  const MaceStatus status = engine->Run(inputs, &outputs);
  EXPECT_TRUE(status.ok()) << status.information();
  return outputs;
}

std::vector<float> Values(const MaceTensor& tensor) {
  const float* data = tensor.data().get();
  int64_t count = 1;
  for (int64_t d : tensor.shape()) count *= d;
  return std::vector<float>(data, data + count);
}

// The plain reference: each run adds x to both states.
void ExpectRuns(MaceEngine* engine, int runs, std::vector<float>* s, std::vector<float>* z) {
  for (int run = 0; run < runs; ++run) {
    const std::vector<float> x = {0.25f * run, 1.f, -1.f, 3.f - run};
    for (int i = 0; i < kWidth; ++i) (*s)[i] += x[i], (*z)[i] += x[i];
    const auto outputs = RunOnce(engine, x);
    ASSERT_EQ(outputs.size(), 2u);
    EXPECT_EQ(Values(outputs.at("acc")), *s) << "run " << run;
    EXPECT_EQ(Values(outputs.at("count")), *z) << "run " << run;
  }
}

TEST(StateTest, StatePersistsAcrossRunsAndResetRestoresIt) {
  for (MemoryStrategy strategy :
       {MemoryStrategy::NAIVE, MemoryStrategy::GREEDY_BY_SIZE, MemoryStrategy::OPTIMAL}) {
    SCOPED_TRACE(static_cast<int>(strategy));
    MaceEngineConfig config;
    config.SetMemoryStrategy(strategy);
    auto engine = Create(Accumulators(), {"acc", "count"}, config);
    ASSERT_NE(engine, nullptr);
    std::vector<float> s = kInitial, z(kWidth, 0.f);
    ExpectRuns(engine.get(), 5, &s, &z);
    ASSERT_TRUE(engine->ResetState().ok());
    s = kInitial, z.assign(kWidth, 0.f);
    ExpectRuns(engine.get(), 3, &s, &z);
  }
}

TEST(StateTest, TwoEnginesKeepSeparateState) {
  const ModelBuilder model = Accumulators();
  auto first = Create(model, {"acc", "count"});
  auto second = Create(model, {"acc", "count"});
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  std::vector<float> s = kInitial, z(kWidth, 0.f);
  ExpectRuns(first.get(), 3, &s, &z);
  s = kInitial, z.assign(kWidth, 0.f);
  ExpectRuns(second.get(), 1, &s, &z);
}

// Engines of one sequential group share one region of the context's CPU
// arena; their states must stay apart from it and from each other.
TEST(StateTest, EnginesSharingAnArenaKeepTheirOwnState) {
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(1, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  const ModelBuilder model = Accumulators();
  std::vector<std::shared_ptr<MaceEngine>> engines;
  for (int i = 0; i < 2; ++i) {
    MaceEngineConfig config;
    config.SetContext(context);
    ASSERT_TRUE(config.SetSequentialGroup(0).ok());
    engines.push_back(Create(model, {"acc", "count"}, config));
    ASSERT_NE(engines.back(), nullptr);
  }
  std::vector<std::vector<float>> s(2, kInitial), z(2, std::vector<float>(kWidth, 0.f));
  for (int round = 0; round < 3; ++round) {
    ExpectRuns(engines[0].get(), 2, &s[0], &z[0]);
    ExpectRuns(engines[1].get(), 1, &s[1], &z[1]);
  }
}

TEST(StateTest, ModelWithoutStateResets) {
  ModelBuilder model = BareModel({"y"});
  AddSum(&model, "add", "x", "x", "y");
  auto engine = Create(model, {"y"});
  ASSERT_NE(engine, nullptr);
  EXPECT_TRUE(engine->ResetState().ok());
  MemoryReport report;
  ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
  EXPECT_EQ(report.state_bytes, 0);
}

// A reader that may work in place (Activation) reads the state last; the
// planner must not hand the state's bytes to its output, and no state is in
// the arena plan.
TEST(StateTest, PlannerNeverSharesAStateBuffer) {
  ModelBuilder model = BareModel({"acc", "r"});
  AddState(&model, "s", kInitial);
  AddSum(&model, "add", "x", "s", "acc");
  AddAssign(&model, "store", "s", "acc");
  OperatorDef* relu = model.AddOp("Activation", "relu", {"s"}, "r");
  ModelBuilder::SetString(relu, "activation", "RELU");
  for (bool preserve : {false, true}) {
    MaceEngineConfig config;
    config.SetPreserveIntermediates(preserve);
    auto engine = Create(model, {"acc", "r"}, config);
    ASSERT_NE(engine, nullptr);
    MemoryReport report;
    ASSERT_TRUE(engine->GetMemoryReport(&report).ok());
    EXPECT_EQ(report.state_bytes, 2 * kWidth * static_cast<int64_t>(sizeof(float)));
    for (const auto& tensor : report.tensors) {
      EXPECT_NE(tensor.name, "s");
      EXPECT_NE(tensor.alias_of, "s") << tensor.name;
    }
    std::vector<float> s = kInitial;
    for (int run = 0; run < 4; ++run) {
      const std::vector<float> x = {-3.f, 1.f, 2.f * run, -0.5f};
      for (int i = 0; i < kWidth; ++i) s[i] += x[i];
      const auto outputs = RunOnce(engine.get(), x);
      std::vector<float> relu_s(kWidth);
      for (int i = 0; i < kWidth; ++i) relu_s[i] = s[i] > 0.f ? s[i] : 0.f;
      EXPECT_EQ(Values(outputs.at("acc")), s) << "run " << run;
      EXPECT_EQ(Values(outputs.at("r")), relu_s) << "run " << run;
    }
  }
}

void ExpectRefused(const ModelBuilder& model, const std::vector<std::string>& outputs,
                   const std::string& needle) {
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus status = model.CreateEngine({"x"}, outputs, MaceEngineConfig(), &engine);
  ASSERT_FALSE(status.ok()) << "expected an error containing: " << needle;
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find(needle), std::string::npos) << status.information();
}

TEST(StateTest, BadModelsAreRefusedAtCreation) {
  {
    SCOPED_TRACE("assign to an intermediate");
    ModelBuilder model = BareModel({"y"});
    AddSum(&model, "add", "x", "x", "y");
    AddSum(&model, "add2", "x", "x", "t");
    AddAssign(&model, "store", "t", "y");
    ExpectRefused(model, {"y"}, "which is not a state tensor");
  }
  {
    SCOPED_TRACE("assign to a weight");
    ModelBuilder model = BareModel({"y"});
    model.AddWeight("w", {1, kWidth}, {1.f, 2.f, 3.f, 4.f});
    AddSum(&model, "add", "x", "w", "y");
    AddAssign(&model, "store", "w", "y");
    ExpectRefused(model, {"y"}, "which is not a state tensor");
  }
  {
    SCOPED_TRACE("shape mismatch");
    ModelBuilder model = BareModel({"y"});
    ConstTensor* state = AddState(&model, "s", {});
    state->set_dims(1, 2);
    state->add_dims(2);
    AddSum(&model, "add", "x", "x", "y");
    AddAssign(&model, "store", "s", "y");
    ExpectRefused(model, {"y"}, "of shape");
  }
  {
    SCOPED_TRACE("dtype mismatch");
    ModelBuilder model = BareModel({"y"});
    AddState(&model, "s", {}, DT_INT32);
    AddSum(&model, "add", "x", "x", "y");
    AddAssign(&model, "store", "s", "y");
    ExpectRefused(model, {"y"}, "int32 state 's'");
  }
  {
    SCOPED_TRACE("offset outside the weights");
    ModelBuilder model = Accumulators();
    model.net.mutable_state_tensors(0)->set_offset(1 << 20);
    ExpectRefused(model, {"acc", "count"}, "bytes at offset 1048576");
  }
  {
    SCOPED_TRACE("negative offset");
    ModelBuilder model = Accumulators();
    model.net.mutable_state_tensors(0)->set_offset(-8);
    ExpectRefused(model, {"acc", "count"}, "bytes at offset -8");
  }
  {
    SCOPED_TRACE("data_size mismatch");
    ModelBuilder model = Accumulators();
    model.net.mutable_state_tensors(0)->set_data_size(3);
    ExpectRefused(model, {"acc", "count"}, "says data_size 3");
  }
  {
    SCOPED_TRACE("bad dimension");
    ModelBuilder model = Accumulators();
    model.net.mutable_state_tensors(1)->set_dims(0, 0);
    ExpectRefused(model, {"acc", "count"}, "invalid dimension 0");
  }
  {
    SCOPED_TRACE("name of a weight");
    ModelBuilder model = Accumulators();
    model.AddWeight("s", {1, kWidth}, {1.f, 2.f, 3.f, 4.f});
    ExpectRefused(model, {"acc", "count"}, "has the name of another tensor");
  }
  {
    SCOPED_TRACE("state as a model output");
    ModelBuilder model = Accumulators();
    model.net.add_output_info()->set_name("s");
    ExpectRefused(model, {"acc", "count", "s"}, "is a state tensor");
  }
  {
    SCOPED_TRACE("Assign with an output");
    ModelBuilder model = Accumulators();
    model.Op("store_s")->add_output("extra");
    ExpectRefused(model, {"acc", "count"}, "needs inputs [state, value] and no outputs");
  }
}

}  // namespace
}  // namespace mace
