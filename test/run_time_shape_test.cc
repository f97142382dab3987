// Tensors whose shape is known only at run time: a Pad whose pads are a
// model input and whose output shape the model leaves out
// (OutputShapeSource::kInputValues). Init plans its output empty and does
// not prepare the ops that read it; every Run prepares them with this
// run's values, and an output that outgrows its plan gets memory of its
// own. Outputs must be right on every run as they grow, shrink, become
// empty and grow again, and the memory limit counts the extra memory.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/proto/mace.pb.h"
#include "mace/public/mace.h"
#include "test/conv_chain.h"
#include "test/model_builder.h"

namespace mace {
namespace {

// x [rows, 3] (values 1 .. 3 rows) and pads [4] (ONNX order: leading row,
// leading column, trailing row, trailing column pads) -> Pad with the
// constant -1 -> padded; padded -> Relu -> relu; padded -> Reshape [-1]
// -> flat. Only padded's producer reads pads; Relu and Reshape read a
// tensor of unknown shape.
struct PadModel : testing::ModelBuilder {
  explicit PadModel(int64_t rows) {
    net.set_name("run_time_pad");
    for (const auto& [name, dims] :
         std::vector<std::pair<std::string, std::vector<int64_t>>>{{"x", {rows, 3}},
                                                                   {"pads", {4}}}) {
      InputOutputInfo* input = net.add_input_info();
      input->set_name(name);
      for (int64_t d : dims) input->add_dims(d);
    }
    for (const char* name : {"padded", "relu", "flat"}) net.add_output_info()->set_name(name);
    AddWeight("value", {1}, {-1.f});
    AddOp("Pad", "pad", {"x", "pads", "value"}, "padded");
    OperatorDef* relu = AddOp("Activation", "relu", {"padded"}, "relu");
    SetString(relu, "activation", "RELU");
    OperatorDef* flat = AddOp("Reshape", "flat", {"padded"}, "flat");
    Argument* shape = flat->add_arg();
    shape->set_name("shape");
    shape->add_ints(-1);
  }
};

MaceTensor Floats(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  std::shared_ptr<float> data(new float[values.size() + 1], std::default_delete<float[]>());
  std::copy(values.begin(), values.end(), data.get());
  return MaceTensor(shape, data);
}

std::vector<float> Data(const MaceTensor& tensor) {
  int64_t count = 1;
  for (int64_t d : tensor.shape()) count *= d;
  const float* data = static_cast<const float*>(tensor.raw_data().get());
  return count == 0 ? std::vector<float>() : std::vector<float>(data, data + count);
}

// x padded by `pads` with -1, computed here.
std::vector<float> Padded(int64_t rows, const std::vector<float>& x,
                          const std::vector<int64_t>& pads, std::vector<int64_t>* shape) {
  const int64_t out_rows = rows + pads[0] + pads[2], cols = 3 + pads[1] + pads[3];
  *shape = {out_rows, cols};
  std::vector<float> out(out_rows * cols, -1.f);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < 3; ++c) out[(r + pads[0]) * cols + c + pads[1]] = x[r * 3 + c];
  }
  return out;
}

void RunAndCheck(MaceEngine* engine, int64_t rows, const std::vector<int64_t>& pads) {
  SCOPED_TRACE("rows " + std::to_string(rows) + ", pads " + std::to_string(pads[0]) + " " +
               std::to_string(pads[1]) + " " + std::to_string(pads[2]) + " " +
               std::to_string(pads[3]));
  std::vector<float> x(rows * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 2 == 0 ? i + 1 : -1.f * i);
  std::map<std::string, MaceTensor> inputs = {
      {"x", Floats({rows, 3}, x)}, {"pads", Floats({4}, {static_cast<float>(pads[0]),
                                                          static_cast<float>(pads[1]),
                                                          static_cast<float>(pads[2]),
                                                          static_cast<float>(pads[3])})}};
  std::map<std::string, MaceTensor> outputs;
  const MaceStatus status = engine->Run(inputs, &outputs);
  ASSERT_TRUE(status.ok()) << status.information();
  std::vector<int64_t> shape;
  const std::vector<float> want = Padded(rows, x, pads, &shape);
  std::vector<float> relu = want;
  for (float& v : relu) v = v > 0.f ? v : 0.f;
  EXPECT_EQ(outputs.at("padded").shape(), shape);
  EXPECT_EQ(outputs.at("relu").shape(), shape);
  EXPECT_EQ(outputs.at("flat").shape(), (std::vector<int64_t>{shape[0] * shape[1]}));
  EXPECT_EQ(Data(outputs.at("padded")), want);
  EXPECT_EQ(Data(outputs.at("relu")), relu);
  EXPECT_EQ(Data(outputs.at("flat")), want);
}

std::shared_ptr<MaceEngine> NewEngine(const PadModel& model,
                                      const MaceEngineConfig& config = MaceEngineConfig()) {
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created =
      model.CreateEngine({"x", "pads"}, {"padded", "relu", "flat"}, config, &engine);
  EXPECT_TRUE(created.ok()) << created.information();
  return created.ok() ? engine : nullptr;
}

