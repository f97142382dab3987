#include "mace/ops/ref/eltwise.h"

#include <algorithm>
#include <cmath>
#include <functional>
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

enum Type { kSum = 0, kSub, kProd, kDiv, kMin, kMax, kNeg, kAbs, kSqrDiff, kPow };

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("Eltwise 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> RunBinary(int type, const std::vector<float>& a, const std::vector<float>& b) {
  OpTester tester("Eltwise", RegisterEltwise);
  const int64_t n = static_cast<int64_t>(a.size());
  tester.Input("a", {n}, a).Input("b", {n}, b).Output("y").Arg("type", type);
  const MaceStatus status = tester.Run();
  EXPECT_TRUE(status.ok()) << status.information();
  return tester.OutputData("y");
}

TEST(EltwiseTest, HandComputedBinaryOps) {
  const std::vector<float> a = {1, -2, 3, 4};
  const std::vector<float> b = {2, 5, -1, 0.5f};
  EXPECT_EQ(RunBinary(kSum, a, b), (std::vector<float>{3, 3, 2, 4.5f}));
  EXPECT_EQ(RunBinary(kSub, a, b), (std::vector<float>{-1, -7, 4, 3.5f}));
  EXPECT_EQ(RunBinary(kProd, a, b), (std::vector<float>{2, -10, -3, 2}));
  EXPECT_EQ(RunBinary(kDiv, a, b), (std::vector<float>{0.5f, -0.4f, -3, 8}));
  EXPECT_EQ(RunBinary(kMin, a, b), (std::vector<float>{1, -2, -1, 0.5f}));
  EXPECT_EQ(RunBinary(kMax, a, b), (std::vector<float>{2, 5, 3, 4}));
  // (1-2)^2 = 1, (-2-5)^2 = 49, (3+1)^2 = 16, (4-0.5)^2 = 12.25.
  EXPECT_EQ(RunBinary(kSqrDiff, a, b), (std::vector<float>{1, 49, 16, 12.25f}));
  // 1^2 = 1, (-2)^5 = -32, 3^-1 = 1/3, 4^0.5 = 2.
  ExpectNear(RunBinary(kPow, a, b), {1, -32, 1.f / 3, 2}, 0.f, 1e-7f);
}

TEST(EltwiseTest, DivisionByZeroAndOverflowFollowIeee) {
  // 1/0 = inf, -1/0 = -inf, 0/0 = NaN; none of them is an error.
  const std::vector<float> y = RunBinary(kDiv, {1, -1, 0}, {0, 0, 0});
  EXPECT_EQ(y[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(y[2]));
  // 3e38 * 10 exceeds the float range and becomes inf, again without an error.
  EXPECT_EQ(RunBinary(kProd, {3e38f}, {10})[0], std::numeric_limits<float>::infinity());
}

TEST(EltwiseTest, UnaryOps) {
  for (int type : {kNeg, kAbs}) {
    OpTester tester("Eltwise", RegisterEltwise);
    tester.Input("x", {1, 3}, {-1.5f, 0, 2}).Output("y").Arg("type", type);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputData("y"), type == kNeg ? (std::vector<float>{1.5f, -0.f, -2})
                                                   : (std::vector<float>{1.5f, 0, 2}));
  }
}

TEST(EltwiseTest, BroadcastPerChannelAndFusedRelu) {
  // [1, 2, 1, 2] - per-channel [2, 1, 1] ([10, 20] by channel), then RELU:
  // channel 0: 11-10, 9-10 -> 1, 0; channel 1: 25-20, 15-20 -> 5, 0.
  OpTester tester("Eltwise", RegisterEltwise);
  tester.Input("x", {1, 2, 1, 2}, {11, 9, 25, 15})
      .Weight("c", {2, 1, 1}, {10, 20})
      .Output("y")
      .Arg("type", kSub)
      .Arg("activation", "RELU");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 0, 5, 0}));
  EXPECT_EQ(tester.op().InPlaceInput(), 0);
}

