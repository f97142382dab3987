#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
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

constexpr int kMean = 0;
constexpr int kMin = 1;
constexpr int kMax = 2;
constexpr int kProd = 3;
constexpr int kSum = 4;

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("Reduce 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

struct Golden {
  int type;
  std::vector<int64_t> axes;
  int keepdims;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

TEST(ReduceTest, HandComputed) {
  // x = [[1, 2, 3], [4, 5, 6]].
  //   MEAN over axis 1: (1+2+3)/3 = 2 and (4+5+6)/3 = 5, kept as [2, 1].
  //   MIN over axis 0: column minima 1, 2, 3.
  //   MAX over axis -1 without keepdims: row maxima 3, 6 as [2].
  //   PROD over all: 720 as [1, 1]. SUM over all without keepdims: 21 as a
  //   rank-0 scalar [].
  //   SUM over both axes listed explicitly, in reverse: 21 as [1, 1].
  const std::vector<Golden> cases = {
      {kMean, {1}, 1, {2, 1}, {2, 5}}, {kMin, {0}, 1, {1, 3}, {1, 2, 3}},
      {kMax, {-1}, 0, {2}, {3, 6}},    {kProd, {}, 1, {1, 1}, {720}},
      {kSum, {}, 0, {}, {21}},         {kSum, {1, 0}, 1, {1, 1}, {21}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Golden& c = cases[i];
    OpTester tester("Reduce", RegisterReduce);
    tester.Input("x", {2, 3}, {1, 2, 3, 4, 5, 6})
        .Output("y")
        .Arg("reduce_type", c.type)
        .Arg("keepdims", c.keepdims);
    if (!c.axes.empty()) tester.Args("axis", c.axes);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputShape("y"), c.shape);
    EXPECT_EQ(tester.OutputData("y"), c.values);
  }
}

TEST(ReduceTest, SpatialMeanIsTheDefault) {
  // Global average pooling as a Reduce: channel 0 = 1..4, channel 1 = 5..8,
  // means 2.5 and 6.5, with the default type MEAN and keepdims 1.
  OpTester tester("Reduce", RegisterReduce);
  tester.Input("x", {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})
      .Output("y")
      .Args("axis", std::vector<int64_t>{2, 3});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2, 1, 1}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{2.5f, 6.5f}));
}

TEST(ReduceTest, SumAndMeanAccumulateInDouble) {
  // 2^24 followed by eight ones. A float32 accumulator sticks at 2^24 (each +1
  // rounds back down); double keeps them: SUM = 16777224, exactly a float, and
  // MEAN = 16777224 / 9 = 1864136.
  std::vector<float> values(9, 1.f);
  values[0] = 16777216.f;
  for (int type : {kSum, kMean}) {
    OpTester tester("Reduce", RegisterReduce);
    tester.Input("x", {9}, values).Output("y").Arg("reduce_type", type);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1}));
    EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{type == kSum ? 16777224.f : 1864136.f}));
  }
}

TEST(ReduceTest, MinMaxPropagateNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int type : {kMin, kMax}) {
    OpTester tester("Reduce", RegisterReduce);
    tester.Input("x", {2, 3}, {1, nan, 3, 4, 5, 6})
        .Output("y")
        .Arg("reduce_type", type)
        .Args("axis", std::vector<int64_t>{1});
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    const std::vector<float> output = tester.OutputData("y");
    EXPECT_TRUE(std::isnan(output[0]));
    EXPECT_EQ(output[1], type == kMin ? 4.f : 6.f);
  }
}

struct ReduceCase {
  std::vector<int64_t> shape;
  std::vector<int64_t> axes;  // empty: all
  bool keepdims;
};

// Scatters every input element into its output slot (the input index with
// the reduced coordinates dropped), accumulating all five reductions at once.
void NaiveReduce(const ReduceCase& c, const std::vector<float>& input,
                 std::vector<int64_t>* out_shape, std::vector<std::vector<float>>* results) {
  const int rank = static_cast<int>(c.shape.size());
  std::vector<bool> reduced(rank, c.axes.empty());
  for (int64_t a : c.axes) reduced[a < 0 ? a + rank : a] = true;
  out_shape->clear();
  std::vector<int64_t> kept;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) kept.push_back(c.shape[i]);
    if (!reduced[i] || c.keepdims) out_shape->push_back(reduced[i] ? 1 : c.shape[i]);
  }
  const int64_t out_count = NumElements(kept);
  std::vector<double> sum(out_count, 0.0), prod(out_count, 1.0), count(out_count, 0.0);
  std::vector<float> lo(out_count, std::numeric_limits<float>::infinity());
  std::vector<float> hi(out_count, -std::numeric_limits<float>::infinity());
  std::vector<int64_t> coord(rank, 0);
  for (float v : input) {
    int64_t slot = 0;
    for (int i = 0; i < rank; ++i) {
      if (!reduced[i]) slot = slot * c.shape[i] + coord[i];
    }
    sum[slot] += v;
    prod[slot] *= v;
    count[slot] += 1;
    lo[slot] = std::min(lo[slot], v);
    hi[slot] = std::max(hi[slot], v);
    for (int i = rank - 1; i >= 0; --i) {
      if (++coord[i] < c.shape[i]) break;
      coord[i] = 0;
    }
  }
  results->assign(5, std::vector<float>(out_count));
  for (int64_t o = 0; o < out_count; ++o) {
    (*results)[kMean][o] = static_cast<float>(sum[o] / count[o]);
    (*results)[kMin][o] = lo[o];
    (*results)[kMax][o] = hi[o];
    (*results)[kProd][o] = static_cast<float>(prod[o]);
    (*results)[kSum][o] = static_cast<float>(sum[o]);
  }
}

