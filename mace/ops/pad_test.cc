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

constexpr int kConstant = 0;
constexpr int kReflect = 1;
constexpr int kSymmetric = 2;
constexpr int kEdge = 3;
constexpr int kWrap = 4;

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("Pad 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(PadTest, ConstantTopAndRight) {
  // [[1, 2], [3, 4]] with one row of 9s on top and one column on the right.
  OpTester tester("Pad", RegisterPad);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .Output("y")
      .Args("paddings", std::vector<int64_t>{0, 0, 0, 0, 1, 0, 0, 1})
      .Arg("constant_value", 9.f);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{9, 9, 9, 1, 2, 9, 3, 4, 9}));
}

TEST(PadTest, ConstantDefaultsToZero) {
  OpTester tester("Pad", RegisterPad);
  tester.Input("x", {1}, {5}).Output("y").Args("paddings", std::vector<int64_t>{1, 2});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{0, 5, 0, 0}));
}

TEST(PadTest, MirrorModesOnOneRow) {
  // 1 2 3 4 padded by two on each side:
  //   REFLECT repeats around the edge without it:  3 2 | 1 2 3 4 | 3 2
  //   SYMMETRIC includes the edge:                 2 1 | 1 2 3 4 | 4 3
  //   EDGE replicates it:                          1 1 | 1 2 3 4 | 4 4
  //   WRAP repeats the row:                        3 4 | 1 2 3 4 | 1 2
  struct Mode {
    int type;
    std::vector<float> expected;
  };
  for (const Mode& mode : std::vector<Mode>{{kReflect, {3, 2, 1, 2, 3, 4, 3, 2}},
                                            {kSymmetric, {2, 1, 1, 2, 3, 4, 4, 3}},
                                            {kEdge, {1, 1, 1, 2, 3, 4, 4, 4}},
                                            {kWrap, {3, 4, 1, 2, 3, 4, 1, 2}}}) {
    SCOPED_TRACE(mode.type);
    OpTester tester("Pad", RegisterPad);
    tester.Input("x", {1, 4}, {1, 2, 3, 4})
        .Output("y")
        .Args("paddings", std::vector<int64_t>{0, 0, 2, 2})
        .Arg("pad_type", mode.type);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 8}));
    EXPECT_EQ(tester.OutputData("y"), mode.expected);
  }
}

TEST(PadTest, WrapRepeatsBeyondTheSize) {
  // 1 2 3 padded by 5 before and 4 after repeats the row as often as needed
  // (numpy.pad(..., "wrap")); a dimension without elements has nothing to
  // repeat and is refused.
  OpTester tester("Pad", RegisterPad);
  tester.Input("x", {3}, {1, 2, 3})
      .Output("y")
      .Args("paddings", std::vector<int64_t>{5, 4})
      .Arg("pad_type", kWrap);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1}));
  OpTester empty("Pad", RegisterPad);
  empty.Input("x", {2, 0}, {})
      .Output("y")
      .Args("paddings", std::vector<int64_t>{0, 0, 1, 1})
      .Arg("pad_type", kWrap);
  const MaceStatus refused = empty.Run();
  EXPECT_EQ(refused.code(), MaceStatus::MACE_INVALID_ARGS) << refused.information();
}

TEST(PadTest, ReflectCorner) {
  // [[1, 2], [3, 4]] reflected by one on the top and left: the corner is the
  // element diagonally inside, 4.
  OpTester tester("Pad", RegisterPad);
  tester.Input("x", {2, 2}, {1, 2, 3, 4})
      .Output("y")
      .Args("paddings", std::vector<int64_t>{1, 0, 1, 0})
      .Arg("pad_type", kReflect);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{4, 3, 4, 2, 1, 2, 4, 3, 4}));
}

// The input index each padded position of one dimension reads (-1 for the
// constant), spelled out as numpy.pad builds it: the pads are reversed
// stretches of the input next to each edge.
std::vector<int64_t> PaddedIndices(int64_t size, int64_t before, int64_t after, int type) {
  std::vector<int64_t> left, right;
  for (int64_t k = 0; k < before; ++k) {
    if (type == kConstant) left.push_back(-1);
    if (type == kReflect) left.insert(left.begin(), k + 1);
    if (type == kSymmetric) left.insert(left.begin(), k);
    if (type == kEdge) left.push_back(0);
    if (type == kWrap) left.insert(left.begin(), ((size - 1 - k) % size + size) % size);
  }
  for (int64_t k = 0; k < after; ++k) {
    if (type == kConstant) right.push_back(-1);
    if (type == kReflect) right.push_back(size - 2 - k);
    if (type == kSymmetric) right.push_back(size - 1 - k);
    if (type == kEdge) right.push_back(size - 1);
    if (type == kWrap) right.push_back(k % size);
  }
  std::vector<int64_t> all = left;
  for (int64_t i = 0; i < size; ++i) all.push_back(i);
  all.insert(all.end(), right.begin(), right.end());
  return all;
}

