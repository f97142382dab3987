// Ops whose output shape depends on the data (NonMaxSuppression): the
// engine plans memory for the largest output, and every run gives the rows
// it finds to the ops after it (Slice, Reshape, Gather here), including
// none. A shape that needs more memory than planned fails the run with a
// status; the next run still works.
#include <cstdint>
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

constexpr int64_t kBoxes = 6;

// boxes [1, 6, 4] and scores [1, 1, 6] -> NonMaxSuppression (max 6, IoU 0.5,
// score_threshold an input) -> selected [K, 3] -> Slice column 2 -> [K, 1]
// -> Reshape -> [K] -> Gather rows of boxes [6, 4] -> rows [K, 4].
// With `max_boxes` above 6, boxes and scores take 1 to `max_boxes` boxes.
struct NmsModel : testing::ModelBuilder {
  explicit NmsModel(int64_t reshape_rows = -1, int64_t max_boxes = kBoxes) {
    net.set_name("nms");
    const std::vector<std::pair<std::string, std::vector<int64_t>>> inputs = {
        {"boxes", {1, kBoxes, 4}}, {"scores", {1, 1, kBoxes}}, {"threshold", {1}}};
    for (const auto& [name, dims] : inputs) {
      InputOutputInfo* input = net.add_input_info();
      input->set_name(name);
      for (int64_t d : dims) input->add_dims(d);
      if (max_boxes == kBoxes || name == "threshold") continue;
      for (size_t i = 0; i < dims.size(); ++i) {
        input->add_max_dims(dims[i] == kBoxes ? max_boxes : dims[i]);
      }
    }
    InputOutputInfo* selected = net.add_output_info();
    selected->set_name("selected");
    selected->set_data_type(DT_INT32);
    net.add_output_info()->set_name("rows");
    AddWeight("max", {1}, {static_cast<float>(kBoxes)});
    AddWeight("iou", {1}, {0.5f});
    AddWeight("flat", {2}, {kBoxes, 4});
    OperatorDef* nms = AddOp("NonMaxSuppression", "nms",
                             {"boxes", "scores", "max", "iou", "threshold"}, "selected");
    nms->add_output_type(DT_INT32);
    OperatorDef* column = AddOp("Slice", "column", {"selected"}, "column");
    SetInts(column, "starts", {2});
    SetInts(column, "ends", {3});
    SetInts(column, "axes", {1});
    SetInt(column, "T", DT_INT32);
    column->add_output_type(DT_INT32);
    OperatorDef* index = AddOp("Reshape", "index", {"column"}, "index");
    SetInts(index, "shape", {reshape_rows});
    SetInt(index, "T", DT_INT32);
    index->add_output_type(DT_INT32);
    OperatorDef* table = AddOp("Reshape", "table", {"boxes"}, "table");
    SetInts(table, "shape", {-1, 4});
    AddOp("Gather", "rows", {"table", "index"}, "rows");
  }

  static void SetInts(OperatorDef* op, const std::string& name, std::vector<int64_t> values) {
    Argument* arg = op->add_arg();
    arg->set_name(name);
    for (int64_t v : values) arg->add_ints(v);
  }
};

// Two pairs of overlapping boxes and two apart; scores 0.9 .. 0.4.
const std::vector<float> kBoxData = {0, 0,    1, 1,    0, 0.1f, 1, 1.1f, 0, 5, 1, 6,
                                     0, 5.1f, 1, 6.1f, 0, 9,    1, 10,   3, 3, 4, 4};
const std::vector<float> kScoreData = {0.9f, 0.8f, 0.7f, 0.6f, 0.5f, 0.4f};

// Two more boxes for the dynamic model: box 6 overlaps box 5, box 7 is
// apart, both scoring above every other.
const std::vector<float> kMoreBoxes = {3, 3.1f, 4, 4.1f, 20, 20, 21, 21};
const std::vector<float> kMoreScores = {0.95f, 0.97f};

std::map<std::string, MaceTensor> Inputs(float threshold, int64_t boxes = kBoxes) {
  auto copy = [](const std::vector<float>& v) {
    std::shared_ptr<float> data(new float[v.size()], std::default_delete<float[]>());
    std::copy(v.begin(), v.end(), data.get());
    return data;
  };
  std::vector<float> box_data = kBoxData, score_data = kScoreData;
  box_data.insert(box_data.end(), kMoreBoxes.begin(), kMoreBoxes.end());
  score_data.insert(score_data.end(), kMoreScores.begin(), kMoreScores.end());
  box_data.resize(boxes * 4);
  score_data.resize(boxes);
  return {{"boxes", MaceTensor({1, boxes, 4}, copy(box_data))},
          {"scores", MaceTensor({1, 1, boxes}, copy(score_data))},
          {"threshold", MaceTensor({1}, copy({threshold}))}};
}