TEST(ReduceTest, MatchesNaiveReduce) {
  const std::vector<ReduceCase> cases = {
      {{7}, {}, true},
      {{7}, {0}, false},
      {{1, 1, 1, 1}, {}, false},
      {{2, 3, 4, 5}, {2, 3}, true},
      {{2, 3, 4, 5}, {1}, false},
      {{2, 3, 4, 5}, {0, 2}, true},
      {{2, 3, 4, 5}, {-1, -4}, false},
      {{3, 1, 5, 1}, {1, 3}, false},
      {{2, 3, 1, 4, 3}, {0, 2, 4}, true},
      {{5, 7}, {0}, true},
      {{3, 4, 5}, {}, false},
      {{1, 9, 7, 3}, {3, 1}, false},
      {{1, 37, 7, 7}, {2, 3}, true},  // global average pooling of an odd channel count
      {{2, 5, 3, 9}, {3}, false},
  };
  uint32_t seed = 1900;
  for (size_t i = 0; i < cases.size(); ++i) {
    const ReduceCase& c = cases[i];
    // Values near 1 keep PROD over dozens of elements in a sane range.
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++, 0.5f, 1.5f);
    std::vector<int64_t> expected_shape;
    std::vector<std::vector<float>> expected;
    NaiveReduce(c, input, &expected_shape, &expected);
    for (int type : {kMean, kMin, kMax, kProd, kSum}) {
      SCOPED_TRACE(::testing::Message() << "case " << i << " type " << type);
      OpTester tester("Reduce", RegisterReduce);
      tester.Input("x", c.shape, input)
          .Output("y")
          .Arg("reduce_type", type)
          .Arg("keepdims", c.keepdims ? 1 : 0);
      if (!c.axes.empty()) tester.Args("axis", c.axes);
      const MaceStatus run_status = tester.Run();
      ASSERT_TRUE(run_status.ok()) << run_status.information();
      ASSERT_EQ(tester.OutputShape("y"), expected_shape);
      ExpectNear(tester.OutputData("y"), expected[type], 1e-6f, 1e-5f);
    }
  }
}

// Axes as input 1: a weight (int32) and a tensor computed at run time
// (float32, as model inputs of integer type are fed) against the naive
// reduction, over runs whose axes keep the planned shape; axes that give
// another shape are refused.
TEST(ReduceTest, AxesAsInputMatchNaiveReduce) {
  const std::vector<int64_t> shape = {3, 1, 4, 1};
  const std::vector<float> input = RandomFloats(NumElements(shape), 2024, 0.5f, 1.5f);
  // Axes sets that all give [3, 4] without keepdims: 1 and 3 in any order and
  // sign. With keepdims each gives [3, 1, 4, 1].
  const std::vector<std::vector<int64_t>> same_shape = {{1, 3}, {3, 1}, {-3, -1}, {-1, 1}};
  for (int keepdims : {0, 1}) {
    const std::vector<int64_t> planned =
        keepdims ? std::vector<int64_t>{3, 1, 4, 1} : std::vector<int64_t>{3, 4};
    for (int type : {kMean, kMin, kMax, kProd, kSum}) {
      SCOPED_TRACE(::testing::Message() << "keepdims " << keepdims << " type " << type);
      OpTester computed("Reduce", RegisterReduce);
      computed.Input("x", shape, input)
          .Input("axes", {2}, {1, 3})
          .Output("y")
          .Arg("reduce_type", type)
          .Arg("keepdims", keepdims)
          .PlannedShape(planned);
      ASSERT_TRUE(computed.Run().ok());
      for (const std::vector<int64_t>& axes : same_shape) {
        std::vector<int64_t> expected_shape;
        std::vector<std::vector<float>> expected;
        NaiveReduce({shape, axes, keepdims == 1}, input, &expected_shape, &expected);
        ASSERT_EQ(expected_shape, planned);
        const MaceStatus status =
            computed.RunAgain("axes", std::vector<float>(axes.begin(), axes.end()));
        ASSERT_TRUE(status.ok()) << status.information();
        ASSERT_EQ(computed.OutputShape("y"), planned);
        ExpectNear(computed.OutputData("y"), expected[type], 1e-6f, 1e-5f);
        OpTester weight("Reduce", RegisterReduce);
        weight.Input("x", shape, input)
            .IntWeight("axes", {static_cast<int64_t>(axes.size())},
                       std::vector<int32_t>(axes.begin(), axes.end()))
            .Output("y")
            .Arg("reduce_type", type)
            .Arg("keepdims", keepdims);
        ASSERT_TRUE(weight.Run().ok());
        ASSERT_EQ(weight.OutputShape("y"), planned);
        EXPECT_EQ(weight.OutputData("y"), computed.OutputData("y"));
      }
    }
  }
}

