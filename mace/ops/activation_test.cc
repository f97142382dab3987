#include "mace/ops/ref/activation.h"

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
  EXPECT_NE(status.information().find("Activation 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> RunActivation(const std::string& name, const std::vector<float>& input,
                                 float coefficient = 0.f) {
  OpTester tester("Activation", RegisterActivation);
  tester.Input("x", {1, static_cast<int64_t>(input.size())}, input)
      .Output("y")
      .Arg("activation", name);
  if (coefficient != 0.f) tester.Arg("activation_coefficient", coefficient);
  const MaceStatus status = tester.Run();
  EXPECT_TRUE(status.ok()) << status.information();
  return tester.OutputData("y");
}

TEST(ActivationTest, HandComputedValues) {
  const std::vector<float> x = {-4, -1, 0, 2, 7};
  EXPECT_EQ(RunActivation("NOOP", x), x);
  EXPECT_EQ(RunActivation("RELU", x), (std::vector<float>{0, 0, 0, 2, 7}));
  // RELU6 clamps to [0, 6].
  EXPECT_EQ(RunActivation("RELU6", x), (std::vector<float>{0, 0, 0, 2, 6}));
  // LEAKYRELU with slope 0.5: -4 -> -2, -1 -> -0.5.
  EXPECT_EQ(RunActivation("LEAKYRELU", x, 0.5f), (std::vector<float>{-2, -0.5f, 0, 2, 7}));
  // HARDSWISH x * clamp(x + 3, 0, 6) / 6: -4 -> 0, -1 -> -1 * 2 / 6, 0 -> 0,
  // 2 -> 2 * 5 / 6, 7 -> 7 * 6 / 6.
  ExpectNear(RunActivation("HARDSWISH", x), {0, -1.f / 3, 0, 5.f / 3, 7});
  // HARDSIGMOID clamp(x / 6 + 0.5, 0, 1): -4 -> 0, -1 -> 1/3, 0 -> 0.5, 2 -> 5/6, 7 -> 1.
  ExpectNear(RunActivation("HARDSIGMOID", x), {0, 1.f / 3, 0.5f, 5.f / 6, 1});
  // SIGMOID(0) = 0.5 and TANH(0) = 0; sigmoid(2) = 1 / (1 + e^-2) = 0.880797.
  ExpectNear(RunActivation("SIGMOID", {0, 2}), {0.5f, 0.880797f}, 1e-6f);
  ExpectNear(RunActivation("TANH", {0, 2}), {0, 0.964028f}, 1e-6f);
}

TEST(ActivationTest, PreluUsesChannelSlopes) {
  // Two channels of two pixels, slopes 0.1 and 3: negatives scale by their
  // channel's slope, positives pass: -1 * 0.1, 2, -2 * 3, 4.
  OpTester tester("Activation", RegisterActivation);
  tester.Input("x", {1, 2, 1, 2}, {-1, 2, -2, 4})
      .Weight("alpha", {2}, {0.1f, 3})
      .Output("y")
      .Arg("activation", "PRELU");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{-0.1f, 2, -6, 4}));
  EXPECT_EQ(tester.op().InPlaceInput(), 0);
}

// Written from the textbook definitions, in double, independent of
// mace/ops/common/activation.h.
double NaiveActivation(const std::string& name, double x, double coefficient, double slope) {
  if (name == "RELU") return x > 0 ? x : 0;
  if (name == "RELUX") return x < 0 ? 0 : (x > 3.5 ? 3.5 : x);
  if (name == "LEAKYRELU") return x > 0 ? x : coefficient * x;
  if (name == "PRELU") return x > 0 ? x : slope * x;
  if (name == "SIGMOID") return 1 / (1 + std::exp(-x));
  if (name == "TANH") return std::tanh(x);
  if (name == "HARDSWISH") return x <= -3 ? 0 : (x >= 3 ? x : x * (x + 3) / 6);
  if (name == "HARDSIGMOID") return std::fmin(std::fmax(coefficient * x + 0.5, 0), 1);
  return x;
}