// Of six boxes, 0, 2, 4 and 5 survive IoU 0.5 (1 and 3 overlap 0 and 2);
// those scoring above `threshold` are selected. With eight, 7 and 6 come
// first and 6 suppresses 5.
std::vector<int64_t> Expected(float threshold, int64_t boxes) {
  std::vector<int64_t> order = {0, 2, 4, 5};
  if (boxes == 8) order = {7, 6, 0, 2, 4};
  std::vector<int64_t> kept;
  for (int64_t b : order) {
    const float score = b < kBoxes ? kScoreData[b] : kMoreScores[b - kBoxes];
    if (score > threshold) kept.push_back(b);
  }
  return kept;
}

void RunAndCheck(MaceEngine* engine, float threshold, std::map<std::string, MaceTensor>* outputs,
                 int64_t boxes = kBoxes) {
  SCOPED_TRACE("threshold " + std::to_string(threshold) + ", " + std::to_string(boxes) + " boxes");
  const MaceStatus status = engine->Run(Inputs(threshold, boxes), outputs);
  ASSERT_TRUE(status.ok()) << status.information();
  const std::vector<int64_t> kept = Expected(threshold, boxes);
  std::vector<float> box_data = kBoxData;
  box_data.insert(box_data.end(), kMoreBoxes.begin(), kMoreBoxes.end());
  const int64_t k = static_cast<int64_t>(kept.size());
  const MaceTensor& selected = outputs->at("selected");
  const MaceTensor& rows = outputs->at("rows");
  ASSERT_EQ(selected.shape(), (std::vector<int64_t>{k, 3}));
  ASSERT_EQ(rows.shape(), (std::vector<int64_t>{k, 4}));
  ASSERT_EQ(selected.data_type(), TensorDataType::INT32);
  const int32_t* s = static_cast<const int32_t*>(selected.raw_data().get());
  const float* r = static_cast<const float*>(rows.raw_data().get());
  for (int64_t i = 0; i < k; ++i) {
    EXPECT_EQ(s[i * 3], 0);
    EXPECT_EQ(s[i * 3 + 1], 0);
    EXPECT_EQ(s[i * 3 + 2], kept[i]);
    for (int j = 0; j < 4; ++j) EXPECT_EQ(r[i * 4 + j], box_data[kept[i] * 4 + j]);
  }
}

TEST(DataDependentShapeTest, RowsFollowEachRunIncludingNone) {
  NmsModel model;
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = model.CreateEngine({"boxes", "scores", "threshold"},
                                                {"selected", "rows"}, MaceEngineConfig(), &engine);
  ASSERT_TRUE(created.ok()) << created.information();
  std::map<std::string, MaceTensor> outputs;
  // All four, none (an empty selection and empty gathered rows), two, one,
  // and all four again, reusing the output map between runs.
  for (float threshold : {0.f, 0.95f, 0.55f, 0.0f, 0.75f, 0.1f}) {
    RunAndCheck(engine.get(), threshold, &outputs);
  }
}

TEST(DataDependentShapeTest, WithDynamicInputs) {
  // New input shapes re-plan the net for the largest selection again,
  // whatever the last run selected.
  NmsModel model(-1, 8);
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = model.CreateEngine({"boxes", "scores", "threshold"},
                                                {"selected", "rows"}, MaceEngineConfig(), &engine);
  ASSERT_TRUE(created.ok()) << created.information();
  std::map<std::string, MaceTensor> outputs;
  const std::vector<std::pair<float, int64_t>> runs = {{0.95f, 6}, {0.f, 8},  {0.99f, 8},
                                                       {0.f, 6},   {0.5f, 8}, {0.55f, 6}};
  for (const auto& [threshold, boxes] : runs) {
    RunAndCheck(engine.get(), threshold, &outputs, boxes);
  }
}

TEST(DataDependentShapeTest, AFixedShapeAfterItFailsTheRunNotTheEngine) {
  // A Reshape to a fixed 6 rows fits only when all six rows are selected,
  // which never happens here: the run fails with a status naming the op,
  // and the engine still takes other runs.
  NmsModel model(kBoxes);
  std::shared_ptr<MaceEngine> engine;
  const MaceStatus created = model.CreateEngine({"boxes", "scores", "threshold"},
                                                {"selected", "rows"}, MaceEngineConfig(), &engine);
  ASSERT_TRUE(created.ok()) << created.information();
  std::map<std::string, MaceTensor> outputs;
  for (int round = 0; round < 2; ++round) {
    const MaceStatus status = engine->Run(Inputs(0.f), &outputs);
    EXPECT_FALSE(status.ok());
    EXPECT_NE(status.information().find("index"), std::string::npos) << status.information();
  }
}

}  // namespace
}  // namespace mace