// Gathers the cross product of the per-dimension index lists, counting
// through them like an odometer.
std::vector<float> NaivePad(const std::vector<int64_t>& shape, const std::vector<float>& input,
                            const std::vector<int64_t>& paddings, int type, float value,
                            std::vector<int64_t>* out_shape) {
  const int rank = static_cast<int>(shape.size());
  std::vector<std::vector<int64_t>> picks;
  out_shape->clear();
  for (int d = 0; d < rank; ++d) {
    picks.push_back(PaddedIndices(shape[d], paddings[2 * d], paddings[2 * d + 1], type));
    out_shape->push_back(static_cast<int64_t>(picks.back().size()));
  }
  std::vector<float> out;
  std::vector<size_t> counter(rank, 0);
  while (true) {
    int64_t src = 0;
    bool inside = true;
    for (int d = 0; d < rank; ++d) {
      const int64_t index = picks[d][counter[d]];
      inside = inside && index >= 0;
      src = src * shape[d] + index;
    }
    out.push_back(inside ? input[src] : value);
    int d = rank - 1;
    while (d >= 0 && ++counter[d] == picks[d].size()) counter[d--] = 0;
    if (d < 0) break;
  }
  return out;
}

TEST(PadTest, MatchesNaivePad) {
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> paddings;
    int type;
  };
  const std::vector<Case> cases = {
      {{1, 3, 5, 7}, {0, 0, 0, 0, 1, 1, 1, 1}, kConstant},            // conv-style
      {{1, 3, 5, 7}, {0, 0, 1, 2, 0, 3, 2, 0}, kConstant},            // asymmetric, all dims
      {{1, 1, 1, 1}, {1, 1, 0, 2, 3, 0, 1, 1}, kConstant},            // size-1 dims
      {{2, 3, 5, 7}, {0, 0, 0, 0, 4, 4, 6, 6}, kReflect},             // pad = size - 1
      {{1, 2, 3, 3}, {0, 0, 1, 0, 2, 1, 0, 2}, kReflect},             // odd sizes
      {{2, 3, 5, 7}, {0, 0, 0, 0, 5, 5, 7, 7}, kSymmetric},           // pad = size
      {{1, 1, 1, 1}, {1, 1, 1, 0, 0, 1, 1, 1}, kSymmetric},           // size-1 dims
      {{1, 3, 4, 5}, {2, 1, 0, 3, 9, 0, 1, 8}, kEdge},                // pads > size
      {{1, 1, 1, 1}, {0, 3, 2, 0, 1, 1, 4, 0}, kEdge},                // size-1 dims
      {{6}, {2, 3}, kReflect},                                        // rank 1
      {{2, 3, 1, 2, 3}, {1, 0, 0, 2, 1, 1, 1, 0, 2, 2}, kSymmetric},  // rank 5
  };
  uint32_t seed = 40;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("Pad", RegisterPad);
    tester.Input("x", c.shape, input)
        .Output("y")
        .Args("paddings", c.paddings)
        .Arg("pad_type", c.type)
        .Arg("constant_value", -2.5f);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    std::vector<int64_t> expected_shape;
    const std::vector<float> expected =
        NaivePad(c.shape, input, c.paddings, c.type, -2.5f, &expected_shape);
    EXPECT_EQ(tester.OutputShape("y"), expected_shape);
    EXPECT_EQ(tester.OutputData("y"), expected);
  }
}

