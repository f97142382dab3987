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
  EXPECT_NE(status.information().find("Concat 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(ConcatTest, ChannelsByDefault) {
  // Default axis 1 stacks the channel planes of x (two) before y (one), batch
  // by batch: [x0c0, x0c1, y0c0, x1c0, x1c1, y1c0].
  OpTester tester("Concat", RegisterConcat);
  tester.Input("x", {2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8})
      .Input("y", {2, 1, 1, 2}, {-1, -2, -3, -4})
      .Output("z");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("z"), (std::vector<int64_t>{2, 3, 1, 2}));
  EXPECT_EQ(tester.OutputData("z"), (std::vector<float>{1, 2, 3, 4, -1, -2, 5, 6, 7, 8, -3, -4}));
}

TEST(ConcatTest, NegativeAxisJoinsRows) {
  // axis -1 on 2x1 and 2x2 appends each row of y to the same row of x.
  OpTester tester("Concat", RegisterConcat);
  tester.Input("x", {2, 1}, {1, 2}).Input("y", {2, 2}, {3, 4, 5, 6}).Output("z").Arg("axis", -1);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("z"), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tester.OutputData("z"), (std::vector<float>{1, 3, 4, 2, 5, 6}));
}

TEST(ConcatTest, SingleInputIsACopy) {
  OpTester tester("Concat", RegisterConcat);
  tester.Input("x", {3}, {1, 2, 3}).Output("z").Arg("axis", 0);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("z"), (std::vector<float>{1, 2, 3}));
}

TEST(ConcatTest, Int32ShapeVectors) {
  // A shape subgraph building [batch, -1] from two constant pieces.
  OpTester tester("Concat", RegisterConcat);
  tester.IntWeight("batch", {1}, {4})
      .IntWeight("rest", {2}, {-1, 7})
      .Output("shape", DT_INT32)
      .Arg("axis", 0);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("shape"), (std::vector<int64_t>{3}));
  EXPECT_EQ(tester.OutputInts("shape"), (std::vector<int32_t>{4, -1, 7}));
}

TEST(ConcatTest, RegistersFloatAndInt32) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterConcat(&registry).ok());
  EXPECT_TRUE(registry.Has("Concat", DeviceType::CPU, DT_FLOAT));
  EXPECT_TRUE(registry.Has("Concat", DeviceType::CPU, DT_INT32));
}

// Walks the output element by element and finds, from the axis coordinate,
// which input it comes from.
std::vector<float> NaiveConcat(const std::vector<std::vector<int64_t>>& shapes,
                               const std::vector<std::vector<float>>& inputs, int axis,
                               std::vector<int64_t>* out_shape) {
  *out_shape = shapes[0];
  (*out_shape)[axis] = 0;
  for (const auto& shape : shapes) (*out_shape)[axis] += shape[axis];
  const int rank = static_cast<int>(out_shape->size());
  std::vector<float> out(NumElements(*out_shape));
  for (int64_t flat = 0; flat < static_cast<int64_t>(out.size()); ++flat) {
    std::vector<int64_t> coord(rank);
    int64_t rest = flat;
    for (int d = rank - 1; d >= 0; --d) {
      coord[d] = rest % (*out_shape)[d];
      rest /= (*out_shape)[d];
    }
    size_t which = 0;
    while (coord[axis] >= shapes[which][axis]) coord[axis] -= shapes[which++][axis];
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) src = src * shapes[which][d] + coord[d];
    out[flat] = inputs[which][src];
  }
  return out;
}

