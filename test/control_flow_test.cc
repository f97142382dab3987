// If and Loop at run time: subgraphs of the model run as nets of their own.
// The results are checked against plain loops computing the same values,
// and hostile models (bad subgraph indices, recursion, deep nesting, weights
// outside the blob, runaway loops, shapes that change) fail with a clear
// status instead of crashing.
#include <cmath>
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

constexpr int kSum = 0;
constexpr int kSub = 1;
constexpr int kProd = 2;

void AddInfo(google::protobuf::RepeatedPtrField<InputOutputInfo>* infos, const std::string& name,
             const std::vector<int64_t>& dims = {}) {
  InputOutputInfo* info = infos->Add();
  info->set_name(name);
  info->set_data_format(0);
  for (int64_t d : dims) info->add_dims(d);
}

OperatorDef* AddOpTo(NetDef* net, const std::string& type, const std::string& name,
                   const std::vector<std::string>& inputs,
                   const std::vector<std::string>& outputs) {
  OperatorDef* op = net->add_op();
  op->set_type(type);
  op->set_name(name);
  for (const std::string& input : inputs) op->add_input(input);
  for (const std::string& output : outputs) op->add_output(output);
  return op;
}

OperatorDef* AddEltwise(NetDef* net, int type, const std::string& name, const std::string& a,
                        const std::string& b, const std::string& out) {
  OperatorDef* op = AddOpTo(net, "Eltwise", name, {a, b}, {out});
  testing::ModelBuilder::SetInt(op, "type", type);
  return op;
}

// A float weight of `net` (the top graph or a subgraph) in `data`.
ConstTensor* AddWeightTo(NetDef* net, std::string* data, const std::string& name,
                       const std::vector<int64_t>& dims, const std::vector<float>& values) {
  data->resize((data->size() + 63) / 64 * 64, '\0');
  ConstTensor* tensor = net->add_tensors();
  tensor->set_name(name);
  for (int64_t d : dims) tensor->add_dims(d);
  tensor->set_offset(data->size());
  tensor->set_data_size(values.size());
  data->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  return tensor;
}

std::shared_ptr<float> Floats(const std::vector<float>& values) {
  std::shared_ptr<float> data(new float[values.size()], std::default_delete<float[]>());
  std::copy(values.begin(), values.end(), data.get());
  return data;
}

MaceStatus Create(const testing::ModelBuilder& model, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& outputs, std::shared_ptr<MaceEngine>* engine) {
  MaceEngineConfig config(DeviceType::CPU);
  return model.CreateEngine(inputs, outputs, config, engine);
}

void ExpectError(const MaceStatus& status, const std::string& words) {
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.ToString();
  EXPECT_NE(status.information().find(words), std::string::npos) << status.ToString();
}

// y = c != 0 ? x * x : x - two, with `two` a weight of the else branch.
struct IfModel : testing::ModelBuilder {
  IfModel() {
    net.set_name("if");
    AddInfo(net.mutable_input_info(), "c", {1});
    AddInfo(net.mutable_input_info(), "x", {4});
    AddInfo(net.mutable_output_info(), "y", {4});
    OperatorDef* op = AddOpTo(&net, "If", "if", {"c", "x"}, {"y"});
    SetInt(op, "then_branch", 0);
    SetInt(op, "else_branch", 1);
    NetDef* then_branch = net.add_subgraphs();
    AddInfo(then_branch->mutable_input_info(), "x_in", {4});
    AddInfo(then_branch->mutable_output_info(), "square");
    AddEltwise(then_branch, kProd, "square", "x_in", "x_in", "square");
    NetDef* else_branch = net.add_subgraphs();
    AddInfo(else_branch->mutable_input_info(), "x_in", {4});
    AddInfo(else_branch->mutable_output_info(), "less");
    AddWeightTo(else_branch, &data, "two", {1}, {2.f});
    AddEltwise(else_branch, kSub, "less", "x_in", "two", "less");
  }
};

std::vector<float> RunIf(MaceEngine* engine, float c, const std::vector<float>& x) {
  std::map<std::string, MaceTensor> inputs = {{"c", MaceTensor({1}, Floats({c}))},
                                              {"x", MaceTensor({4}, Floats(x))}};
  std::map<std::string, MaceTensor> outputs;
  MaceStatus status = engine->Run(inputs, &outputs);
  EXPECT_TRUE(status.ok()) << status.ToString();
  if (!status.ok()) return {};
  const float* y = outputs["y"].data().get();
  return std::vector<float>(y, y + 4);
}

