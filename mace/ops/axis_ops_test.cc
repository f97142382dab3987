#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
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

void ExpectInvalid(OpTester* tester, const std::string& op, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find(op + " 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> Iota(int64_t n, float start = 1.f) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(AxisOpsTest, HandComputedTrilu) {
  // x = [[1, 2, 3], [4, 5, 6]].
  const struct {
    int upper, k;
    bool k_input;
    std::vector<float> want;
  } cases[] = {
      {1, 0, false, {1, 2, 3, 0, 5, 6}},  {0, 0, false, {1, 0, 0, 4, 5, 0}},
      {1, 1, true, {0, 2, 3, 0, 0, 6}},   {0, -1, true, {0, 0, 0, 4, 0, 0}},
      {1, -5, false, {1, 2, 3, 4, 5, 6}}, {0, 9, true, {1, 2, 3, 4, 5, 6}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.k);
    OpTester tester("Trilu", RegisterAxisOps);
    tester.Input("x", {2, 3}, Iota(6));
    if (c.k_input) {
      tester.Input("k", {1}, {static_cast<float>(c.k)});
    } else {
      tester.Arg("k", c.k);
    }
    tester.Output("y").Arg("upper", c.upper);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputData("y"), c.want);
  }
}

TEST(AxisOpsTest, TriluOfEmptyMatrices) {
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{3, 0, 5}, {0, 5}, {2, 4, 0}}) {
    SCOPED_TRACE(ShapeToString(shape));
    OpTester tester("Trilu", RegisterAxisOps);
    tester.Input("x", shape, {}).Output("y").Arg("upper", 1);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), shape);
  }
  // CumSum still needs elements.
  OpTester cum_sum("CumSum", RegisterAxisOps);
  cum_sum.Input("x", {2, 0}, {}).Output("y").Arg("axis", 0);
  EXPECT_EQ(cum_sum.Run().code(), MaceStatus::MACE_INVALID_ARGS);
}

TEST(AxisOpsTest, TriluMatchesNaive) {
  const std::vector<std::vector<int64_t>> shapes = {{1, 1}, {4, 5}, {3, 1, 5}, {2, 3, 3}, {7, 2}};
  uint32_t seed = 6100;
  for (const auto& shape : shapes) {
    const std::vector<float> x = RandomFloats(NumElements(shape), seed++);
    const int64_t rows = shape[shape.size() - 2], cols = shape.back();
    for (int upper : {0, 1}) {
      for (int k = -3; k <= 3; ++k) {
        OpTester tester("Trilu", RegisterAxisOps);
        tester.Input("x", shape, x).Output("y").Arg("upper", upper).Arg("k", k);
        ASSERT_TRUE(tester.Run().ok());
        const std::vector<float> got = tester.OutputData("y");
        for (int64_t i = 0; i < NumElements(shape); ++i) {
          const int64_t r = (i / cols) % rows, c = i % cols;
          const bool keep = upper ? c >= r + k : c <= r + k;
          ASSERT_EQ(got[i], keep ? x[i] : 0.f) << "element " << i;
        }
      }
    }
  }
}