TEST(EltwiseTest, BothOperandsBroadcast) {
  // [3, 1] + [1, 2] -> [3, 2]: row i, column j holds a[i] + b[j].
  OpTester tester("Eltwise", RegisterEltwise);
  tester.Input("a", {3, 1}, {1, 2, 3}).Input("b", {1, 2}, {10, 20}).Output("y").Arg("type", kSum);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{11, 21, 12, 22, 13, 23}));
  // Input 0 is smaller than the output, so it cannot hold the result.
  EXPECT_EQ(tester.op().InPlaceInput(), -1);
}

TEST(EltwiseTest, WeightedSum) {
  // 0.5 * a - 2 * b: 0.5 * 4 - 2 * 1 = 0, 0.5 * 2 - 2 * 3 = -5.
  OpTester tester("Eltwise", RegisterEltwise);
  tester.Input("a", {2}, {4, 2})
      .Input("b", {2}, {1, 3})
      .Output("y")
      .Arg("type", kSum)
      .Args("coeff", std::vector<float>{0.5f, -2.f});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{0, -5}));
}

TEST(EltwiseTest, ScalarOperandOnEitherSide) {
  // x = [1, 4]. Scalar second (default): x - 10 = [-9, -6], x / 2 = [0.5, 2].
  // Scalar first: 10 - x = [9, 6], 2 / x = [2, 0.5].
  struct Case {
    int type;
    float scalar;
    int index;  // -1: leave scalar_input_index out
    std::vector<float> expected;
  };
  for (const Case& c : std::vector<Case>{{kSub, 10, -1, {-9, -6}},
                                         {kSub, 10, 1, {-9, -6}},
                                         {kSub, 10, 0, {9, 6}},
                                         {kDiv, 2, 1, {0.5f, 2}},
                                         {kDiv, 2, 0, {2, 0.5f}}}) {
    OpTester tester("Eltwise", RegisterEltwise);
    tester.Input("x", {1, 2}, {1, 4}).Output("y").Arg("type", c.type).Arg("scalar_input", c.scalar);
    if (c.index >= 0) tester.Arg("scalar_input_index", c.index);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(tester.OutputData("y"), c.expected);
    EXPECT_EQ(tester.op().InPlaceInput(), 0);
  }
}

// Computed in float with explicit coordinates, independent of the op's
// stride bookkeeping.
float NaiveBinary(int type, float a, float b) {
  switch (type) {
    case kSum:
      return a + b;
    case kSub:
      return a - b;
    case kProd:
      return a * b;
    case kDiv:
      return a / b;
    case kMin:
      return std::min(a, b);
    case kMax:
      return std::max(a, b);
    case kSqrDiff:
      return (a - b) * (a - b);
    case kPow:
      return std::pow(a, b);
  }
  return std::nanf("");
}

std::vector<float> NaiveBroadcast(int type, std::vector<int64_t> a_shape,
                                  const std::vector<float>& a, std::vector<int64_t> b_shape,
                                  const std::vector<float>& b, std::vector<int64_t>* out_shape) {
  const size_t rank = std::max(a_shape.size(), b_shape.size());
  a_shape.insert(a_shape.begin(), rank - a_shape.size(), 1);
  b_shape.insert(b_shape.begin(), rank - b_shape.size(), 1);
  out_shape->resize(rank);
  for (size_t d = 0; d < rank; ++d) (*out_shape)[d] = std::max(a_shape[d], b_shape[d]);
  std::vector<float> out(NumElements(*out_shape));
  std::vector<int64_t> coord(rank, 0);
  for (float& value : out) {
    int64_t ai = 0, bi = 0;
    for (size_t d = 0; d < rank; ++d) {
      ai = ai * a_shape[d] + (a_shape[d] == 1 ? 0 : coord[d]);
      bi = bi * b_shape[d] + (b_shape[d] == 1 ? 0 : coord[d]);
    }
    value = NaiveBinary(type, a[ai], b[bi]);
    for (int d = static_cast<int>(rank) - 1; d >= 0 && ++coord[d] == (*out_shape)[d]; --d) {
      coord[d] = 0;
    }
  }
  return out;
}

