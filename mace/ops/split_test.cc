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
  EXPECT_NE(status.information().find("Split 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(SplitTest, EqualChannelHalvesByDefault) {
  // Default axis 1 cuts the four 1x2 channel planes of 1..8 into two pairs.
  OpTester tester("Split", RegisterSplit);
  tester.Input("x", {1, 4, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}).Output("a").Output("b");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("a"), (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(tester.OutputData("a"), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(tester.OutputData("b"), (std::vector<float>{5, 6, 7, 8}));
}

TEST(SplitTest, ExplicitSizesOnNegativeAxis) {
  // Rows [1, 2, 3] and [4, 5, 6]: the first column goes to a, the rest to b.
  OpTester tester("Split", RegisterSplit);
  tester.Input("x", {2, 3}, {1, 2, 3, 4, 5, 6})
      .Output("a")
      .Output("b")
      .Arg("axis", -1)
      .Args("split", std::vector<int64_t>{1, 2});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("a"), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(tester.OutputShape("b"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(tester.OutputData("a"), (std::vector<float>{1, 4}));
  EXPECT_EQ(tester.OutputData("b"), (std::vector<float>{2, 3, 5, 6}));
}

TEST(SplitTest, EmptyPiecesAndEmptyInputs) {
  // [[1, 2, 3], [4, 5, 6]] into an empty piece, all three columns, and
  // another empty piece.
  OpTester tester("Split", RegisterSplit);
  tester.Input("x", {2, 3}, {1, 2, 3, 4, 5, 6})
      .Output("a")
      .Output("b")
      .Output("c")
      .Arg("axis", 1)
      .Args("split", std::vector<int64_t>{0, 3, 0});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("a"), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(tester.OutputShape("c"), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(tester.OutputData("b"), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // An empty input splits into empty outputs.
  OpTester empty("Split", RegisterSplit);
  empty.Input("x", {0}, {}).Output("a").Output("b").Arg("axis", 0).Args(
      "split", std::vector<int64_t>{0, 0});
  const MaceStatus empty_status = empty.Run();
  ASSERT_TRUE(empty_status.ok()) << empty_status.information();
  EXPECT_EQ(empty.OutputShape("a"), (std::vector<int64_t>{0}));
  EXPECT_EQ(empty.OutputShape("b"), (std::vector<int64_t>{0}));
}

TEST(SplitTest, Int32) {
  // A shape vector [n, c, h, w] cut into [n] and [c, h, w].
  OpTester tester("Split", RegisterSplit);
  tester.IntWeight("shape", {4}, {1, 3, 224, 224})
      .Output("batch", DT_INT32)
      .Output("rest", DT_INT32)
      .Arg("axis", 0)
      .Args("split", std::vector<int64_t>{1, 3});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputInts("batch"), (std::vector<int32_t>{1}));
  EXPECT_EQ(tester.OutputInts("rest"), (std::vector<int32_t>{3, 224, 224}));
}

TEST(SplitTest, RegistersFloatAndInt32) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterSplit(&registry).ok());
  EXPECT_TRUE(registry.Has("Split", DeviceType::CPU, DT_FLOAT));
  EXPECT_TRUE(registry.Has("Split", DeviceType::CPU, DT_INT32));
}

// Output k is the input read with its axis coordinate shifted by the sizes of
// the outputs before it.
std::vector<float> NaiveSplitPart(const std::vector<int64_t>& in_shape,
                                  const std::vector<float>& input, int axis, int64_t first,
                                  int64_t size) {
  std::vector<int64_t> shape = in_shape;
  shape[axis] = size;
  const int rank = static_cast<int>(shape.size());
  std::vector<float> out(NumElements(shape));
  for (int64_t flat = 0; flat < static_cast<int64_t>(out.size()); ++flat) {
    std::vector<int64_t> coord(rank);
    int64_t rest = flat;
    for (int d = rank - 1; d >= 0; --d) {
      coord[d] = rest % shape[d];
      rest /= shape[d];
    }
    coord[axis] += first;
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) src = src * in_shape[d] + coord[d];
    out[flat] = input[src];
  }
  return out;
}

TEST(SplitTest, MatchesNaiveSplit) {
  struct Case {
    std::vector<int64_t> shape;
    int axis;
    int outputs;
    std::vector<int64_t> sizes;  // empty: equal parts
  };
  const std::vector<Case> cases = {
      {{1, 1, 1, 1}, 1, 1, {}},          // single output of size-1 dims
      {{1, 6, 5, 7}, 1, 3, {}},          // equal thirds, odd spatial
      {{2, 7, 3, 3}, 1, 3, {1, 5, 1}},   // uneven sizes
      {{3, 5, 2}, -1, 2, {}},            // last axis, negative
      {{5, 2, 3}, 0, 5, {}},             // outermost axis, size-1 pieces
      {{2, 3, 9, 1, 2}, -3, 2, {4, 5}},  // rank 5, negative
      {{11}, 0, 3, {2, 8, 1}},           // rank 1
  };
  uint32_t seed = 20;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const int rank = static_cast<int>(c.shape.size());
    const int axis = c.axis < 0 ? c.axis + rank : c.axis;
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("Split", RegisterSplit);
    tester.Input("x", c.shape, input).Arg("axis", c.axis);
    for (int k = 0; k < c.outputs; ++k) tester.Output("y" + std::to_string(k));
    if (!c.sizes.empty()) tester.Args("split", c.sizes);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    int64_t first = 0;
    for (int k = 0; k < c.outputs; ++k) {
      const int64_t size = c.sizes.empty() ? c.shape[axis] / c.outputs : c.sizes[k];
      std::vector<int64_t> expected_shape = c.shape;
      expected_shape[axis] = size;
      const std::string name = "y" + std::to_string(k);
      EXPECT_EQ(tester.OutputShape(name), expected_shape);
      EXPECT_EQ(tester.OutputData(name), NaiveSplitPart(c.shape, input, axis, first, size));
      first += size;
    }
  }
}

TEST(SplitTest, RejectsUnevenDefaultSplit) {
  OpTester tester("Split", RegisterSplit);
  tester.Input("x", {1, 5}, std::vector<float>(5)).Output("a").Output("b");
  ExpectInvalid(&tester, "axis 1 has size 5, which does not split evenly into 2 outputs");
}

TEST(SplitTest, RejectsBadSizes) {
  struct Bad {
    std::vector<int64_t> sizes;
    std::string fragment;
  };
  for (const Bad& bad : std::vector<Bad>{{{2, 2}, "split sizes add up to 4 but axis 1"},
                                         {{1, 2, 2}, "split lists 3 sizes but the op has 2"},
                                         {{7, -2}, "split sizes must be in [0, "},
                                         {{6, -1}, "got -1"}}) {
    OpTester tester("Split", RegisterSplit);
    tester.Input("x", {1, 5}, std::vector<float>(5))
        .Output("a")
        .Output("b")
        .Args("split", bad.sizes);
    ExpectInvalid(&tester, bad.fragment);
  }
}

TEST(SplitTest, RejectsAxisOutOfRange) {
  OpTester tester("Split", RegisterSplit);
  tester.Input("x", {4}, std::vector<float>(4)).Output("a").Output("b");
  ExpectInvalid(&tester, "axis 1 is out of range for input shape [4]");
}

TEST(SplitTest, RejectsOutputTypeMismatch) {
  OpTester tester("Split", RegisterSplit);
  tester.Input("x", {4}, std::vector<float>(4)).Output("a").Output("b", DT_INT32).Arg("axis", 0);
  ExpectInvalid(&tester, "output 'b' is declared int32 but this kernel writes float32");
}

TEST(SplitTest, RejectsWrongArity) {
  OpTester tester("Split", RegisterSplit);
  tester.Input("x", {4}, std::vector<float>(4))
      .Input("y", {4}, std::vector<float>(4))
      .Input("z", {4}, std::vector<float>(4))
      .Output("a");
  ExpectInvalid(&tester, "needs inputs [input, optional split] and one or more outputs, got 3");
}

// Sizes computed at run time (a float32 model input): the outputs are
// planned for the split argument; each run checks the input gives them.
TEST(SplitTest, ComputedSizesCheckedEveryRun) {
  const std::vector<float> input = RandomFloats(3 * 7, 9);
  OpTester computed("Split", RegisterSplit);
  computed.Input("x", {3, 7}, input)
      .Input("sizes", {2}, {2, 5})
      .Output("a")
      .Output("b")
      .Arg("axis", 1)
      .Args("split", std::vector<int64_t>{2, 5});
  ASSERT_TRUE(computed.Run().ok());
  OpTester constant("Split", RegisterSplit);
  constant.Input("x", {3, 7}, input)
      .Output("a")
      .Output("b")
      .Arg("axis", 1)
      .Args("split", std::vector<int64_t>{2, 5});
  ASSERT_TRUE(constant.Run().ok());
  EXPECT_EQ(computed.OutputData("a"), constant.OutputData("a"));
  EXPECT_EQ(computed.OutputData("b"), constant.OutputData("b"));
  const MaceStatus moved = computed.RunAgain("sizes", {3, 4});
  EXPECT_EQ(moved.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(moved.information().find("gives sizes [3,4] in this run but the outputs were "
                                     "planned for [2,5]"),
            std::string::npos)
      << moved.information();
  EXPECT_FALSE(computed.RunAgain("sizes", {2, 5.5f}).ok());
  EXPECT_TRUE(computed.RunAgain("sizes", {2, 5}).ok());

  OpTester unplanned("Split", RegisterSplit);
  unplanned.Input("x", {3, 7}, input).Input("sizes", {2}, {2, 5}).Output("a").Output("b");
  ExpectInvalid(&unplanned, "a split input needs the planned sizes as the split argument");
  OpTester count("Split", RegisterSplit);
  count.Input("x", {3, 7}, input)
      .Input("sizes", {3}, {2, 2, 3})
      .Output("a")
      .Output("b")
      .Args("split", std::vector<int64_t>{2, 5});
  ExpectInvalid(&count, "but must be 1-D with 1 to 2 values");
}

}  // namespace
}  // namespace ops
}  // namespace mace