// Pads as inputs in ONNX's order (all leading pads, then all trailing ones),
// as weights and as tensors computed at run time (float32, as model inputs
// of integer type are fed), against the naive pad. The computed pads change
// from run to run but keep the planned shape; pads that give another shape
// are refused.
TEST(PadTest, PadsAsInputsMatchNaivePad) {
  const std::vector<int64_t> shape = {2, 3, 4};
  const std::vector<float> input = RandomFloats(NumElements(shape), 91);
  // [before, after] per dimension; each gives the output [4, 6, 5].
  const std::vector<std::vector<int64_t>> paddings_list = {
      {1, 1, 1, 2, 0, 1}, {1, 1, 0, 3, 1, 0}, {2, 0, 1, 2, 0, 1}, {0, 2, 3, 0, 1, 0}};
  auto onnx_pads = [](const std::vector<int64_t>& paddings) {
    std::vector<float> pads;
    for (size_t d = 0; d < paddings.size() / 2; ++d) pads.push_back(paddings[2 * d]);
    for (size_t d = 0; d < paddings.size() / 2; ++d) pads.push_back(paddings[2 * d + 1]);
    return pads;
  };
  for (int type : {kConstant, kReflect, kEdge, kWrap}) {
    SCOPED_TRACE(type);
    OpTester computed("Pad", RegisterPad);
    computed.Input("x", shape, input)
        .Input("pads", {6}, onnx_pads(paddings_list[0]))
        .Input("value", {1}, {7.5f})
        .Output("y")
        .Arg("pad_type", type)
        .PlannedShape({4, 6, 5});
    ASSERT_TRUE(computed.Run().ok());
    for (const std::vector<int64_t>& paddings : paddings_list) {
      // REFLECT pads must be smaller than their dimension.
      bool reflectable = true;
      for (size_t k = 0; k < paddings.size(); ++k) reflectable &= paddings[k] < shape[k / 2];
      if (type == kReflect && !reflectable) continue;
      const std::vector<float> pads = onnx_pads(paddings);
      std::vector<int64_t> expected_shape;
      const std::vector<float> expected =
          NaivePad(shape, input, paddings, type, -1.5f, &expected_shape);
      ASSERT_EQ(expected_shape, (std::vector<int64_t>{4, 6, 5}));
      const MaceStatus status = computed.RunAgain({{"pads", pads}, {"value", {-1.5f}}});
      ASSERT_TRUE(status.ok()) << status.information();
      EXPECT_EQ(computed.OutputData("y"), expected);
      OpTester weight("Pad", RegisterPad);
      weight.Input("x", shape, input)
          .IntWeight("pads", {6}, std::vector<int32_t>(pads.begin(), pads.end()))
          .Weight("value", {1}, {-1.5f})
          .Output("y")
          .Arg("pad_type", type);
      ASSERT_TRUE(weight.Run().ok());
      EXPECT_EQ(weight.OutputShape("y"), expected_shape);
      EXPECT_EQ(weight.OutputData("y"), expected);
    }
  }
}

TEST(PadTest, PadsForListedAxes) {
  // x = [[1, 2], [3, 4]], axes [-1]: pads [1, 2] pad only the last axis:
  // [[0, 1, 2, 0, 0], [0, 3, 4, 0, 0]]. Computed axes [0] with the same pads
  // would give [5, 2] and are refused; axes [1] are accepted.
  OpTester tester("Pad", RegisterPad);
  tester.Input("x", {2, 2}, {1, 2, 3, 4})
      .Input("pads", {2}, {1, 2})
      .EmptyInput()
      .Input("axes", {1}, {-1})
      .Output("y")
      .PlannedShape({2, 5});
  ASSERT_TRUE(tester.Run().ok());
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{0, 1, 2, 0, 0, 0, 3, 4, 0, 0}));
  const MaceStatus status = tester.RunAgain("axes", {0});
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find(
                "pads [1,2] give shape [5,2] in this run but the output was planned as [2,5]"),
            std::string::npos)
      << status.information();
  ASSERT_TRUE(tester.RunAgain("axes", {1}).ok());
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{0, 1, 2, 0, 0, 0, 3, 4, 0, 0}));
}