TEST(ControlFlowTest, IfTakesTheBranchTheConditionNamesOnEveryRun) {
  IfModel model;
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status = Create(model, {"c", "x"}, {"y"}, &engine);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> x = {1.5f, -2.f, 0.f, 3.f};
  // The same engine alternates branches; each run matches its reference.
  for (float c : {1.f, 0.f, -0.5f, 0.f}) {
    std::vector<float> want(4);
    for (int i = 0; i < 4; ++i) want[i] = c != 0 ? x[i] * x[i] : x[i] - 2.f;
    EXPECT_EQ(RunIf(engine.get(), c, x), want) << "c = " << c;
  }
}

// Loop: acc = x; for i in [0, m): acc = acc * w + i; scan[i] = acc. The
// body reads w from the enclosing graph as a captured input.
struct LoopModel : testing::ModelBuilder {
  explicit LoopModel(int64_t planned) {
    net.set_name("loop");
    AddInfo(net.mutable_input_info(), "m", {1});
    AddInfo(net.mutable_input_info(), "x", {3});
    AddInfo(net.mutable_input_info(), "w", {3});
    AddInfo(net.mutable_output_info(), "acc", {3});
    AddInfo(net.mutable_output_info(), "scan", {planned, 3});
    OperatorDef* op = AddOpTo(&net, "Loop", "loop", {"m", "", "x", "w"}, {"acc", "scan"});
    SetInt(op, "body", 0);
    SetInt(op, "loop_carried", 1);
    op->add_output_shape()->add_dims(3);
    op->add_output_shape()->add_dims(planned);
    op->mutable_output_shape(1)->add_dims(3);
    NetDef* body = net.add_subgraphs();
    AddInfo(body->mutable_input_info(), "i", {});
    AddInfo(body->mutable_input_info(), "cond", {});
    AddInfo(body->mutable_input_info(), "acc_in", {3});
    AddInfo(body->mutable_input_info(), "w_in", {3});
    AddInfo(body->mutable_output_info(), "cond_out");
    AddInfo(body->mutable_output_info(), "acc_out");
    AddInfo(body->mutable_output_info(), "scan_out");
    AddOpTo(body, "Identity", "cond_out", {"cond"}, {"cond_out"});
    AddEltwise(body, kProd, "scaled", "acc_in", "w_in", "scaled");
    AddEltwise(body, kSum, "acc_out", "scaled", "i", "acc_out");
    AddOpTo(body, "Identity", "scan_out", {"acc_out"}, {"scan_out"});
  }
};