TEST(AxisOpsTest, HandComputedCumSum) {
  // [1, 2, 3, 4, 5]: [1, 3, 6, 10, 15]; exclusive [0, 1, 3, 6, 10];
  // reverse [15, 14, 12, 9, 5]; both [14, 12, 9, 5, 0].
  const struct {
    int exclusive, reverse;
    std::vector<float> want;
  } cases[] = {{0, 0, {1, 3, 6, 10, 15}},
               {1, 0, {0, 1, 3, 6, 10}},
               {0, 1, {15, 14, 12, 9, 5}},
               {1, 1, {14, 12, 9, 5, 0}}};
  for (const auto& c : cases) {
    OpTester tester("CumSum", RegisterAxisOps);
    tester.Input("x", {5}, Iota(5)).Output("y").Arg("exclusive", c.exclusive);
    tester.Arg("reverse", c.reverse);
    ASSERT_TRUE(tester.Run().ok());
    EXPECT_EQ(tester.OutputData("y"), c.want);
  }
  // Axis 0 of [[1, 2, 3], [4, 5, 6]]: [[1, 2, 3], [5, 7, 9]].
  OpTester tester("CumSum", RegisterAxisOps);
  tester.Input("x", {2, 3}, Iota(6)).Output("y").Arg("axis", -2);
  ASSERT_TRUE(tester.Run().ok());
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 3, 5, 7, 9}));
  // The axis as an input read at run time: axis 1 gives [[1, 3, 6], [4, 9, 15]].
  OpTester axis_input("CumSum", RegisterAxisOps);
  axis_input.Input("x", {2, 3}, Iota(6)).Input("axis", {1}, {1}).Output("y");
  ASSERT_TRUE(axis_input.Run().ok());
  EXPECT_EQ(axis_input.OutputData("y"), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  OpTester bad_axis("CumSum", RegisterAxisOps);
  bad_axis.Input("x", {2, 3}, Iota(6)).Input("axis", {1}, {2}).Output("y");
  ExpectInvalid(&bad_axis, "CumSum", "axis (input 1) 2 is out of range");
}

TEST(AxisOpsTest, CumSumMatchesNaive) {
  const std::vector<int64_t> shape = {3, 4, 5};
  const std::vector<float> x = RandomFloats(60, 6200);
  for (int axis = 0; axis < 3; ++axis) {
    OpTester tester("CumSum", RegisterAxisOps);
    tester.Input("x", shape, x).Output("y").Arg("axis", axis).Arg("reverse", 1);
    ASSERT_TRUE(tester.Run().ok());
    std::vector<float> want(60);
    const int64_t stride = axis == 0 ? 20 : axis == 1 ? 5 : 1;
    for (int64_t i = 0; i < 60; ++i) {
      const int64_t pos = (i / stride) % shape[axis];
      double sum = 0;
      for (int64_t j = pos; j < shape[axis]; ++j) sum += x[i + (j - pos) * stride];
      want[i] = static_cast<float>(sum);
    }
    testing::ExpectNear(tester.OutputData("y"), want, 1e-6f, 1e-6f);
  }
}

TEST(AxisOpsTest, Tile) {
  // [[1, 2]] tiled [2, 2]: [[1, 2, 1, 2], [1, 2, 1, 2]].
  OpTester tester("Tile", RegisterAxisOps);
  tester.Input("x", {1, 2}, {1, 2}).Output("y").Args("repeats", std::vector<int64_t>{2, 2});
  ASSERT_TRUE(tester.Run().ok());
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 1, 2, 1, 2, 1, 2}));
  // A random [2, 3, 1] tiled [3, 1, 4], against index arithmetic.
  const std::vector<float> x = RandomFloats(6, 6300);
  OpTester big("Tile", RegisterAxisOps);
  big.Input("x", {2, 3, 1}, x).Output("y").Args("repeats", std::vector<int64_t>{3, 1, 4});
  ASSERT_TRUE(big.Run().ok());
  const std::vector<float> got = big.OutputData("y");
  ASSERT_EQ(got.size(), 72u);
  for (int64_t i = 0; i < 72; ++i) {
    const int64_t a = (i / 12) % 2, b = (i / 4) % 3;
    ASSERT_EQ(got[i], x[a * 3 + b]) << "element " << i;
  }
}

