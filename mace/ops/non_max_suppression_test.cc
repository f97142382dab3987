#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::OpTester;
using testing::RandomFloats;

struct NmsCase {
  int64_t n = 1, c = 1, b = 0;
  std::vector<float> boxes, scores;
  int center = 0;
  // Values of the optional inputs; NaN leaves the input out.
  float max_output = NAN, iou = NAN, score_threshold = NAN;
  bool constant_max = false;
};

MaceStatus RunNms(const NmsCase& c, std::vector<int32_t>* out,
                  std::vector<int64_t>* planned = nullptr) {
  OpTester tester("NonMaxSuppression", RegisterNonMaxSuppression);
  tester.Input("boxes", {c.n, c.b, 4}, c.boxes).Input("scores", {c.n, c.c, c.b}, c.scores);
  const bool has_score = !std::isnan(c.score_threshold);
  const bool has_iou = has_score || !std::isnan(c.iou);
  const bool has_max = has_iou || !std::isnan(c.max_output);
  if (has_max) {
    if (std::isnan(c.max_output)) {
      tester.EmptyInput();
    } else if (c.constant_max) {
      tester.Weight("max", {1}, {c.max_output});
    } else {
      tester.Input("max", {1}, {c.max_output});
    }
  }
  if (has_iou) {
    if (std::isnan(c.iou)) {
      tester.EmptyInput();
    } else {
      tester.Input("iou", {}, {c.iou});
    }
  }
  if (has_score) tester.Input("score", {1}, {c.score_threshold});
  tester.Output("selected", DT_INT32).Arg("center_point_box", c.center);
  const MaceStatus status = tester.Run();
  if (status.ok()) {
    *out = tester.OutputInts("selected");
    const std::vector<int64_t> shape = tester.OutputShape("selected");
    EXPECT_EQ(shape.size(), 2u);
    EXPECT_EQ(shape[1], 3);
    EXPECT_EQ(static_cast<size_t>(shape[0] * 3), out->size());
    if (planned != nullptr) *planned = shape;
  }
  return status;
}

// ONNX's own example: six boxes, two pairs of near-duplicates.
const std::vector<float> kBoxes = {0.5f, 0.5f,  1.0f, 1.0f, 0.5f, 0.6f,   1.0f, 1.0f,
                                   0.5f, 0.4f,  1.0f, 1.0f, 0.5f, 10.5f,  1.0f, 1.0f,
                                   0.5f, 10.6f, 1.0f, 1.0f, 0.5f, 100.5f, 1.0f, 1.0f};
const std::vector<float> kScores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

TEST(NonMaxSuppressionTest, CenterPointBoxesOfTheOnnxExample) {
  NmsCase c;
  c.b = 6;
  c.boxes = kBoxes;
  c.scores = kScores;
  c.center = 1;
  c.max_output = 3;
  c.iou = 0.5f;
  c.score_threshold = 0.f;
  std::vector<int32_t> out;
  ASSERT_TRUE(RunNms(c, &out).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(NonMaxSuppressionTest, CornersInEitherOrderAndThresholds) {
  // Corner boxes [y1, x1, y2, x2]: box 1 is box 0 with its corners swapped,
  // so it is suppressed; box 2 overlaps box 0 by a third (IoU 1/3).
  NmsCase c;
  c.b = 3;
  c.boxes = {0, 0, 1, 1, 1, 1, 0, 0, 0, 0.5f, 1, 1.5f};
  c.scores = {0.9f, 0.8f, 0.7f};
  c.max_output = 10;
  for (float iou : {0.3f, 0.4f}) {
    c.iou = iou;
    std::vector<int32_t> out;
    ASSERT_TRUE(RunNms(c, &out).ok());
    if (iou < 1.f / 3) {
      EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 0}));
    } else {
      EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 0, 0, 0, 2}));
    }
  }
  // Scores must be strictly above the threshold.
  c.iou = 0.4f;
  c.score_threshold = 0.8f;
  std::vector<int32_t> out;
  ASSERT_TRUE(RunNms(c, &out).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 0}));
}

TEST(NonMaxSuppressionTest, EqualScoresKeepTheLowerIndexFirst) {
  NmsCase c;
  c.b = 4;
  c.boxes = {0, 0, 1, 1, 0, 2, 1, 3, 0, 0, 1, 1, 0, 4, 1, 5};
  c.scores = {0.5f, 0.5f, 0.5f, 0.5f};
  c.max_output = 4;
  c.iou = 0.5f;
  std::vector<int32_t> out;
  ASSERT_TRUE(RunNms(c, &out).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 0, 0, 0, 1, 0, 0, 3}));
}

TEST(NonMaxSuppressionTest, NothingSelected) {
  NmsCase c;
  c.b = 6;
  c.boxes = kBoxes;
  c.scores = kScores;
  c.center = 1;
  std::vector<int32_t> out;
  std::vector<int64_t> shape;
  // max_output_boxes_per_class absent, 0, negative; every score below the
  // threshold; no boxes at all.
  ASSERT_TRUE(RunNms(c, &out, &shape).ok());
  EXPECT_EQ(shape, (std::vector<int64_t>{0, 3}));
  for (float max_output : {0.f, -3.f}) {
    c.max_output = max_output;
    ASSERT_TRUE(RunNms(c, &out, &shape).ok());
    EXPECT_EQ(shape, (std::vector<int64_t>{0, 3}));
  }
  c.max_output = 3;
  c.score_threshold = 0.99f;
  ASSERT_TRUE(RunNms(c, &out, &shape).ok());
  EXPECT_EQ(shape, (std::vector<int64_t>{0, 3}));
  NmsCase none;
  none.c = 2;
  none.max_output = 5;
  ASSERT_TRUE(RunNms(none, &out, &shape).ok());
  EXPECT_EQ(shape, (std::vector<int64_t>{0, 3}));
}