TEST(RunTimeShapeTest, OutputsFollowThePadsEveryRun) {
  std::shared_ptr<MaceEngine> engine = NewEngine(PadModel(2));
  ASSERT_NE(engine, nullptr);
  // The plan holds the empty outputs only: the first run grows past it,
  // later ones shrink, grow further and come back.
  const std::vector<std::vector<int64_t>> runs = {
      {0, 0, 0, 0}, {1, 2, 3, 4}, {0, 1, 0, 0}, {30, 0, 40, 50}, {0, 0, 0, 0}, {2, 2, 2, 2}};
  for (const std::vector<int64_t>& pads : runs) RunAndCheck(engine.get(), 2, pads);
}

TEST(RunTimeShapeTest, EmptyInputBecomesEmptyOrPaddedOutputs) {
  // x [0, 3]: no pads leave every output empty (the ops have nothing to
  // do), row pads give rows of the constant.
  std::shared_ptr<MaceEngine> engine = NewEngine(PadModel(0));
  ASSERT_NE(engine, nullptr);
  for (const std::vector<int64_t>& pads : std::vector<std::vector<int64_t>>{
           {0, 0, 0, 0}, {1, 0, 2, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}, {3, 1, 0, 1}}) {
    RunAndCheck(engine.get(), 0, pads);
  }
}

TEST(RunTimeShapeTest, MemoryBeyondTheLimitFailsTheRunNotTheEngine) {
  MaceEngineConfig config;
  config.SetMemoryLimit(64 * 1024);
  std::shared_ptr<MaceEngine> engine = NewEngine(PadModel(2), config);
  ASSERT_NE(engine, nullptr);
  RunAndCheck(engine.get(), 2, {1, 1, 1, 1});
  // 202 x 205 floats, three times over, do not fit in 64 KiB.
  std::map<std::string, MaceTensor> outputs;
  const MaceStatus status = engine->Run(
      {{"x", Floats({2, 3}, {1, 2, 3, 4, 5, 6})}, {"pads", Floats({4}, {100, 100, 100, 100})}},
      &outputs);
  EXPECT_EQ(status.code(), MaceStatus::MACE_OUT_OF_RESOURCES) << status.information();
  EXPECT_NE(status.information().find("memory limit"), std::string::npos)
      << status.information();
  RunAndCheck(engine.get(), 2, {0, 2, 1, 0});
}

TEST(RunTimeShapeTest, PadsOfTheWrongLengthFailTheRun) {
  std::shared_ptr<MaceEngine> engine = NewEngine(PadModel(2));
  ASSERT_NE(engine, nullptr);
  std::map<std::string, MaceTensor> outputs;
  const MaceStatus negative = engine->Run(
      {{"x", Floats({2, 3}, {1, 2, 3, 4, 5, 6})}, {"pads", Floats({4}, {0, -1, 0, 0})}},
      &outputs);
  EXPECT_EQ(negative.code(), MaceStatus::MACE_INVALID_ARGS) << negative.information();
  EXPECT_NE(negative.information().find("Pad 'pad'"), std::string::npos)
      << negative.information();
  RunAndCheck(engine.get(), 2, {1, 0, 0, 1});
}

// In a MaceContext, outputs that outgrew the plan and got memory of their
// own stay right when another engine joins or leaves and the shared arena
// is laid out again, though the next run repeats the same shapes (so the
// ops after the Pad are not prepared again).
TEST(RunTimeShapeTest, OwnMemoryOutlivesASharedArenaRelayout) {
  std::shared_ptr<MaceContext> context;
  ASSERT_TRUE(MaceContext::Create(1, CPUAffinityPolicy::AFFINITY_NONE, &context).ok());
  MaceEngineConfig config;
  config.SetContext(context);
  std::shared_ptr<MaceEngine> engine = NewEngine(PadModel(2), config);
  ASSERT_NE(engine, nullptr);
  const std::vector<int64_t> pads = {5, 6, 7, 8};
  RunAndCheck(engine.get(), 2, pads);
  {
    // A larger engine outside any group: the arena moves to a new buffer.
    const int64_t before = context->arena_bytes();
    const testing::ConvChain chain("other", 8, 24, 3, 5);
    std::shared_ptr<MaceEngine> other;
    ASSERT_TRUE(chain.CreateEngine({}, {}, config, &other).ok());
    ASSERT_GT(context->arena_bytes(), before);
    RunAndCheck(engine.get(), 2, pads);
    std::map<std::string, MaceTensor> outputs;
    ASSERT_TRUE(other->Run(chain.Input(1), &outputs).ok());
  }
  RunAndCheck(engine.get(), 2, pads);
  RunAndCheck(engine.get(), 2, {0, 0, 0, 0});
  RunAndCheck(engine.get(), 2, pads);
}

}  // namespace
}  // namespace mace