TEST(AxisOpsTest, TopKMatchesSort) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  {
    // Ties go to the lower index; NaN ranks highest.
    OpTester tester("TopK", RegisterAxisOps);
    tester.Input("x", {5}, {3, nan, 3, 1, 7}).Output("v").Output("i").Arg("k", 3);
    ASSERT_TRUE(tester.Run().ok());
    const std::vector<float> v = tester.OutputData("v");
    EXPECT_TRUE(std::isnan(v[0]));
    EXPECT_EQ(v[1], 7);
    EXPECT_EQ(v[2], 3);
    EXPECT_EQ(tester.OutputData("i"), (std::vector<float>{1, 4, 0}));
  }
  const std::vector<int64_t> shape = {3, 6, 2};
  std::vector<float> x = RandomFloats(36, 6400);
  for (float& value : x) value = std::round(value * 3.f);  // many ties
  for (int largest : {0, 1}) {
    OpTester tester("TopK", RegisterAxisOps);
    tester.Input("x", shape, x).Output("v").Output("i").Arg("k", 4).Arg("axis", 1);
    tester.Arg("largest", largest);
    ASSERT_TRUE(tester.Run().ok());
    EXPECT_EQ(tester.OutputShape("v"), (std::vector<int64_t>{3, 4, 2}));
    const std::vector<float> v = tester.OutputData("v"), idx = tester.OutputData("i");
    for (int64_t o = 0; o < 3; ++o) {
      for (int64_t in = 0; in < 2; ++in) {
        std::vector<int64_t> order(6);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          const float p = x[(o * 6 + a) * 2 + in], q = x[(o * 6 + b) * 2 + in];
          return largest ? p > q : p < q;
        });
        for (int64_t n = 0; n < 4; ++n) {
          ASSERT_EQ(idx[(o * 4 + n) * 2 + in], static_cast<float>(order[n]));
          ASSERT_EQ(v[(o * 4 + n) * 2 + in], x[(o * 6 + order[n]) * 2 + in]);
        }
      }
    }
  }
}