TEST(ConcatTest, MatchesNaiveConcat) {
  struct Case {
    std::vector<std::vector<int64_t>> shapes;
    int axis;
  };
  const std::vector<Case> cases = {
      {{{1, 1, 1, 1}, {1, 1, 1, 1}}, 1},                // all size-1
      {{{1, 3, 5, 7}, {1, 1, 5, 7}, {1, 5, 5, 7}}, 1},  // odd channels
      {{{2, 3, 5, 7}, {2, 3, 5, 7}}, -1},               // last axis, negative
      {{{3, 2, 1}, {1, 2, 1}}, 0},                      // outermost axis
      {{{2, 3, 4, 1, 5}, {2, 3, 2, 1, 5}}, -3},         // rank 5, negative
      {{{7}, {1}, {9}, {2}}, 0},                        // rank 1, four inputs
      {{{2, 1, 3, 3}, {2, 1, 3, 3}}, 2},                // spatial axis
  };
  uint32_t seed = 10;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    std::vector<std::vector<float>> inputs;
    OpTester tester("Concat", RegisterConcat);
    for (size_t k = 0; k < c.shapes.size(); ++k) {
      inputs.push_back(RandomFloats(NumElements(c.shapes[k]), seed++));
      tester.Input("x" + std::to_string(k), c.shapes[k], inputs.back());
    }
    tester.Output("z").Arg("axis", c.axis);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    const int rank = static_cast<int>(c.shapes[0].size());
    std::vector<int64_t> expected_shape;
    const std::vector<float> expected =
        NaiveConcat(c.shapes, inputs, c.axis < 0 ? c.axis + rank : c.axis, &expected_shape);
    EXPECT_EQ(tester.OutputShape("z"), expected_shape);
    EXPECT_EQ(tester.OutputData("z"), expected);
  }
}

TEST(ConcatTest, RejectsAxisOutOfRange) {
  for (int axis : {2, -3}) {
    OpTester tester("Concat", RegisterConcat);
    tester.Input("x", {1, 2}, {1, 2}).Input("y", {1, 2}, {3, 4}).Output("z").Arg("axis", axis);
    ExpectInvalid(&tester, "axis " + std::to_string(axis) + " is out of range");
  }
}

TEST(ConcatTest, RejectsMismatchedShapes) {
  OpTester other_dim("Concat", RegisterConcat);
  other_dim.Input("x", {1, 2, 3}, std::vector<float>(6))
      .Input("y", {1, 2, 4}, std::vector<float>(8))
      .Output("z");
  ExpectInvalid(&other_dim, "input 'y' has shape [1,2,4] but input 'x' has shape [1,2,3]");
  OpTester other_rank("Concat", RegisterConcat);
  other_rank.Input("x", {1, 2, 3}, std::vector<float>(6))
      .Input("y", {1, 2}, std::vector<float>(2))
      .Output("z");
  ExpectInvalid(&other_rank, "may differ only on axis 1");
}

TEST(ConcatTest, RejectsMixedTypes) {
  OpTester inputs("Concat", RegisterConcat);
  inputs.Input("x", {2}, {1, 2}).IntWeight("y", {2}, {3, 4}).Output("z").Arg("axis", 0);
  ExpectInvalid(&inputs, "input 'y' is int32 but input 'x' is float32");
  OpTester output("Concat", RegisterConcat);
  output.Input("x", {2}, {1, 2}).Output("z", DT_INT32).Arg("axis", 0);
  ExpectInvalid(&output, "output 'z' is declared int32 but this kernel writes float32");
}

TEST(ConcatTest, RejectsMissingInput) {
  OpTester tester("Concat", RegisterConcat);
  tester.Input("x", {2}, {1, 2}).EmptyInput().Output("z").Arg("axis", 0);
  ExpectInvalid(&tester, "input 1 is missing");
}

TEST(ConcatTest, RejectsEmptyDimension) {
  // MACE has no empty tensors, even where numpy would accept one. The reserve
  // gives the empty weight a non-null data pointer for the tester's memcpy.
  std::vector<float> nothing;
  nothing.reserve(1);
  OpTester tester("Concat", RegisterConcat);
  tester.Input("x", {2}, {1, 2}).Weight("y", {0}, nothing).Output("z").Arg("axis", 0);
  ExpectInvalid(&tester, "input 'y' has shape [0] with a non-positive dimension");
}

}  // namespace
}  // namespace ops
}  // namespace mace
