#include "mace/ops/ref/unary.h"

#include <cmath>
#include <limits>
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

std::vector<float> RunUnary(const std::string& type, const std::vector<int64_t>& shape,
                            const std::vector<float>& input, float alpha = 0.f) {
  OpTester tester("Unary", RegisterUnary);
  tester.Input("x", shape, input).Output("y").Arg("type", type);
  if (alpha != 0.f) tester.Arg("alpha", alpha);
  const MaceStatus status = tester.Run();
  EXPECT_TRUE(status.ok()) << status.information();
  if (!status.ok()) return {};
  EXPECT_EQ(tester.OutputShape("y"), shape);
  return tester.OutputData("y");
}

TEST(UnaryTest, HandComputedValues) {
  const std::vector<float> x = {-2.5f, -0.5f, 0.f, 0.5f, 1.5f, 2.5f};
  const std::vector<int64_t> shape = {6};
  // Rounding: halves go to the even neighbour.
  EXPECT_EQ(RunUnary("ROUND", shape, x), (std::vector<float>{-2, -0, 0, 0, 2, 2}));
  EXPECT_EQ(RunUnary("FLOOR", shape, x), (std::vector<float>{-3, -1, 0, 0, 1, 2}));
  EXPECT_EQ(RunUnary("CEIL", shape, x), (std::vector<float>{-2, -0, 0, 1, 2, 3}));
  EXPECT_EQ(RunUnary("SIGN", shape, x), (std::vector<float>{-1, -1, 0, 1, 1, 1}));
  // softsign(x) = x / (1 + |x|): -2.5 -> -2.5 / 3.5.
  ExpectNear(RunUnary("SOFTSIGN", {2}, {-2.5f, 1.f}), {-2.5f / 3.5f, 0.5f});
  // exp(1) = e, log(e) = 1, erf(0.5) = 0.5204999.
  ExpectNear(RunUnary("EXP", {2}, {0.f, 1.f}), {1.f, 2.7182817f});
  ExpectNear(RunUnary("LOG", {2}, {1.f, 2.7182817f}), {0.f, 1.f});
  ExpectNear(RunUnary("ERF", {1}, {0.5f}), {0.5204999f}, 1e-6f);
  // ELU with alpha 2 at -1: 2 * (e^-1 - 1) = -1.2642411.
  ExpectNear(RunUnary("ELU", {2}, {-1.f, 3.f}, 2.f), {-1.2642411f, 3.f}, 1e-6f);
  // THRESHOLDED_RELU with alpha 1: x > 1 passes.
  EXPECT_EQ(RunUnary("THRESHOLDED_RELU", {3}, {0.5f, 1.f, 1.5f}, 1.f),
            (std::vector<float>{0, 0, 1.5f}));
  // GELU(1) = 0.5 * (1 + erf(1 / sqrt 2)) = 0.8413447.
  ExpectNear(RunUnary("GELU", {1}, {1.f}), {0.8413447f}, 1e-6f);
}

TEST(UnaryTest, ScalarsAndEmptyTensors) {
  EXPECT_EQ(RunUnary("FLOOR", {}, {-2.5f}), (std::vector<float>{-3}));
  EXPECT_TRUE(RunUnary("EXP", {4, 0}, {}).empty());
}

TEST(UnaryTest, LargeInputsStayFinite) {
  // softplus(100) = 100 (the naive log(1 + e^x) in float would overflow).
  ExpectNear(RunUnary("SOFTPLUS", {2}, {100.f, -100.f}), {100.f, 0.f});
  ExpectNear(RunUnary("MISH", {1}, {100.f}), {100.f});
}

// Written from the textbook definitions, independent of ref/unary.cc.
double Naive(const std::string& type, double x, double alpha, double gamma) {
  const double pi = 3.14159265358979323846;
  if (type == "EXP") return std::exp(x);
  if (type == "LOG") return std::log(x);
  if (type == "FLOOR") return std::floor(x);
  if (type == "CEIL") return std::ceil(x);
  if (type == "ROUND") {
    const double f = std::floor(x), d = x - f;
    if (d != 0.5) return std::floor(x + 0.5);
    return std::fmod(f, 2.0) == 0 ? f : f + 1;
  }
  if (type == "SIGN") return (x > 0) - (x < 0);
  if (type == "ERF") return std::erf(x);
  if (type == "SOFTPLUS") return std::log(1 + std::exp(x));
  if (type == "SOFTSIGN") return x / (1 + std::fabs(x));
  if (type == "GELU") return x * 0.5 * std::erfc(-x / std::sqrt(2.0));
  if (type == "GELU_TANH")
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * std::pow(x, 3))));
  if (type == "MISH") return x * std::tanh(std::log(1 + std::exp(x)));
  if (type == "ELU") return x < 0 ? alpha * (std::exp(x) - 1) : x;
  if (type == "SELU") return x <= 0 ? gamma * alpha * (std::exp(x) - 1) : gamma * x;
  if (type == "CELU") return x > 0 ? x : alpha * (std::exp(x / alpha) - 1);
  if (type == "THRESHOLDED_RELU") return x > alpha ? x : 0;
  if (type == "SIN") return std::sin(x);
  if (type == "COS") return std::cos(x);
  if (type == "TAN") return std::tan(x);
  if (type == "ASIN") return std::asin(x);
  if (type == "ACOS") return std::acos(x);
  if (type == "ATAN") return std::atan(x);
  if (type == "SINH") return (std::exp(x) - std::exp(-x)) / 2;
  if (type == "COSH") return (std::exp(x) + std::exp(-x)) / 2;
  if (type == "ASINH") return std::log(x + std::sqrt(x * x + 1));
  if (type == "ACOSH") return std::log(x + std::sqrt(x * x - 1));
  if (type == "ATANH") return 0.5 * std::log((1 + x) / (1 - x));
  return std::numeric_limits<double>::quiet_NaN();
}