TEST(ControlFlowTest, LoopCarriesValuesAndStacksScanOutputs) {
  LoopModel model(4);
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status = Create(model, {"m", "x", "w"}, {"acc", "scan"}, &engine);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> x = {1.f, -2.f, 0.5f};
  const std::vector<float> w = {2.f, 0.5f, -1.f};
  std::map<std::string, MaceTensor> inputs = {{"m", MaceTensor({1}, Floats({4.f}))},
                                              {"x", MaceTensor({3}, Floats(x))},
                                              {"w", MaceTensor({3}, Floats(w))}};
  std::map<std::string, MaceTensor> outputs;
  status = engine->Run(inputs, &outputs);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::vector<float> acc = x;
  std::vector<float> scan;
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) acc[k] = acc[k] * w[k] + static_cast<float>(i);
    scan.insert(scan.end(), acc.begin(), acc.end());
  }
  ASSERT_EQ(outputs["scan"].shape(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(std::vector<float>(outputs["acc"].data().get(), outputs["acc"].data().get() + 3), acc);
  EXPECT_EQ(std::vector<float>(outputs["scan"].data().get(), outputs["scan"].data().get() + 12),
            scan);

  // A trip count other than the planned one: a clear error, not a write
  // past the scan outputs.
  for (float m : {5.f, 2.f}) {
    inputs["m"] = MaceTensor({1}, Floats({m}));
    ExpectError(engine->Run(inputs, &outputs), "scan outputs are planned for");
  }
}

// Loop without a trip count: acc += 1 while the body's condition 3 - i is
// not zero, i.e. for i = 0..3.
struct WhileModel : testing::ModelBuilder {
  WhileModel() {
    net.set_name("while");
    AddInfo(net.mutable_input_info(), "x", {2});
    AddInfo(net.mutable_output_info(), "acc", {2});
    AddWeightTo(&net, &data, "yes", {1}, {1.f});
    OperatorDef* op = AddOpTo(&net, "Loop", "loop", {"", "yes", "x"}, {"acc"});
    SetInt(op, "body", 0);
    SetInt(op, "loop_carried", 1);
    NetDef* body = net.add_subgraphs();
    AddInfo(body->mutable_input_info(), "i", {});
    AddInfo(body->mutable_input_info(), "cond", {});
    AddInfo(body->mutable_input_info(), "acc_in", {2});
    AddInfo(body->mutable_output_info(), "cond_out");
    AddInfo(body->mutable_output_info(), "acc_out");
    AddWeightTo(body, &data, "three", {}, {3.f});
    AddWeightTo(body, &data, "one", {1}, {1.f});
    AddEltwise(body, kSub, "cond_out", "three", "i", "cond_out");
    AddEltwise(body, kSum, "acc_out", "acc_in", "one", "acc_out");
  }
};

TEST(ControlFlowTest, LoopStopsWhenTheBodyConditionTurnsFalse) {
  WhileModel model;
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status = Create(model, {"x"}, {"acc"}, &engine);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::map<std::string, MaceTensor> outputs;
  status = engine->Run({{"x", MaceTensor({2}, Floats({0.25f, -7.f}))}}, &outputs);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const float* acc = outputs["acc"].data().get();
  EXPECT_EQ(acc[0], 0.25f + 4);
  EXPECT_EQ(acc[1], -7.f + 4);
}

// Scan: s = s0; for each row r of x: s = s * w + r; out[t] = s. w is
// captured from the top graph.
TEST(ControlFlowTest, ScanWalksTheFirstAxis) {
  testing::ModelBuilder model;
  AddInfo(model.net.mutable_input_info(), "s0", {2});
  AddInfo(model.net.mutable_input_info(), "x", {3, 2});
  AddInfo(model.net.mutable_input_info(), "w", {2});
  AddInfo(model.net.mutable_output_info(), "s");
  AddInfo(model.net.mutable_output_info(), "out");
  OperatorDef* op = AddOpTo(&model.net, "Scan", "scan", {"s0", "x", "w"}, {"s", "out"});
  testing::ModelBuilder::SetInt(op, "body", 0);
  testing::ModelBuilder::SetInt(op, "loop_carried", 1);
  testing::ModelBuilder::SetInt(op, "num_scan_inputs", 1);
  NetDef* body = model.net.add_subgraphs();
  AddInfo(body->mutable_input_info(), "s_in", {2});
  AddInfo(body->mutable_input_info(), "row", {2});
  AddInfo(body->mutable_input_info(), "w_in", {2});
  AddInfo(body->mutable_output_info(), "s_out");
  AddInfo(body->mutable_output_info(), "o");
  AddEltwise(body, kProd, "scaled", "s_in", "w_in", "scaled");
  AddEltwise(body, kSum, "s_out", "scaled", "row", "s_out");
  AddOpTo(body, "Identity", "o", {"s_out"}, {"o"});
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status = Create(model, {"s0", "x", "w"}, {"s", "out"}, &engine);
  ASSERT_TRUE(status.ok()) << status.ToString();
  const std::vector<float> s0 = {0.5f, -1.f};
  const std::vector<float> x = {1.f, 2.f, -3.f, 0.25f, 4.f, -0.5f};
  const std::vector<float> w = {2.f, -0.5f};
  std::map<std::string, MaceTensor> outputs;
  status = engine->Run({{"s0", MaceTensor({2}, Floats(s0))},
                        {"x", MaceTensor({3, 2}, Floats(x))},
                        {"w", MaceTensor({2}, Floats(w))}},
                       &outputs);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::vector<float> state = s0;
  std::vector<float> out;
  for (int t = 0; t < 3; ++t) {
    for (int k = 0; k < 2; ++k) state[k] = state[k] * w[k] + x[t * 2 + k];
    out.insert(out.end(), state.begin(), state.end());
  }
  ASSERT_EQ(outputs["out"].shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(std::vector<float>(outputs["s"].data().get(), outputs["s"].data().get() + 2), state);
  EXPECT_EQ(std::vector<float>(outputs["out"].data().get(), outputs["out"].data().get() + 6),
            out);
}

TEST(ControlFlowHostileTest, ScanArgumentsThatDoNotFit) {
  for (int64_t scans : {int64_t{0}, int64_t{5}}) {
    testing::ModelBuilder model;
    AddInfo(model.net.mutable_input_info(), "x", {3, 2});
    AddInfo(model.net.mutable_output_info(), "out");
    OperatorDef* op = AddOpTo(&model.net, "Scan", "scan", {"x"}, {"out"});
    testing::ModelBuilder::SetInt(op, "body", 0);
    testing::ModelBuilder::SetInt(op, "num_scan_inputs", scans);
    NetDef* body = model.net.add_subgraphs();
    AddInfo(body->mutable_input_info(), "row", {2});
    AddInfo(body->mutable_output_info(), "o");
    AddOpTo(body, "Identity", "o", {"row"}, {"o"});
    std::shared_ptr<MaceEngine> engine;
    ExpectError(Create(model, {"x"}, {"out"}, &engine), "do not fit");
  }
}

TEST(ControlFlowHostileTest, RunawayLoopHitsMaxIterations) {
  WhileModel model;
  // The condition never turns false: cond_out is the incoming cond.
  NetDef* body = model.net.mutable_subgraphs(0);
  body->mutable_op(0)->set_type("Identity");
  body->mutable_op(0)->clear_arg();
  body->mutable_op(0)->set_input(0, "cond");
  body->mutable_op(0)->mutable_input()->RemoveLast();
  model.SetInt(model.net.mutable_op(0), "max_iterations", 1000);
  std::shared_ptr<MaceEngine> engine;
  MaceStatus status = Create(model, {"x"}, {"acc"}, &engine);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::map<std::string, MaceTensor> outputs;
  ExpectError(engine->Run({{"x", MaceTensor({2}, Floats({0.f, 0.f}))}}, &outputs),
              "ran 1000 iterations (max_iterations)");
}

TEST(ControlFlowHostileTest, MaxIterationsOutOfRange) {
  for (int64_t bad : {int64_t{0}, int64_t{-5}, int64_t{1} << 40}) {
    WhileModel model;
    model.SetInt(model.net.mutable_op(0), "max_iterations", bad);
    std::shared_ptr<MaceEngine> engine;
    ExpectError(Create(model, {"x"}, {"acc"}, &engine), "max_iterations");
  }
}

TEST(ControlFlowHostileTest, SubgraphIndexOutOfRange) {
  for (int64_t bad : {int64_t{2}, int64_t{-1}, int64_t{1} << 40}) {
    IfModel model;
    model.net.mutable_op(0)->mutable_arg(1)->set_i(bad);
    std::shared_ptr<MaceEngine> engine;
    ExpectError(Create(model, {"c", "x"}, {"y"}, &engine), "but the model has 2 subgraphs");
  }
  IfModel model;
  model.net.mutable_op(0)->mutable_arg(0)->clear_i();
  model.net.mutable_op(0)->mutable_arg(0)->set_f(0.f);
  std::shared_ptr<MaceEngine> engine;
  EXPECT_FALSE(Create(model, {"c", "x"}, {"y"}, &engine).ok());
}

// Subgraph 0's If runs subgraph 0 again: refused, however deep it would go.
TEST(ControlFlowHostileTest, RecursiveSubgraphsAreRefused) {
  IfModel model;
  NetDef* then_branch = model.net.mutable_subgraphs(0);
  then_branch->clear_op();
  AddWeightTo(then_branch, &model.data, "c1", {1}, {1.f});
  OperatorDef* again = AddOpTo(then_branch, "If", "again", {"c1", "x_in"}, {"square"});
  testing::ModelBuilder::SetInt(again, "then_branch", 0);
  testing::ModelBuilder::SetInt(again, "else_branch", 1);
  std::shared_ptr<MaceEngine> engine;
  ExpectError(Create(model, {"c", "x"}, {"y"}, &engine), "subgraphs cannot recurse");
}

// y = If(c, level 0, level 0)(c, x): each of `levels` subgraphs holds
// `ifs` Ifs running the next level (output o0 of the first), and the last
// level gives o_j = x + x.
testing::ModelBuilder NestedIfs(int levels, int ifs) {
  testing::ModelBuilder model;
  AddInfo(model.net.mutable_input_info(), "c", {1});
  AddInfo(model.net.mutable_input_info(), "x", {2});
  AddInfo(model.net.mutable_output_info(), "y");
  OperatorDef* top = AddOpTo(&model.net, "If", "if", {"c", "c", "x"}, {"y"});
  testing::ModelBuilder::SetInt(top, "then_branch", 0);
  testing::ModelBuilder::SetInt(top, "else_branch", 0);
  for (int level = 0; level < levels; ++level) {
    NetDef* sub = model.net.add_subgraphs();
    AddInfo(sub->mutable_input_info(), "c_in", {1});
    AddInfo(sub->mutable_input_info(), "x_in", {2});
    AddInfo(sub->mutable_output_info(), "o0");
    for (int j = 0; j < ifs; ++j) {
      const std::string out = "o" + std::to_string(j);
      if (level + 1 < levels) {
        OperatorDef* op = AddOpTo(sub, "If", out, {"c_in", "c_in", "x_in"}, {out});
        testing::ModelBuilder::SetInt(op, "then_branch", level + 1);
        testing::ModelBuilder::SetInt(op, "else_branch", level + 1);
      } else {
        AddEltwise(sub, kSum, out, "x_in", "x_in", out);
      }
    }
  }
  return model;
}

// A chain of Ifs nested deeper than the engine allows.
TEST(ControlFlowHostileTest, NestingDepthIsBounded) {
  for (int depth : {7, 12}) {
    testing::ModelBuilder model = NestedIfs(depth, 1);
    std::shared_ptr<MaceEngine> engine;
    MaceStatus status = Create(model, {"c", "x"}, {"y"}, &engine);
    if (depth <= 8) {
      ASSERT_TRUE(status.ok()) << status.ToString();
      std::map<std::string, MaceTensor> outputs;
      status = engine->Run({{"c", MaceTensor({1}, Floats({1.f}))},
                            {"x", MaceTensor({2}, Floats({1.5f, -3.f}))}},
                           &outputs);
      ASSERT_TRUE(status.ok()) << status.ToString();
      EXPECT_EQ(outputs["y"].data().get()[0], 3.f);
      EXPECT_EQ(outputs["y"].data().get()[1], -6.f);
    } else {
      ExpectError(status, "at most 8 levels");
    }
  }
}

// Each level holds four Ifs running the next level: 8^5 subgraph nets if
// nothing stopped it. The engine stops at its budget.
TEST(ControlFlowHostileTest, SubgraphNetsMultiplyingPerLevelAreBounded) {
  testing::ModelBuilder model = NestedIfs(6, 4);
  std::shared_ptr<MaceEngine> engine;
  ExpectError(Create(model, {"c", "x"}, {"y"}, &engine), "subgraph nets a model may build");
}

TEST(ControlFlowHostileTest, SubgraphWeightOutsideTheBlob) {
  IfModel model;
  ConstTensor* two = model.net.mutable_subgraphs(1)->mutable_tensors(0);
  for (int64_t offset : {int64_t{1} << 20, int64_t{-64}}) {
    two->set_offset(offset);
    std::shared_ptr<MaceEngine> engine;
    ExpectError(Create(model, {"c", "x"}, {"y"}, &engine), "bytes at offset");
  }
}

TEST(ControlFlowHostileTest, SubgraphWithItsOwnSubgraphList) {
  IfModel model;
  *model.net.mutable_subgraphs(0)->add_subgraphs() = model.net.subgraphs(1);
  std::shared_ptr<MaceEngine> engine;
  ExpectError(Create(model, {"c", "x"}, {"y"}, &engine), "subgraph list of its own");
}

TEST(ControlFlowHostileTest, BranchesOfDifferentShapes) {
  IfModel model;
  // The else branch now gives [4] - [5]: a broadcast error or another shape.
  NetDef* else_branch = model.net.mutable_subgraphs(1);
  else_branch->mutable_tensors(0)->clear_dims();
  AddWeightTo(else_branch, &model.data, "wide", {2, 4}, std::vector<float>(8, 1.f));
  else_branch->mutable_op(0)->set_input(1, "wide");
  std::shared_ptr<MaceEngine> engine;
  ExpectError(Create(model, {"c", "x"}, {"y"}, &engine), "both branches must give the same shapes");
}

TEST(ControlFlowHostileTest, LoopCarriedShapeMustNotChange) {
  WhileModel model;
  NetDef* body = model.net.mutable_subgraphs(0);
  AddWeightTo(body, &model.data, "wide", {3, 2}, std::vector<float>(6, 1.f));
  body->mutable_op(1)->set_input(1, "wide");
  std::shared_ptr<MaceEngine> engine;
  ExpectError(Create(model, {"x"}, {"acc"}, &engine), "must keep its shape and type");
}

TEST(ControlFlowHostileTest, WrongSubgraphSignature) {
  IfModel model;
  AddInfo(model.net.mutable_subgraphs(0)->mutable_output_info(), "extra");
  std::shared_ptr<MaceEngine> engine;
  ExpectError(Create(model, {"c", "x"}, {"y"}, &engine), "the op binds 1 and 1");
}

TEST(ControlFlowHostileTest, ConditionOfManyValues) {
  IfModel model;
  model.net.mutable_input_info(0)->set_dims(0, 3);
  std::shared_ptr<MaceEngine> engine;
  ExpectError(Create(model, {"c", "x"}, {"y"}, &engine), "it must be one value");
}

}  // namespace
}  // namespace mace