TEST(ReduceTest, ComputedAxesRunsWithChangedValues) {
  // x = [[1, 2, 3], [4, 5, 6]]: SUM over axis 1 gives the row sums 6 and 15
  // as [2, 1]; axis -1 does the same; axis 0 gives [1, 3] and is refused,
  // and a later run with good axes still works.
  OpTester tester("Reduce", RegisterReduce);
  tester.Input("x", {2, 3}, {1, 2, 3, 4, 5, 6})
      .Input("axes", {1}, {1})
      .Output("y")
      .Arg("reduce_type", kSum)
      .PlannedShape({2, 1});
  ASSERT_TRUE(tester.Run().ok());
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{6, 15}));
  ASSERT_TRUE(tester.RunAgain("axes", {-1}).ok());
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{6, 15}));
  const struct {
    std::vector<float> axes;
    const char* fragment;
  } bads[] = {
      {{0}, "axes [0] give shape [1,3] in this run but the output was planned as [2,1]"},
      {{2}, "axis 2 is out of range for input shape [2,3]"},
      {{0.5f}, "which is not a whole number"},
  };
  for (const auto& bad : bads) {
    const MaceStatus status = tester.RunAgain("axes", bad.axes);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << bad.fragment;
    EXPECT_NE(status.information().find(bad.fragment), std::string::npos)
        << status.information();
  }
  ASSERT_TRUE(tester.RunAgain("axes", {1}).ok());
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{6, 15}));
}

TEST(ReduceTest, ComputedAxesReduceToAPlannedScalar) {
  // Axes 0 and 1 without keepdims reduce everything: a rank-0 output, as
  // the empty planned shape says; a repeated axis is refused.
  OpTester tester("Reduce", RegisterReduce);
  tester.Input("x", {2, 3}, {1, 2, 3, 4, 5, 6})
      .Input("axes", {2}, {0, 1})
      .Output("y")
      .Arg("reduce_type", kSum)
      .Arg("keepdims", 0)
      .PlannedShape({});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), std::vector<int64_t>{});
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{21}));
  EXPECT_EQ(tester.RunAgain("axes", {1, 1}).code(), MaceStatus::MACE_INVALID_ARGS);
}

TEST(ReduceTest, NoopWithEmptyAxesCopies) {
  // No axes with noop_with_empty_axes 1 reduces nothing: every type copies.
  for (int type : {kMean, kMin, kMax, kProd, kSum}) {
    OpTester tester("Reduce", RegisterReduce);
    tester.Input("x", {2, 3}, {1, -2, 3, 4, 5.5f, 6})
        .Output("y")
        .Arg("reduce_type", type)
        .Arg("noop_with_empty_axes", 1);
    ASSERT_TRUE(tester.Run().ok());
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, -2, 3, 4, 5.5f, 6}));
  }
}

TEST(ReduceTest, EmptyAxesInputReducesAllOrCopies) {
  // An axes input of shape [0], computed or a weight, is "no axes": every
  // axis is reduced, or with noop_with_empty_axes 1 none.
  for (bool weight : {false, true}) {
    for (int noop : {0, 1}) {
      SCOPED_TRACE(std::to_string(weight) + " " + std::to_string(noop));
      OpTester tester("Reduce", RegisterReduce);
      tester.Input("x", {2, 3}, {1, -2, 3, 4, 5.5f, 6});
      if (weight) {
        tester.IntWeight("axes", {0}, {});
      } else {
        tester.Input("axes", {0}, {});
      }
      tester.Output("y").Arg("reduce_type", kSum).Arg("noop_with_empty_axes", noop);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      if (noop) {
        EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 3}));
        EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, -2, 3, 4, 5.5f, 6}));
      } else {
        EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1}));
        EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{17.5f}));
      }
    }
  }
}