// A naive oracle written from the operator's definition, in double: IoU of
// the boxes as given, greedy by score (ties by index).
std::vector<int32_t> Oracle(const NmsCase& c) {
  std::vector<int32_t> out;
  auto extent = [&](const float* b, double* e) {
    if (c.center) {
      e[0] = b[0] - b[2] / 2.0;
      e[1] = b[0] + b[2] / 2.0;
      e[2] = b[1] - b[3] / 2.0;
      e[3] = b[1] + b[3] / 2.0;
    } else {
      e[0] = std::min(b[1], b[3]);
      e[1] = std::max(b[1], b[3]);
      e[2] = std::min(b[0], b[2]);
      e[3] = std::max(b[0], b[2]);
    }
  };
  const int64_t limit = std::isnan(c.max_output) ? 0 : static_cast<int64_t>(c.max_output);
  for (int64_t n = 0; n < c.n; ++n) {
    for (int64_t k = 0; k < c.c; ++k) {
      std::vector<int64_t> order;
      for (int64_t i = 0; i < c.b; ++i) {
        const float s = c.scores[(n * c.c + k) * c.b + i];
        if (std::isnan(c.score_threshold) || s > c.score_threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) {
        return c.scores[(n * c.c + k) * c.b + l] > c.scores[(n * c.c + k) * c.b + r];
      });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= limit) break;
        double a[4];
        extent(&c.boxes[(n * c.b + i) * 4], a);
        bool keep = true;
        for (int64_t j : kept) {
          double e[4];
          extent(&c.boxes[(n * c.b + j) * 4], e);
          const double w = std::min(a[1], e[1]) - std::max(a[0], e[0]);
          const double h = std::min(a[3], e[3]) - std::max(a[2], e[2]);
          if (w <= 0 || h <= 0) continue;
          const double inter = w * h;
          const double uni = (a[1] - a[0]) * (a[3] - a[2]) + (e[1] - e[0]) * (e[3] - e[2]) - inter;
          // Compared in float, as the op computes (the values are exact).
          if (static_cast<float>(inter / uni) > c.iou) {
            keep = false;
            break;
          }
        }
        if (!keep) continue;
        kept.push_back(i);
        out.insert(out.end(),
                   {static_cast<int32_t>(n), static_cast<int32_t>(k), static_cast<int32_t>(i)});
      }
    }
  }
  return out;
}

TEST(NonMaxSuppressionTest, MatchesTheOracleOnRandomBoxes) {
  // Boxes on a coarse grid (exact in float and double) with repeated scores,
  // so ties and exact-threshold IoUs are frequent; batches and classes > 1.
  uint32_t seed = 20261128;
  for (int round = 0; round < 24; ++round) {
    NmsCase c;
    c.n = 1 + round % 3;
    c.c = 1 + round % 4;
    c.b = 1 + (round * 7) % 23;
    c.center = round % 2;
    const std::vector<float> raw = RandomFloats(c.n * c.b * 4, seed++, 0.f, 8.f);
    for (float v : raw) c.boxes.push_back(std::floor(v) / 2);
    if (c.center) {
      for (size_t i = 2; i < c.boxes.size(); i += 4) {
        c.boxes[i] += 0.5f;
        c.boxes[i + 1] += 0.5f;
      }
    }
    const std::vector<float> s = RandomFloats(c.n * c.c * c.b, seed++, 0.f, 4.f);
    for (float v : s) c.scores.push_back(std::floor(v) / 4);
    c.max_output = static_cast<float>(round % 5 == 0 ? 100 : round % 4);
    c.iou = static_cast<float>(round % 6) / 5.f;
    if (round % 3 == 1) c.score_threshold = 0.25f;
    c.constant_max = round % 2 == 1;
    SCOPED_TRACE("round " + std::to_string(round) + " seed " + std::to_string(seed));
    std::vector<int32_t> out;
    const MaceStatus status = RunNms(c, &out);
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(out, Oracle(c));
  }
}

TEST(NonMaxSuppressionTest, RefusesBadInputs) {
  std::vector<int32_t> out;
  NmsCase c;
  c.b = 6;
  c.boxes = kBoxes;
  c.scores = kScores;
  c.max_output = 3;
  for (float iou : {-0.1f, 1.5f}) {
    c.iou = iou;
    EXPECT_FALSE(RunNms(c, &out).ok()) << iou;
  }
  OpTester nan_iou("NonMaxSuppression", RegisterNonMaxSuppression);
  nan_iou.Input("boxes", {1, 6, 4}, kBoxes).Input("scores", {1, 1, 6}, kScores);
  nan_iou.Input("max", {1}, {3}).Input("iou", {1}, {NAN}).Output("selected", DT_INT32);
  EXPECT_FALSE(nan_iou.Run().ok());
  c.iou = 0.5f;
  c.max_output = 2.5f;
  EXPECT_FALSE(RunNms(c, &out).ok());
  c.max_output = 3;
  c.score_threshold = NAN;
  c.center = 2;
  EXPECT_FALSE(RunNms(c, &out).ok());
  c.center = 0;
  OpTester wrong("NonMaxSuppression", RegisterNonMaxSuppression);
  wrong.Input("boxes", {1, 6, 4}, kBoxes).Input("scores", {1, 1, 5}, {1, 2, 3, 4, 5});
  wrong.Output("selected", DT_INT32);
  EXPECT_FALSE(wrong.Run().ok());
}

}  // namespace
}  // namespace ops
}  // namespace mace