// TopK's k and Tile's repeats as tensors computed at run time (float32, as
// integer model inputs are fed): the arguments plan the shape, the outputs
// equal those of the argument-only op (checked against sorting and index
// arithmetic above), and other values are refused.
TEST(AxisOpsTest, ComputedTopKAndRepeats) {
  const std::vector<float> x = RandomFloats(12, 6500);
  OpTester plain("TopK", RegisterAxisOps);
  plain.Input("x", {3, 4}, x).Output("v").Output("i").Arg("k", 2);
  ASSERT_TRUE(plain.Run().ok());
  OpTester top("TopK", RegisterAxisOps);
  top.Input("x", {3, 4}, x).Input("k", {1}, {2}).Output("v").Output("i").Arg("k", 2);
  ASSERT_TRUE(top.Run().ok());
  EXPECT_EQ(top.OutputData("v"), plain.OutputData("v"));
  EXPECT_EQ(top.OutputData("i"), plain.OutputData("i"));
  MaceStatus status = top.RunAgain("k", {3});
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("k (input 1) is 3 in this run but the output was planned "
                                      "for k 2"),
            std::string::npos)
      << status.information();
  OpTester tile_plain("Tile", RegisterAxisOps);
  tile_plain.Input("x", {3, 4}, x).Output("y").Args("repeats", std::vector<int64_t>{2, 1});
  ASSERT_TRUE(tile_plain.Run().ok());
  OpTester tile("Tile", RegisterAxisOps);
  tile.Input("x", {3, 4}, x)
      .Input("r", {2}, {2, 1})
      .Output("y")
      .Args("repeats", std::vector<int64_t>{2, 1});
  ASSERT_TRUE(tile.Run().ok());
  EXPECT_EQ(tile.OutputShape("y"), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(tile.OutputData("y"), tile_plain.OutputData("y"));
  status = tile.RunAgain("r", {1, 2});
  EXPECT_NE(status.information().find("repeats (input 1) are [1,2] in this run but the output "
                                      "was planned for [2,1]"),
            std::string::npos)
      << status.information();
  OpTester matrix("Tile", RegisterAxisOps);
  matrix.Input("x", {3, 4}, x)
      .Input("r", {1, 2}, {2, 1})
      .Output("y")
      .Args("repeats", std::vector<int64_t>{2, 1});
  ExpectInvalid(&matrix, "Tile", "repeats input 'r' has shape [1,2] but must be 1-D");
  // Expand mode: [3, 1] broadcast to [1, 4] (or [3, 4], or [4]) is the
  // planned [3, 4], the input tiled [1, 4]; [2, 4] does not broadcast and [1]
  // gives [3, 1].
  const std::vector<float> column = {1, 2, 3};
  OpTester expand("Tile", RegisterAxisOps);
  expand.Input("x", {3, 1}, column)
      .Input("s", {2}, {1, 4})
      .Output("y")
      .Args("repeats", std::vector<int64_t>{1, 4})
      .Arg("expand", 1);
  ASSERT_TRUE(expand.Run().ok());
  EXPECT_EQ(expand.OutputData("y"), (std::vector<float>{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
  ASSERT_TRUE(expand.RunAgain("s", {3, 4}).ok());
  EXPECT_EQ(expand.OutputShape("y"), (std::vector<int64_t>{3, 4}));
  status = expand.RunAgain("s", {2, 4});
  EXPECT_NE(status.information().find("input shape [3,1] does not broadcast to shape (input 1) "
                                      "[2,4]"),
            std::string::npos)
      << status.information();
  // Expanding to a shape with a 0 (ConstantOfShape of [0]) plans an empty
  // output; plain Tile still needs repeats >= 1.
  OpTester empty("Tile", RegisterAxisOps);
  empty.Input("x", {1}, {5}).Input("s", {1}, {0}).Output("y").Args(
      "repeats", std::vector<int64_t>{0}).Arg("expand", 1);
  ASSERT_TRUE(empty.Run().ok());
  EXPECT_EQ(empty.OutputShape("y"), (std::vector<int64_t>{0}));
  OpTester zero_repeat("Tile", RegisterAxisOps);
  zero_repeat.Input("x", {1}, {5}).Output("y").Args("repeats", std::vector<int64_t>{0});
  ExpectInvalid(&zero_repeat, "Tile", "repeats must be >= 1, got 0");
  OpTester shorter("Tile", RegisterAxisOps);
  shorter.Input("x", {3, 1}, column)
      .Input("s", {1}, {4})
      .Output("y")
      .Args("repeats", std::vector<int64_t>{1, 4})
      .Arg("expand", 1);
  ASSERT_TRUE(shorter.Run().ok());
  status = shorter.RunAgain("s", {1});
  EXPECT_NE(status.information().find("shape (input 1) [1] gives [3,1] in this run but the "
                                      "output was planned as [3,4]"),
            std::string::npos)
      << status.information();
  OpTester two_k("TopK", RegisterAxisOps);
  two_k.Input("x", {3, 4}, x).Input("k", {2}, {2, 2}).Output("v").Output("i").Arg("k", 2);
  ExpectInvalid(&two_k, "TopK", "k (input 1) has shape [2] but must hold one value");
}

TEST(AxisOpsTest, RejectsBadInput) {
  {
    OpTester tester("Trilu", RegisterAxisOps);
    tester.Input("x", {3}, Iota(3)).Output("y");
    ExpectInvalid(&tester, "Trilu", "needs rank 2 or more");
  }
  {
    OpTester tester("Trilu", RegisterAxisOps);
    tester.Input("x", {2, 2}, Iota(4)).Input("k", {1}, {0.5f}).Output("y");
    ExpectInvalid(&tester, "Trilu", "not a whole number");
  }
  {
    OpTester tester("CumSum", RegisterAxisOps);
    tester.Input("x", {2, 2}, Iota(4)).Output("y").Arg("axis", 2);
    ExpectInvalid(&tester, "CumSum", "axis 2 is out of range");
  }
  {
    OpTester tester("Tile", RegisterAxisOps);
    tester.Input("x", {2, 2}, Iota(4)).Output("y").Args("repeats", std::vector<int64_t>{2});
    ExpectInvalid(&tester, "Tile", "need one value per dimension");
  }
  {
    OpTester tester("Tile", RegisterAxisOps);
    tester.Input("x", {2}, Iota(2)).Output("y").Args("repeats", std::vector<int64_t>{0});
    ExpectInvalid(&tester, "Tile", "repeats must be >= 1");
  }
  {
    OpTester tester("TopK", RegisterAxisOps);
    tester.Input("x", {2}, Iota(2)).Output("v").Output("i").Arg("k", 3);
    ExpectInvalid(&tester, "TopK", "k 3 exceeds the 2 values");
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