TEST(UnaryTest, MatchesNaiveDefinitions) {
  const std::vector<std::vector<int64_t>> shapes = {{1}, {7}, {2, 3}, {2, 5, 3, 7}, {1, 3, 1, 2, 5}};
  const std::vector<std::string> types = {
      "EXP",   "LOG",  "FLOOR", "CEIL", "ROUND", "SIGN", "ERF", "SOFTPLUS", "SOFTSIGN",
      "GELU",  "GELU_TANH", "MISH", "ELU", "SELU", "CELU", "THRESHOLDED_RELU", "SIN", "COS",
      "TAN",   "ASIN", "ACOS", "ATAN", "SINH", "COSH", "ASINH", "ACOSH", "ATANH"};
  uint32_t seed = 700;
  for (const std::vector<int64_t>& shape : shapes) {
    for (const std::string& type : types) {
      SCOPED_TRACE(type + " " + ShapeToString(shape) + " seed " + std::to_string(seed));
      // Each function on its domain: log and acosh need x > 0 (> 1), asin,
      // acos and atanh |x| < 1; the others see both signs past +-1.
      float low = -3.f, high = 3.f;
      if (type == "LOG") low = 0.01f;
      if (type == "ACOSH") low = 1.01f;
      if (type == "ASIN" || type == "ACOS" || type == "ATANH") low = -0.99f, high = 0.99f;
      if (type == "TAN") low = -1.4f, high = 1.4f;
      std::vector<float> input = RandomFloats(NumElements(shape), seed++, low, high);
      // Exact halves reach ROUND's ties.
      if (type == "ROUND") {
        for (size_t i = 0; i < input.size(); i += 2) input[i] = std::round(input[i] * 2) / 2;
      }
      const float alpha = type == "SELU" ? 1.67326319f : 0.7f;
      const float gamma = type == "SELU" ? 1.05070102f : 1.f;
      OpTester tester("Unary", RegisterUnary);
      tester.Input("x", shape, input).Output("y").Arg("type", type).Arg("alpha", alpha);
      if (type == "SELU") tester.Arg("gamma", gamma);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      std::vector<float> expected(input.size());
      for (size_t i = 0; i < input.size(); ++i) {
        expected[i] = static_cast<float>(Naive(type, input[i], alpha, gamma));
      }
      ASSERT_EQ(tester.OutputShape("y"), shape);
      ExpectNear(tester.OutputData("y"), expected, 1e-6f, 1e-5f);
    }
  }
}

TEST(UnaryTest, KernelRunsInPlace) {
  ref::UnaryParams params;
  params.type = ref::UnaryType::MISH;
  params.count = 33;
  const std::vector<float> input = RandomFloats(33, 21, -4.f, 4.f);
  std::vector<float> separate(33);
  ref::Unary(params, input.data(), separate.data());
  std::vector<float> in_place = input;
  ref::Unary(params, in_place.data(), in_place.data());
  EXPECT_EQ(in_place, separate);
}

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("Unary 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(UnaryTest, RejectsBadArgs) {
  OpTester missing("Unary", RegisterUnary);
  missing.Input("x", {2}, {1, 2}).Output("y");
  ExpectInvalid(&missing, "type is required");
  OpTester unknown("Unary", RegisterUnary);
  unknown.Input("x", {2}, {1, 2}).Output("y").Arg("type", "SQUARE");
  ExpectInvalid(&unknown, "unknown type 'SQUARE'");
  OpTester celu("Unary", RegisterUnary);
  celu.Input("x", {2}, {1, 2}).Output("y").Arg("type", "CELU").Arg("alpha", 0.f);
  ExpectInvalid(&celu, "CELU's alpha must not be 0");
  OpTester nan("Unary", RegisterUnary);
  nan.Input("x", {2}, {1, 2}).Output("y").Arg("type", "ELU").Arg(
      "alpha", std::numeric_limits<float>::quiet_NaN());
  ExpectInvalid(&nan, "alpha and gamma must be finite");
  OpTester two("Unary", RegisterUnary);
  two.Input("x", {2}, {1, 2}).Input("z", {2}, {1, 2}).Output("y").Arg("type", "EXP");
  ExpectInvalid(&two, "needs one input and one output");
}

}  // namespace
}  // namespace ops
}  // namespace mace