TEST(ActivationTest, MatchesNaiveDefinitions) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1}, {1, 3, 1, 1}, {2, 5, 3, 7}, {3, 17, 1, 9}, {1, 7, 2}, {2, 1, 5, 1, 3},
  };
  const std::vector<std::string> names = {"RELU",    "RELUX", "LEAKYRELU", "PRELU",
                                          "SIGMOID", "TANH",  "HARDSWISH", "HARDSIGMOID"};
  uint32_t seed = 300;
  for (const std::vector<int64_t>& shape : shapes) {
    for (const std::string& name : names) {
      SCOPED_TRACE(name + " " + ShapeToString(shape));
      const int64_t channels = shape[1];
      const int64_t inner = NumElements(shape) / (shape[0] * channels);
      // Values past +-3 reach every branch of the piecewise functions.
      const std::vector<float> input = RandomFloats(NumElements(shape), seed++, -5.f, 5.f);
      const std::vector<float> alpha = RandomFloats(channels, seed++, -0.5f, 2.f);
      const float coefficient = name == "HARDSIGMOID" ? 0.2f : 0.3f;
      OpTester tester("Activation", RegisterActivation);
      tester.Input("x", shape, input);
      if (name == "PRELU") tester.Weight("alpha", {channels}, alpha);
      tester.Output("y")
          .Arg("activation", name)
          .Arg("activation_max_limit", 3.5f)
          .Arg("activation_coefficient", coefficient);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      std::vector<float> expected(input.size());
      for (size_t i = 0; i < input.size(); ++i) {
        const int64_t c = (static_cast<int64_t>(i) / inner) % channels;
        expected[i] = static_cast<float>(NaiveActivation(name, input[i], coefficient, alpha[c]));
      }
      ASSERT_EQ(tester.OutputShape("y"), shape);
      ExpectNear(tester.OutputData("y"), expected, 1e-6f, 1e-5f);
    }
  }
}

TEST(ActivationTest, KernelRunsInPlace) {
  // The engine may hand the kernel the same buffer as input and output.
  ref::ActivationParams params;
  params.outer = 2;
  params.channels = 3;
  params.inner = 5;
  params.activation.type = ActivationType::PRELU;
  const std::vector<float> input = RandomFloats(30, 11);
  const std::vector<float> alpha = {0.5f, -1.f, 2.f};
  std::vector<float> separate(30);
  ref::Activate(params, input.data(), alpha.data(), separate.data());
  std::vector<float> in_place = input;
  ref::Activate(params, in_place.data(), alpha.data(), in_place.data());
  EXPECT_EQ(in_place, separate);
}

TEST(ActivationTest, RejectsBadActivationArgs) {
  OpTester unknown("Activation", RegisterActivation);
  unknown.Input("x", {1, 2}, {1, 2}).Output("y").Arg("activation", "SWISHY");
  ExpectInvalid(&unknown, "unknown activation 'SWISHY'");
  OpTester relux("Activation", RegisterActivation);
  relux.Input("x", {1, 2}, {1, 2})
      .Output("y")
      .Arg("activation", "RELUX")
      .Arg("activation_max_limit", -1.f);
  ExpectInvalid(&relux, "RELUX needs a positive activation_max_limit");
}

TEST(ActivationTest, RejectsBadPreluInputs) {
  OpTester missing("Activation", RegisterActivation);
  missing.Input("x", {1, 2}, {1, 2}).Output("y").Arg("activation", "PRELU");
  ExpectInvalid(&missing, "PRELU needs the slope tensor alpha");
  OpTester empty("Activation", RegisterActivation);
  empty.Input("x", {1, 2}, {1, 2}).EmptyInput().Output("y").Arg("activation", "PRELU");
  ExpectInvalid(&empty, "PRELU needs the slope tensor alpha");
  OpTester wrong_shape("Activation", RegisterActivation);
  wrong_shape.Input("x", {1, 3, 2, 2}, std::vector<float>(12))
      .Weight("alpha", {2}, {1, 1})
      .Output("y")
      .Arg("activation", "PRELU");
  ExpectInvalid(&wrong_shape, "alpha has shape [2] but needs [3]");
  OpTester rank1("Activation", RegisterActivation);
  rank1.Input("x", {3}, {1, 2, 3})
      .Weight("alpha", {3}, {1, 1, 1})
      .Output("y")
      .Arg("activation", "PRELU");
  ExpectInvalid(&rank1, "PRELU needs rank 2 or more");
  OpTester extra("Activation", RegisterActivation);
  extra.Input("x", {1, 2}, {1, 2})
      .Weight("alpha", {2}, {1, 1})
      .Output("y")
      .Arg("activation", "RELU");
  ExpectInvalid(&extra, "only PRELU takes a second input");
}

TEST(ActivationTest, RejectsBadInputs) {
  OpTester missing("Activation", RegisterActivation);
  missing.EmptyInput().Output("y").Arg("activation", "RELU");
  ExpectInvalid(&missing, "input is missing");
  OpTester int_input("Activation", RegisterActivation);
  int_input.IntWeight("x", {2}, {1, 2}).Output("y").Arg("activation", "RELU");
  ExpectInvalid(&int_input, "is int32 but must be float32");
  OpTester no_output("Activation", RegisterActivation);
  no_output.Input("x", {2}, {1, 2}).Arg("activation", "RELU");
  ExpectInvalid(&no_output, "needs inputs [input, alpha for PRELU] and one output");
}

}  // namespace
}  // namespace ops
}  // namespace mace
