// The CPU-only engine with a model-specific registry (//mace/libmace:
// op_set_test, linked with testing/op_set_test_registry.cc, the converter's
// registry for Eltwise and Activation) and the engine with every runtime and
// op (op_set_full_test, the same source): a model of those two ops gives the
// same outputs, checked against the hand-computed values; a model with
// another op fails at engine creation with an error naming it, and a GPU
// engine fails naming the runtime, only in the first.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/op_set.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/model_builder.h"

namespace mace {
namespace {

constexpr int kCount = 8;

// x[1,2,2,2] -> Eltwise SUM with the weight c -> Activation RELU -> y,
// then, with `softmax`, Softmax -> z.
struct SumReluModel : testing::ModelBuilder {
  explicit SumReluModel(bool softmax) {
    net.set_name("sum_relu");
    InputOutputInfo* input = net.add_input_info();
    input->set_name("x");
    for (int64_t d : {1, 2, 2, 2}) input->add_dims(d);
    net.add_output_info()->set_name(softmax ? "z" : "y");
    AddWeight("c", {1, 2, 2, 2}, Offsets());
    OperatorDef* add = AddOp("Eltwise", "add", {"x", "c"}, "s");
    SetInt(add, "type", 0);
    OperatorDef* relu = AddOp("Activation", "relu", {"s"}, "y");
    SetString(relu, "activation", "RELU");
    if (softmax) AddOp("Softmax", "softmax", {"y"}, "z");
  }

  static std::vector<float> Offsets() { return {0.5f, -3.f, 1.f, -0.25f, 2.f, -1.f, 0.f, 4.f}; }
  static float Input(int i) { return 0.75f * i - 2.5f; }
};

std::map<std::string, MaceTensor> Inputs() {
  std::shared_ptr<float> data(new float[kCount], std::default_delete<float[]>());
  for (int i = 0; i < kCount; ++i) data.get()[i] = SumReluModel::Input(i);
  return {{"x", MaceTensor({1, 2, 2, 2}, data)}};
}

TEST(OpSetTest, RunsAModelOfItsOps) {
  SumReluModel model(false);
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status = model.CreateEngine({"x"}, {"y"}, MaceEngineConfig(), &engine);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::map<std::string, MaceTensor> outputs;
  status = engine->Run(Inputs(), &outputs);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> offsets = SumReluModel::Offsets();
  for (int i = 0; i < kCount; ++i) {
    const float expected = std::fmax(0.f, SumReluModel::Input(i) + offsets[i]);
    EXPECT_EQ(outputs["y"].data().get()[i], expected) << i;
  }
}

TEST(OpSetTest, NamesTheOpItLeftOut) {
  SumReluModel model(true);
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status = model.CreateEngine({"x"}, {"z"}, MaceEngineConfig(), &engine);
  if (ops::ModelSpecificOpSet() == nullptr) {
    // Every op is registered: the same model runs.
    ASSERT_TRUE(status.ok()) << status.ToString();
    return;
  }
  ASSERT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED) << status.ToString();
  EXPECT_NE(status.information().find("op #2 'softmax' needs op type 'Softmax'"),
            std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find("deployment 'op_set_test'"), std::string::npos)
      << status.information();
  EXPECT_EQ(engine, nullptr);
}

// y = If(c, then: x + x, else: RELU(x)), its branches of the library's two
// op types. The library's registry leaves control flow out (its models
// have none), so the If is refused like any op type left out; with every op
// the model runs.
struct IfModel : testing::ModelBuilder {
  IfModel() {
    net.set_name("if");
    for (const auto& [name, dims] :
         std::vector<std::pair<std::string, std::vector<int64_t>>>{{"c", {1}}, {"x", {4}}}) {
      InputOutputInfo* input = net.add_input_info();
      input->set_name(name);
      for (int64_t d : dims) input->add_dims(d);
    }
    net.add_output_info()->set_name("y");
    OperatorDef* op = AddOp("If", "if", {"c", "x"}, "y");
    SetInt(op, "then_branch", 0);
    SetInt(op, "else_branch", 1);
    for (int branch = 0; branch < 2; ++branch) {
      NetDef* sub = net.add_subgraphs();
      InputOutputInfo* input = sub->add_input_info();
      input->set_name("x_in");
      input->add_dims(4);
      sub->add_output_info()->set_name("out");
      OperatorDef* body = sub->add_op();
      body->set_name(branch == 0 ? "twice" : "relu");
      body->set_type(branch == 0 ? "Eltwise" : "Activation");
      body->add_input("x_in");
      if (branch == 0) body->add_input("x_in");
      body->add_output("out");
      if (branch == 0) {
        SetInt(body, "type", 0);
      } else {
        SetString(body, "activation", "RELU");
      }
    }
  }
};

TEST(OpSetTest, ControlFlowOnlyWhenRegistered) {
  IfModel model;
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status = model.CreateEngine({"c", "x"}, {"y"}, MaceEngineConfig(), &engine);
  if (ops::ModelSpecificOpSet() != nullptr) {
    ASSERT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED) << status.ToString();
    EXPECT_NE(status.information().find("op #0 'if' needs op type 'If'"), std::string::npos)
        << status.information();
    EXPECT_EQ(engine, nullptr);
    return;
  }
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> x = {1.5f, -2.f, 0.f, 3.f};
  for (float c : {1.f, 0.f}) {
    std::shared_ptr<float> cond(new float[1]{c}, std::default_delete<float[]>());
    std::shared_ptr<float> data(new float[4], std::default_delete<float[]>());
    std::copy(x.begin(), x.end(), data.get());
    std::map<std::string, MaceTensor> outputs;
    status = engine->Run({{"c", MaceTensor({1}, cond)}, {"x", MaceTensor({4}, data)}}, &outputs);
    ASSERT_TRUE(status.ok()) << status.ToString();
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(outputs["y"].data().get()[i], c != 0 ? x[i] + x[i] : std::fmax(0.f, x[i]))
          << "c = " << c << ", " << i;
    }
  }
}

#ifdef MACE_TEST_CPU_ONLY
TEST(OpSetTest, CpuOnlyEngineRefusesOtherDevices) {
  SumReluModel model(false);
  for (DeviceType device : {DeviceType::GPU, DeviceType::HEXAGON}) {
    MaceEngineConfig config(device);
    std::shared_ptr<MaceEngine> engine;
    MaceStatus status = model.CreateEngine({"x"}, {"y"}, config, &engine);
    ASSERT_EQ(status.code(), MaceStatus::MACE_UNSUPPORTED) << status.ToString();
    EXPECT_NE(status.information().find(device == DeviceType::GPU ? "no GPU (OpenCL) runtime"
                                                                  : "no Hexagon DSP runtime"),
              std::string::npos)
        << status.information();
  }
}
#endif

}  // namespace
}  // namespace mace