TEST(ReduceTest, NoElementsGiveTheEmptyValues) {
  // Reducing an axis of length 0: ONNX's values for an empty set, for a
  // middle axis (the reference path) and a trailing one (the run path).
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<int, float>> types = {
      {kMin, inf}, {kMax, -inf}, {kProd, 1.f}, {kSum, 0.f}};
  for (const auto& [type, value] : types) {
    for (const auto& shapes : {std::vector<std::vector<int64_t>>{{2, 0, 3}, {1}, {2, 1, 3}},
                               std::vector<std::vector<int64_t>>{{3, 0}, {1}, {3, 1}},
                               std::vector<std::vector<int64_t>>{{0, 2}, {0, 1}, {1, 1}}}) {
      SCOPED_TRACE(std::to_string(type) + " " + std::to_string(shapes[0][0]));
      OpTester tester("Reduce", RegisterReduce);
      tester.Input("x", shapes[0], {}).Output("y").Arg("reduce_type", type).Args("axis", shapes[1]);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      EXPECT_EQ(tester.OutputShape("y"), shapes[2]);
      EXPECT_EQ(tester.OutputData("y"), std::vector<float>(NumElements(shapes[2]), value));
    }
  }
  OpTester mean("Reduce", RegisterReduce);
  mean.Input("x", {2, 0}, {}).Output("y").Arg("reduce_type", kMean).Args("axis", std::vector<int64_t>{1});
  ASSERT_TRUE(mean.Run().ok());
  for (float v : mean.OutputData("y")) EXPECT_TRUE(std::isnan(v));
}

TEST(ReduceTest, RejectsBadAxesInputs) {
  OpTester unplanned("Reduce", RegisterReduce);
  unplanned.Input("x", {2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5}).Input("axes", {1}, {1}).Output("y");
  ExpectInvalid(&unplanned, "must give its planned shape (output_shape)");
  OpTester both("Reduce", RegisterReduce);
  both.Input("x", {2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5})
      .IntWeight("axes", {1}, {1})
      .Output("y")
      .Args("axis", std::vector<int64_t>{1});
  ExpectInvalid(&both, "either as the axis argument or as input 1, not both");
  OpTester matrix("Reduce", RegisterReduce);
  matrix.Input("x", {2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5}).Input("axes", {1, 1}, {1}).Output("y").PlannedShape({2, 1});
  ExpectInvalid(&matrix, "axes input 'axes' has shape [1,1] but must be 1-D");
  OpTester rank("Reduce", RegisterReduce);
  rank.Input("x", {2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5}).Input("axes", {1}, {1}).Output("y").PlannedShape({2});
  ExpectInvalid(&rank, "planned output shape [2] does not have the rank of input shape [2,3]");
  OpTester larger("Reduce", RegisterReduce);
  larger.Input("x", {2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5})
      .Input("axes", {1}, {1})
      .Output("y")
      .Arg("keepdims", 0)
      .PlannedShape({7});
  ExpectInvalid(&larger, "planned output shape [7] has more elements than input shape [2,3]");
  OpTester bad_weight("Reduce", RegisterReduce);
  bad_weight.Input("x", {2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5}).IntWeight("axes", {1}, {3}).Output("y");
  ExpectInvalid(&bad_weight, "axis 3 is out of range for input shape [2,3]");
}

TEST(ReduceTest, RejectsBadArgs) {
  struct BadArgs {
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const std::vector<BadArgs> cases = {
      {[](OpTester* t) { t->Arg("reduce_type", 5); }, "reduce_type must be 0 (MEAN)"},
      {[](OpTester* t) { t->Arg("reduce_type", -1); }, "reduce_type must be"},
      {[](OpTester* t) { t->Arg("keepdims", 2); }, "keepdims must be 0 or 1, got 2"},
      {[](OpTester* t) { t->Args("axis", std::vector<int64_t>{4}); },
       "axis 4 is out of range for input shape [1,2,3,4]"},
      {[](OpTester* t) { t->Args("axis", std::vector<int64_t>{-5}); }, "axis -5 is out of range"},
      {[](OpTester* t) {
         t->Args("axis", std::vector<int64_t>{1, -3});
       },
       "axis -3 is listed twice in [1,-3]"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("Reduce", RegisterReduce);
    tester.Input("x", {1, 2, 3, 4}, std::vector<float>(24)).Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

TEST(ReduceTest, RejectsBadTypes) {
  OpTester int_input("Reduce", RegisterReduce);
  int_input.IntWeight("x", {2}, {1, 2}).Output("y");
  ExpectInvalid(&int_input, "input is int32 but must be float32");
  OpTester int_output("Reduce", RegisterReduce);
  int_output.Input("x", {2}, {1, 2}).Output("y", DT_INT32);
  ExpectInvalid(&int_output, "output 'y' is declared int32 but this kernel writes float32");
}

}  // namespace
}  // namespace ops
}  // namespace mace
