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

using testing::NumElements;
using testing::OpTester;
using testing::RandomFloats;

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("ArgMax 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

struct Golden {
  int64_t axis;
  int keepdims, select_last;
  std::vector<int64_t> shape;
  std::vector<int32_t> indices;
};

TEST(ArgMaxTest, HandComputed) {
  // x = [[1, 5, 5], [7, 2, 7]].
  //   axis 1: row 0 peaks at 5 (indices 1 and 2), row 1 at 7 (0 and 2). First
  //   index: [1, 0]; select_last_index: [2, 2]. axis -1 is the same axis.
  //   axis 0 (the default): 7 > 1, 5 > 2, 7 > 5 gives rows [1, 0, 1].
  const std::vector<Golden> cases = {
      {1, 1, 0, {2, 1}, {1, 0}},    {1, 1, 1, {2, 1}, {2, 2}}, {-1, 0, 0, {2}, {1, 0}},
      {0, 1, 0, {1, 3}, {1, 0, 1}}, {0, 0, 1, {3}, {1, 0, 1}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Golden& c = cases[i];
    OpTester tester("ArgMax", RegisterArgMax);
    tester.Input("x", {2, 3}, {1, 5, 5, 7, 2, 7})
        .Output("y", DT_INT32)
        .Arg("axis", c.axis)
        .Arg("keepdims", c.keepdims)
        .Arg("select_last_index", c.select_last);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputShape("y"), c.shape);
    EXPECT_EQ(tester.OutputInts("y"), c.indices);
  }
}

TEST(ArgMaxTest, DefaultsAreAxisZeroKeepdims) {
  // No arguments: axis 0 of [3, 1, 2] keeps [1, 1, 2]. Column 0 = 4, 9, -1
  // peaks at 1; column 1 = 0, 0, 8 peaks at 2.
  OpTester tester("ArgMax", RegisterArgMax);
  tester.Input("x", {3, 1, 2}, {4, 0, 9, 0, -1, 8}).Output("y", DT_INT32);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(tester.OutputInts("y"), (std::vector<int32_t>{1, 2}));
}

TEST(ArgMaxTest, VectorWithoutKeepdimsIsRankZero) {
  // The peak 9 of [3, 9, 2] is at 1. Dropping the only axis leaves a
  // rank-0 scalar.
  OpTester tester("ArgMax", RegisterArgMax);
  tester.Input("x", {3}, {3, 9, 2}).Output("y", DT_INT32).Arg("keepdims", 0);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), std::vector<int64_t>{});
  EXPECT_EQ(tester.OutputInts("y"), (std::vector<int32_t>{1}));
}

TEST(ArgMaxTest, NanRanksHighest) {
  // As in numpy, NaN beats every number: the first NaN is at 1, the last at 3.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int last : {0, 1}) {
    OpTester tester("ArgMax", RegisterArgMax);
    tester.Input("x", {5}, {1, nan, 3, nan, 100})
        .Output("y", DT_INT32)
        .Arg("select_last_index", last);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputInts("y"), (std::vector<int32_t>{last ? 3 : 1}));
  }
}

struct ArgMaxCase {
  std::vector<int64_t> shape;
  int64_t axis;
  bool keepdims, select_last;
};

// Two passes per line: find the maximum value, then the first or last index
// holding it.
std::vector<int32_t> NaiveArgMax(const ArgMaxCase& c, const std::vector<float>& input,
                                 std::vector<int64_t>* out_shape) {
  const int rank = static_cast<int>(c.shape.size());
  const int axis = static_cast<int>(c.axis < 0 ? c.axis + rank : c.axis);
  int64_t outer = 1, inner = 1;
  out_shape->clear();
  for (int i = 0; i < rank; ++i) {
    if (i < axis) outer *= c.shape[i];
    if (i > axis) inner *= c.shape[i];
    if (i != axis || c.keepdims) out_shape->push_back(i == axis ? 1 : c.shape[i]);
  }
  const int64_t n = c.shape[axis];
  std::vector<int32_t> out;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return input[(o * n + k) * inner + i]; };
      float best = at(0);
      for (int64_t k = 1; k < n; ++k) best = std::max(best, at(k));
      int32_t index = -1;
      for (int64_t k = 0; k < n; ++k) {
        if (at(k) == best && (index < 0 || c.select_last)) index = static_cast<int32_t>(k);
      }
      out.push_back(index);
    }
  }
  return out;
}

TEST(ArgMaxTest, MatchesNaiveArgMax) {
  const std::vector<ArgMaxCase> cases = {
      {{1}, 0, true, false},           {{7}, 0, false, true},
      {{1, 1, 1, 1}, 2, false, false}, {{2, 3, 4, 5}, 1, true, false},
      {{2, 3, 4, 5}, -1, false, true}, {{2, 3, 4, 5}, 0, true, true},
      {{3, 1, 5}, 1, false, false},    {{1, 21, 7, 9}, 1, false, false},
      {{4, 6}, -2, true, false},       {{2, 2, 3, 2, 3}, 3, false, true},
  };
  uint32_t seed = 2000;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const ArgMaxCase& c = cases[i];
    std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    // Rounding to quarters makes ties common, so both tie rules get exercised.
    for (float& v : input) v = std::round(v * 4.f) / 4.f;
    OpTester tester("ArgMax", RegisterArgMax);
    tester.Input("x", c.shape, input)
        .Output("y", DT_INT32)
        .Arg("axis", c.axis)
        .Arg("keepdims", c.keepdims ? 1 : 0)
        .Arg("select_last_index", c.select_last ? 1 : 0);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    std::vector<int64_t> expected_shape;
    const std::vector<int32_t> expected = NaiveArgMax(c, input, &expected_shape);
    ASSERT_EQ(tester.OutputShape("y"), expected_shape);
    EXPECT_EQ(tester.OutputInts("y"), expected);
  }
}

TEST(ArgMaxTest, RejectsFloatOutput) {
  // A float32 output cannot hold indices; the model must not declare one.
  OpTester tester("ArgMax", RegisterArgMax);
  tester.Input("x", {3}, {1, 2, 3}).Output("y", DT_FLOAT);
  ExpectInvalid(&tester, "output 'y' is declared float32 but this kernel writes int32");
}

TEST(ArgMaxTest, RejectsBadArgs) {
  struct BadArgs {
    std::vector<int64_t> shape;
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const std::vector<BadArgs> cases = {
      {{2, 3}, [](OpTester* t) { t->Arg("axis", 2); }, "axis 2 is out of range for input shape"},
      {{2, 3}, [](OpTester* t) { t->Arg("axis", -3); }, "axis -3 is out of range"},
      {{2, 3}, [](OpTester* t) { t->Arg("keepdims", -1); }, "keepdims must be 0 or 1"},
      {{2, 3},
       [](OpTester* t) { t->Arg("select_last_index", 2); },
       "select_last_index must be 0 or 1"},
      {{}, [](OpTester*) {}, "needs rank 1 or more"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("ArgMax", RegisterArgMax);
    tester.Input("x", cases[i].shape, std::vector<float>(NumElements(cases[i].shape)))
        .Output("y", DT_INT32);
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
  OpTester int_input("ArgMax", RegisterArgMax);
  int_input.IntWeight("x", {2}, {1, 2}).Output("y", DT_INT32);
  ExpectInvalid(&int_input, "input is int32 but must be float32");
}

}  // namespace
}  // namespace ops
}  // namespace mace
