#include "mace/ops/dropout.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::OpTester;

const std::vector<float> kX = {1.5f, -2.f, 0.f, 7.25f, -0.5f, 3.f};

// Runs Dropout on kX ([2, 3]) with ratio and training_mode inputs when
// given (negative: absent) and a mask output.
MaceStatus RunDropout(float ratio, float training, std::vector<float>* y,
                      std::vector<float>* mask) {
  OpTester t("Dropout", RegisterDropout);
  t.Input("x", {2, 3}, kX);
  if (ratio >= 0.f || training >= 0.f) {
    if (ratio >= 0.f) {
      t.Input("ratio", {1}, {ratio});
    } else {
      t.EmptyInput();
    }
  }
  if (training >= 0.f) t.Input("training_mode", {1}, {training});
  t.Output("y").Output("mask");
  MACE_RETURN_IF_ERROR(t.Run());
  *y = t.OutputData("y");
  *mask = t.OutputData("mask");
  EXPECT_EQ(t.OutputShape("mask"), (std::vector<int64_t>{2, 3}));
  return MaceStatus();
}

TEST(DropoutTest, NothingDroppedGivesDataAndOnes) {
  // Inference (no training_mode, or 0) at any ratio, and training at ratio 0.
  for (const auto& [ratio, training] : std::vector<std::pair<float, float>>{
           {-1.f, -1.f}, {0.75f, -1.f}, {0.75f, 0.f}, {0.f, 1.f}, {-1.f, 0.f}}) {
    SCOPED_TRACE(std::to_string(ratio) + " " + std::to_string(training));
    std::vector<float> y, mask;
    const MaceStatus status = RunDropout(ratio, training, &y, &mask);
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(y, kX);
    EXPECT_EQ(mask, std::vector<float>(6, 1.f));
  }
}

TEST(DropoutTest, TrainingWithRatioIsRefused) {
  std::vector<float> y, mask;
  // Training mode with ratio 0.5, and with the default ratio (0.5).
  for (const auto& [ratio, training] :
       std::vector<std::pair<float, float>>{{0.5f, 1.f}, {-1.f, 1.f}}) {
    const MaceStatus status = RunDropout(ratio, training, &y, &mask);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
    EXPECT_NE(status.information().find("drops values at random"), std::string::npos)
        << status.information();
  }
  EXPECT_FALSE(RunDropout(1.f, 0.f, &y, &mask).ok());    // ratio outside [0, 1)
  EXPECT_FALSE(RunDropout(0.f, 0.5f, &y, &mask).ok());   // training_mode not 0 or 1
  OpTester wide("Dropout", RegisterDropout);
  wide.Input("x", {2, 3}, kX).Input("ratio", {2}, {0.f, 0.f}).Output("y");
  EXPECT_FALSE(wide.Run().ok());
}

}  // namespace
}  // namespace ops
}  // namespace mace