TEST(EltwiseTest, MatchesNaiveBroadcasting) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{2, 5, 3, 7}, {2, 5, 3, 7}},  // equal shapes, odd sizes
      {{2, 5, 3, 7}, {5, 1, 1}},     // per-channel, lower rank
      {{1, 3, 1, 1}, {2, 3, 4, 5}},  // first operand broadcasts
      {{4, 1, 3}, {1, 5, 1}},        // both broadcast
      {{3, 17}, {17}},               // tail of 17 (not a multiple of 4 or 8)
      {{1, 1, 1, 1}, {1}},           // all size 1
      {{2, 3, 4}, {}},               // rank-0 tensor
      {{}, {6, 1, 2}},               // rank-0 first operand
      {{1, 9, 1, 11}, {2, 1, 5, 1}},
  };
  uint32_t seed = 500;
  for (size_t i = 0; i < cases.size(); ++i) {
    for (int type : {kSum, kSub, kProd, kDiv, kMin, kMax, kSqrDiff, kPow}) {
      SCOPED_TRACE(std::to_string(i) + " type " + std::to_string(type));
      const auto& [a_shape, b_shape] = cases[i];
      // POW of a negative base with a fractional exponent is NaN; keep bases positive.
      const std::vector<float> a = type == kPow
                                       ? RandomFloats(NumElements(a_shape), seed++, 0.1f, 2)
                                       : RandomFloats(NumElements(a_shape), seed++);
      const std::vector<float> b = RandomFloats(NumElements(b_shape), seed++);
      OpTester tester("Eltwise", RegisterEltwise);
      tester.Input("a", a_shape, a).Input("b", b_shape, b).Output("y").Arg("type", type);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      std::vector<int64_t> expected_shape;
      const std::vector<float> expected =
          NaiveBroadcast(type, a_shape, a, b_shape, b, &expected_shape);
      ASSERT_EQ(tester.OutputShape("y"), expected_shape);
      ExpectNear(tester.OutputData("y"), expected, 1e-6f, 1e-5f);
      EXPECT_EQ(tester.op().InPlaceInput(),
                NumElements(a_shape) == NumElements(expected_shape) ? 0 : -1);
    }
  }
}

TEST(EltwiseTest, KernelRunsInPlace) {
  // out = a * b with b broadcast per channel, written over a.
  ref::EltwiseParams params;
  params.type = ref::EltwiseType::PROD;
  params.shape = {2, 3, 5};
  params.a_strides = {15, 5, 1};
  params.b_strides = {0, 1, 0};
  const std::vector<float> a = RandomFloats(30, 21);
  const std::vector<float> b = {2, -1, 0.5f};
  std::vector<float> separate(30);
  ref::Eltwise(params, a.data(), b.data(), separate.data());
  std::vector<float> in_place = a;
  ref::Eltwise(params, in_place.data(), b.data(), in_place.data());
  EXPECT_EQ(in_place, separate);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(separate[i], a[i] * b[(i / 5) % 3]) << i;
}

TEST(EltwiseTest, RejectsBadShapes) {
  OpTester mismatch("Eltwise", RegisterEltwise);
  mismatch.Input("a", {2, 3}, std::vector<float>(6))
      .Input("b", {2, 2}, std::vector<float>(4))
      .Output("y")
      .Arg("type", kSum);
  ExpectInvalid(&mismatch, "input shapes [2,3] and [2,2] do not broadcast (3 vs 2)");
  // Both inputs are small, but [65536, 1] + [1, 65536] would have 2^32 elements.
  OpTester huge("Eltwise", RegisterEltwise);
  huge.Input("a", {65536, 1}, std::vector<float>(65536))
      .Input("b", {1, 65536}, std::vector<float>(65536))
      .Output("y")
      .Arg("type", kSum);
  ExpectInvalid(&huge, "gives more than 2^31 elements");
  OpTester int_input("Eltwise", RegisterEltwise);
  int_input.Input("a", {2}, {1, 2}).IntWeight("b", {2}, {1, 2}).Output("y").Arg("type", kSum);
  ExpectInvalid(&int_input, "'b' is int32 but must be float32");
  OpTester half_output("Eltwise", RegisterEltwise);
  half_output.Input("a", {2}, {1, 2}).Output("y", DT_HALF).Arg("type", kNeg);
  ExpectInvalid(&half_output, "output 'y' is declared float16 but this kernel writes float32");
  OpTester missing("Eltwise", RegisterEltwise);
  missing.Input("a", {2}, {1, 2}).EmptyInput().Output("y").Arg("type", kSum);
  ExpectInvalid(&missing, "input 1 is missing");
}

