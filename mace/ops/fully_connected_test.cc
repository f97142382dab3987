#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::NumElements;
using testing::OpTester;
using testing::RandomFloats;

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("FullyConnected 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(FullyConnectedTest, Rank2WithBiasAndRelu) {
  // [1, 2, 3] . [1, 0, -1] = -2, + 1 = -1 -> RELU 0;
  // [1, 2, 3] . [0.5, 0.5, 0.5] = 3, - 1 = 2.
  OpTester tester("FullyConnected", RegisterFullyConnected);
  tester.Input("x", {1, 3}, {1, 2, 3})
      .Weight("w", {2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f})
      .Weight("b", {2}, {1, -1})
      .Output("y")
      .Arg("activation", "RELU");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{0, 2}));
  EXPECT_EQ(tester.op().Macs(), 6);
}

TEST(FullyConnectedTest, Rank4FlattensAndKeepsRank) {
  // Flattened NCHW input [1, 2, 3, 4] against weights [1, 10, 100, 1000]: 4321.
  OpTester tester("FullyConnected", RegisterFullyConnected);
  tester.Input("x", {1, 2, 1, 2}, {1, 2, 3, 4}).Weight("w", {1, 4}, {1, 10, 100, 1000}).Output("y");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{4321}));
}

// Walks the input by explicit (c, h, w) coordinates rather than as a flat row.
std::vector<float> NaiveFullyConnected(const std::vector<int64_t>& shape,
                                       const std::vector<float>& input, int64_t out_features,
                                       const std::vector<float>& weight,
                                       const std::vector<float>& bias) {
  const int64_t n = shape[0], c = shape[1];
  const int64_t h = shape.size() == 4 ? shape[2] : 1, w = shape.size() == 4 ? shape[3] : 1;
  std::vector<float> out;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < out_features; ++o) {
      float sum = bias.empty() ? 0.f : bias[o];
      for (int64_t ci = 0; ci < c; ++ci) {
        for (int64_t y = 0; y < h; ++y) {
          for (int64_t x = 0; x < w; ++x) {
            const int64_t feature = (ci * h + y) * w + x;
            sum += input[((b * c + ci) * h + y) * w + x] * weight[o * c * h * w + feature];
          }
        }
      }
      out.push_back(sum);
    }
  }
  return out;
}

TEST(FullyConnectedTest, MatchesNaive) {
  struct Case {
    std::vector<int64_t> input_shape;
    int64_t out_features;
    bool with_bias;
  };
  const std::vector<Case> cases = {
      {{1, 1}, 1, true},       {{2, 17}, 13, true},     {{3, 7}, 5, false},
      {{2, 5, 3, 3}, 7, true}, {{3, 3, 1, 1}, 9, true}, {{1, 9, 1, 4}, 33, false},
  };
  uint32_t seed = 500;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const int64_t in_features = NumElements(c.input_shape) / c.input_shape[0];
    const std::vector<float> input = RandomFloats(NumElements(c.input_shape), seed++);
    const std::vector<float> weight = RandomFloats(c.out_features * in_features, seed++);
    const std::vector<float> bias =
        c.with_bias ? RandomFloats(c.out_features, seed++) : std::vector<float>();
    OpTester tester("FullyConnected", RegisterFullyConnected);
    tester.Input("x", c.input_shape, input).Weight("w", {c.out_features, in_features}, weight);
    if (c.with_bias) tester.Weight("b", {c.out_features}, bias);
    tester.Output("y");
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    std::vector<int64_t> expected_shape = {c.input_shape[0], c.out_features};
    if (c.input_shape.size() == 4) expected_shape.insert(expected_shape.end(), {1, 1});
    EXPECT_EQ(tester.OutputShape("y"), expected_shape);
    ExpectNear(tester.OutputData("y"),
               NaiveFullyConnected(c.input_shape, input, c.out_features, weight, bias), 1e-5f,
               1e-4f);
  }
}

TEST(FullyConnectedTest, FusedSigmoid) {
  const std::vector<float> input = RandomFloats(2 * 6, 51);
  const std::vector<float> weight = RandomFloats(3 * 6, 52);
  std::vector<float> expected = NaiveFullyConnected({2, 6}, input, 3, weight, {});
  for (float& v : expected) v = 1.f / (1.f + std::exp(-v));
  OpTester tester("FullyConnected", RegisterFullyConnected);
  tester.Input("x", {2, 6}, input)
      .Weight("w", {3, 6}, weight)
      .EmptyInput()
      .Output("y")
      .Arg("activation", "SIGMOID");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  ExpectNear(tester.OutputData("y"), expected);
}

TEST(FullyConnectedTest, RejectsWrongInputRank) {
  OpTester tester("FullyConnected", RegisterFullyConnected);
  tester.Input("x", {1, 3, 5}, std::vector<float>(15))
      .Weight("w", {1, 15}, std::vector<float>(15))
      .Output("y");
  ExpectInvalid(&tester, "input has shape [1,3,5] but needs rank 2");
}

TEST(FullyConnectedTest, RejectsWrongWeightRank) {
  OpTester tester("FullyConnected", RegisterFullyConnected);
  tester.Input("x", {1, 3}, {1, 2, 3}).Weight("w", {3}, {1, 2, 3}).Output("y");
  ExpectInvalid(&tester, "weight has shape [3] but needs rank 2");
}

TEST(FullyConnectedTest, RejectsMismatchedFeatures) {
  OpTester tester("FullyConnected", RegisterFullyConnected);
  tester.Input("x", {2, 2, 2, 2}, std::vector<float>(16))
      .Weight("w", {3, 4}, std::vector<float>(12))
      .Output("y");
  ExpectInvalid(&tester, "has 8 features per batch");
}

TEST(FullyConnectedTest, RejectsBadBias) {
  OpTester tester("FullyConnected", RegisterFullyConnected);
  tester.Input("x", {1, 2}, {1, 2})
      .Weight("w", {3, 2}, std::vector<float>(6))
      .Weight("b", {1, 3}, {1, 2, 3})
      .Output("y");
  ExpectInvalid(&tester, "bias has shape [1,3] but needs [3]");
}

TEST(FullyConnectedTest, RejectsBadActivationAndMissingWeight) {
  OpTester activation("FullyConnected", RegisterFullyConnected);
  activation.Input("x", {1, 2}, {1, 2})
      .Weight("w", {1, 2}, {1, 1})
      .Output("y")
      .Arg("activation", "PRELU");
  ExpectInvalid(&activation, "PRELU");
  OpTester missing("FullyConnected", RegisterFullyConnected);
  missing.Input("x", {1, 2}, {1, 2}).EmptyInput().Output("y");
  ExpectInvalid(&missing, "weight is missing");
}

}  // namespace
}  // namespace ops
}  // namespace mace