TEST(PadTest, RejectsBadPadInputs) {
  const std::vector<float> x = {1, 2, 3, 4};
  OpTester unplanned("Pad", RegisterPad);
  unplanned.Input("x", {2, 2}, x).Input("pads", {4}, {0, 0, 1, 1}).Output("y");
  // Without a planned shape the pads give it: Prepare without their values
  // plans [0, 0], and a run that was not prepared with them is refused.
  ExpectInvalid(&unplanned, "give shape [3,3] in this run but the output was planned as [0,0]");
  OpTester both("Pad", RegisterPad);
  both.Input("x", {2, 2}, x)
      .IntWeight("pads", {4}, {0, 0, 1, 1})
      .Output("y")
      .Args("paddings", std::vector<int64_t>{0, 1, 0, 1});
  ExpectInvalid(&both, "either as arguments or as inputs, not both");
  OpTester count("Pad", RegisterPad);
  count.Input("x", {2, 2}, x).IntWeight("pads", {2}, {1, 1}).Output("y");
  ExpectInvalid(&count, "pads [1,1] has 2 values but 2 dimensions need 4");
  OpTester negative("Pad", RegisterPad);
  negative.Input("x", {2, 2}, x).IntWeight("pads", {4}, {0, -1, 0, 1}).Output("y");
  ExpectInvalid(&negative, "negative pads (cropping) are not supported");
  OpTester smaller("Pad", RegisterPad);
  smaller.Input("x", {2, 2}, x).Input("pads", {4}, {0, 0, 0, 0}).Output("y").PlannedShape({2, 1});
  ExpectInvalid(&smaller, "planned output shape [2,1] is smaller than input shape [2,2]");
  OpTester value("Pad", RegisterPad);
  value.Input("x", {2, 2}, x)
      .IntWeight("pads", {4}, {0, 0, 1, 1})
      .Weight("value", {2}, {1, 2})
      .Output("y");
  ExpectInvalid(&value, "constant_value input 'value' must be one float32");
  OpTester axes("Pad", RegisterPad);
  axes.Input("x", {2, 2}, x)
      .IntWeight("pads", {2}, {1, 1})
      .EmptyInput()
      .IntWeight("axes", {1}, {2})
      .Output("y");
  ExpectInvalid(&axes, "axis 2 is out of range for input shape [2,2]");
}

TEST(PadTest, RejectsBadPaddings) {
  struct Bad {
    std::vector<int64_t> paddings;
    int type;
    std::string fragment;
  };
  const std::vector<Bad> bads = {
      {{0, 0, 1}, kConstant, "must hold a [before, after] pair per dimension"},
      {{0, 0}, kConstant, "paddings [0,0] has 2 values but input shape [2,3] needs 4"},
      {{0, 0, -1, 0}, kConstant, "must be in [0, "},
      {{0, 0, 0, int64_t{1} << 41}, kEdge, "must be in [0, "},
      {{2, 0, 0, 0},
       kReflect,
       "REFLECT pads 2 and 0 of dimension 0 must be smaller than its size 2"},
      {{0, 0, 0, 3}, kReflect, "must be smaller than its size 3"},
      {{0, 0, 4, 0},
       kSymmetric,
       "SYMMETRIC pads 4 and 0 of dimension 1 must not exceed its size 3"},
  };
  for (size_t i = 0; i < bads.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("Pad", RegisterPad);
    tester.Input("x", {2, 3}, std::vector<float>(6))
        .Output("y")
        .Args("paddings", bads[i].paddings)
        .Arg("pad_type", bads[i].type);
    ExpectInvalid(&tester, bads[i].fragment);
  }
}

TEST(PadTest, RejectsOverflowingOutput) {
  // Each pad is allowed, but together they ask for 2^60 elements.
  OpTester tester("Pad", RegisterPad);
  tester.Input("x", {1, 1}, {1})
      .Output("y")
      .Args("paddings", std::vector<int64_t>{0, int64_t{1} << 30, 0, int64_t{1} << 30});
  ExpectInvalid(&tester, "has more than");
}

TEST(PadTest, RejectsBadArgs) {
  OpTester type("Pad", RegisterPad);
  type.Input("x", {2}, {1, 2})
      .Output("y")
      .Args("paddings", std::vector<int64_t>{1, 1})
      .Arg("pad_type", 5);
  ExpectInvalid(&type,
                "pad_type must be 0 (CONSTANT), 1 (REFLECT), 2 (SYMMETRIC), 3 (EDGE) or 4 (WRAP)");
  OpTester missing("Pad", RegisterPad);
  missing.Input("x", {2}, {1, 2}).Output("y");
  ExpectInvalid(&missing, "needs the paddings argument");
}

TEST(PadTest, RejectsInt32) {
  OpTester tester("Pad", RegisterPad);
  tester.IntWeight("x", {2}, {1, 2}).Output("y").Args("paddings", std::vector<int64_t>{1, 1});
  ExpectInvalid(&tester, "input is int32 but must be float32");
}

}  // namespace
}  // namespace ops
}  // namespace mace