TEST(EltwiseTest, RejectsBadArgs) {
  struct BadCase {
    int inputs;  // 1 or 2
    std::function<void(OpTester*)> args;
    std::string fragment;
  };
  const std::vector<BadCase> cases = {
      {2, [](OpTester*) {}, "needs the int argument type"},
      {2, [](OpTester* t) { t->Arg("type", 10); }, "type must be 0 (SUM) to 9 (POW), got 10"},
      {2, [](OpTester* t) { t->Arg("type", -1); }, "got -1"},
      {2, [](OpTester* t) { t->Arg("type", kNeg); }, "NEG takes exactly one input"},
      {1, [](OpTester* t) { t->Arg("type", kAbs).Arg("scalar_input", 1.f); },
       "ABS takes exactly one input and no scalar_input"},
      {1, [](OpTester* t) { t->Arg("type", kProd); }, "PROD needs a second input"},
      {2, [](OpTester* t) { t->Arg("type", kSum).Arg("scalar_input", 1.f); },
       "scalar_input is only allowed with a single input"},
      {1,
       [](OpTester* t) {
         t->Arg("type", kSub).Arg("scalar_input", 1.f).Arg("scalar_input_index", 2);
       },
       "scalar_input_index must be 0"},
      {2, [](OpTester* t) { t->Arg("type", kSub).Arg("scalar_input_index", 0); },
       "scalar_input_index is only allowed together with scalar_input"},
      {1, [](OpTester* t) { t->Arg("type", kSub).Arg("scalar_input", "one"); },
       "argument 'scalar_input' must be a float, got a string"},
      {2,
       [](OpTester* t) {
         t->Arg("type", kProd).Args("coeff", std::vector<float>{1, 2});
       },
       "coeff applies only to SUM, not PROD"},
      {2,
       [](OpTester* t) {
         t->Arg("type", kSum).Args("coeff", std::vector<float>{1, 2, 3});
       },
       "coeff must hold two floats, got 3"},
      {2, [](OpTester* t) { t->Arg("type", kSum).Arg("activation", "PRELU"); }, "PRELU"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("Eltwise", RegisterEltwise);
    tester.Input("a", {1, 2}, {1, 2});
    if (cases[i].inputs == 2) tester.Input("b", {1, 2}, {3, 4});
    tester.Output("y");
    cases[i].args(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace

namespace mace {
namespace ops {
namespace {

TEST(EltwiseEmptyTest, EmptyOperandsGiveEmptyOutputs) {
  // A length 0 broadcasts against 1 (and only 1 or 0): [2, 0, 4] with
  // [1, 1, 4] is [2, 0, 4]; unary ops keep the empty shape.
  OpTester binary("Eltwise", RegisterEltwise);
  binary.Input("a", {2, 0, 4}, {}).Input("b", {1, 1, 4}, {1, 2, 3, 4}).Output("y").Arg("type", 2);
  MaceStatus status = binary.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(binary.OutputShape("y"), (std::vector<int64_t>{2, 0, 4}));
  OpTester reversed("Eltwise", RegisterEltwise);
  reversed.Input("a", {3, 1}, {1, 2, 3}).Input("b", {0}, {}).Output("y").Arg("type", 0);
  status = reversed.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(reversed.OutputShape("y"), (std::vector<int64_t>{3, 0}));
  OpTester unary("Eltwise", RegisterEltwise);
  unary.Input("x", {2, 0, 4}, {}).Output("y").Arg("type", 7);  // ABS
  status = unary.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(unary.OutputShape("y"), (std::vector<int64_t>{2, 0, 4}));
  OpTester mismatch("Eltwise", RegisterEltwise);
  mismatch.Input("a", {2, 0}, {}).Input("b", {2, 3}, {1, 2, 3, 4, 5, 6}).Output("y").Arg("type", 0);
  EXPECT_FALSE(mismatch.Run().ok());
}

}  // namespace
}  // namespace ops
}  // namespace mace
