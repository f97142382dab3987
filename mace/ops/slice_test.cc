#include <limits>
#include <map>
#include <random>
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

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("Slice 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> Iota(int64_t count) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = static_cast<float>(i);
  return values;
}

TEST(SliceTest, RowsAndEveryOtherColumn) {
  // 3x4 of 0..11. Rows 1..2 (end 3), columns 0 and 2 (end "infinity", step 2):
  // 4, 6, 8, 10.
  OpTester tester("Slice", RegisterSlice);
  tester.Input("x", {3, 4}, Iota(12))
      .Output("y")
      .Args("starts", std::vector<int64_t>{1, 0})
      .Args("ends", std::vector<int64_t>{3, kInt64Max})
      .Args("steps", std::vector<int64_t>{1, 2});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{4, 6, 8, 10}));
}

TEST(SliceTest, NegativeStepFromTheBack) {
  // 0..5 from the last element (-1) down past the first (INT64_MIN), step -2:
  // 5, 3, 1.
  OpTester tester("Slice", RegisterSlice);
  tester.Input("x", {6}, Iota(6))
      .Output("y")
      .Args("starts", std::vector<int64_t>{-1})
      .Args("ends", std::vector<int64_t>{kInt64Min})
      .Args("steps", std::vector<int64_t>{-2});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{5, 3, 1}));
}

TEST(SliceTest, NegativeAxisAndEnd) {
  // Axis -1 of 2x4 (0..7) from column 1 to the last but one: columns 1, 2.
  OpTester tester("Slice", RegisterSlice);
  tester.Input("x", {2, 4}, Iota(8))
      .Output("y")
      .Args("starts", std::vector<int64_t>{1})
      .Args("ends", std::vector<int64_t>{-1})
      .Args("axes", std::vector<int64_t>{-1});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 5, 6}));
}

TEST(SliceTest, BoundsAsConstantInputs) {
  // ONNX opset 10 layout. Axis 1 of 2x3x2 (0..11), channels 2 down to 1:
  // batch 0 reads 4 5 2 3, batch 1 reads 10 11 8 9.
  OpTester tester("Slice", RegisterSlice);
  tester.Input("x", {2, 3, 2}, Iota(12))
      .IntWeight("starts", {1}, {2})
      .IntWeight("ends", {1}, {0})
      .IntWeight("axes", {1}, {1})
      .IntWeight("steps", {1}, {-1})
      .Output("y");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{4, 5, 2, 3, 10, 11, 8, 9}));
}

TEST(SliceTest, OptionalAxesInputLeftOut) {
  // Without axes, the bounds apply to dimensions 0, 1, ...: rows 1.. of 3x2.
  OpTester tester("Slice", RegisterSlice);
  tester.Input("x", {3, 2}, Iota(6))
      .IntWeight("starts", {1}, {1})
      .IntWeight("ends", {1}, {std::numeric_limits<int32_t>::max()})
      .EmptyInput()
      .Output("y");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{2, 3, 4, 5}));
}

TEST(SliceTest, Int32ShapeVector) {
  // Shape [1, 3, 224, 224] -> its spatial part.
  OpTester tester("Slice", RegisterSlice);
  tester.IntWeight("shape", {4}, {1, 3, 224, 224})
      .Output("hw", DT_INT32)
      .Args("starts", std::vector<int64_t>{2})
      .Args("ends", std::vector<int64_t>{4});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputInts("hw"), (std::vector<int32_t>{224, 224}));
}

TEST(SliceTest, RegistersFloatAndInt32) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterSlice(&registry).ok());
  EXPECT_TRUE(registry.Has("Slice", DeviceType::CPU, DT_FLOAT));
  EXPECT_TRUE(registry.Has("Slice", DeviceType::CPU, DT_INT32));
}

// The indices ONNX Slice walks through. This is Python's
// slice(start, end, step).indices(dim) except for one case: with a negative
// step, a start before the first element is clamped to element 0 (so one
// element is selected) where Python selects nothing.
std::vector<int64_t> OnnxSliceIndices(int64_t dim, int64_t start, int64_t end, int64_t step) {
  auto normalize = [&](int64_t value, int64_t low) {
    if (value < 0) value += dim;
    if (value < low) return low;
    if (step < 0 && value >= dim) return dim - 1;
    return value >= dim ? dim : value;
  };
  const int64_t first = normalize(start, 0);
  const int64_t last = normalize(end, step < 0 ? -1 : 0);
  std::vector<int64_t> indices;
  for (int64_t i = first; step > 0 ? i < last : i > last; i += step) {
    indices.push_back(i);
    // Stop before i += step could overflow on huge steps.
    if (step > 0 ? last - i <= step : i - last <= -step) break;
  }
  return indices;
}

// Selects per dimension a list of indices, then gathers their cross product
// by counting through the lists like an odometer.
std::vector<float> NaiveSlice(const std::vector<int64_t>& shape, const std::vector<float>& input,
                              const std::vector<std::vector<int64_t>>& picks,
                              std::vector<int64_t>* out_shape) {
  const int rank = static_cast<int>(shape.size());
  out_shape->clear();
  for (const auto& pick : picks) out_shape->push_back(static_cast<int64_t>(pick.size()));
  std::vector<float> out;
  if (NumElements(*out_shape) == 0) return out;
  std::vector<size_t> counter(rank, 0);
  while (true) {
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) src = src * shape[d] + picks[d][counter[d]];
    out.push_back(input[src]);
    int d = rank - 1;
    while (d >= 0 && ++counter[d] == picks[d].size()) counter[d--] = 0;
    if (d < 0) break;
  }
  return out;
}

TEST(SliceTest, MatchesNaiveSliceOnRandomBounds) {
  std::mt19937 engine(1234);
  auto uniform = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(engine);
  };
  int checked = 0, rejected = 0;
  for (int trial = 0; trial < 300; ++trial) {
    SCOPED_TRACE(trial);
    const int rank = static_cast<int>(uniform(1, 5));
    std::vector<int64_t> shape;
    for (int d = 0; d < rank; ++d) shape.push_back(uniform(1, 6));
    // Slice a random subset of axes, in random order, some spelled negative.
    std::vector<int64_t> order;
    for (int d = 0; d < rank; ++d) order.push_back(d);
    std::shuffle(order.begin(), order.end(), engine);
    order.resize(uniform(1, rank));
    std::vector<int64_t> axes, starts, ends, steps;
    std::vector<std::vector<int64_t>> picks;
    for (int d = 0; d < rank; ++d) picks.push_back(OnnxSliceIndices(shape[d], 0, shape[d], 1));
    for (int64_t axis : order) {
      const int64_t dim = shape[axis];
      auto bound = [&]() {
        const int64_t kind = uniform(0, 9);
        return kind == 0 ? kInt64Max : kind == 1 ? kInt64Min : uniform(-dim - 2, dim + 2);
      };
      // Random bounds select nothing about half the time; redraw most of
      // those so that whole slices are often non-empty.
      int64_t start = 0, end = 0, step = 1;
      for (int attempt = 0; attempt < 8; ++attempt) {
        start = bound();
        end = bound();
        step = uniform(-3, 3);
        if (step == 0) step = kInt64Max;
        picks[axis] = OnnxSliceIndices(dim, start, end, step);
        if (!picks[axis].empty() || uniform(0, 9) == 0) break;
      }
      axes.push_back(uniform(0, 1) == 0 ? axis : axis - rank);
      starts.push_back(start);
      ends.push_back(end);
      steps.push_back(step);
    }
    const std::vector<float> input = RandomFloats(NumElements(shape), 500 + trial);
    OpTester tester("Slice", RegisterSlice);
    tester.Input("x", shape, input)
        .Output("y")
        .Args("starts", starts)
        .Args("ends", ends)
        .Args("axes", axes)
        .Args("steps", steps);
    std::vector<int64_t> expected_shape;
    const std::vector<float> expected = NaiveSlice(shape, input, picks, &expected_shape);
    if (expected.empty()) {
      ExpectInvalid(&tester, "select no elements");
      ++rejected;
      continue;
    }
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), expected_shape);
    EXPECT_EQ(tester.OutputData("y"), expected);
    ++checked;
  }
  // Both paths must really be exercised.
  EXPECT_GT(checked, 100);
  EXPECT_GT(rejected, 10);
}

TEST(SliceTest, RejectsEmptySelection) {
  OpTester tester("Slice", RegisterSlice);
  tester.Input("x", {4}, Iota(4))
      .Output("y")
      .Args("starts", std::vector<int64_t>{3})
      .Args("ends", std::vector<int64_t>{1});
  ExpectInvalid(&tester, "start 3, end 1 and step 1 select no elements from axis 0");
}

TEST(SliceTest, RejectsBadArgs) {
  struct Bad {
    std::vector<int64_t> starts, ends, axes, steps;
    std::string fragment;
  };
  const std::vector<Bad> bads = {
      {{0}, {1, 2}, {}, {}, "starts has 1 values but ends has 2"},
      {{0}, {1}, {0, 1}, {}, "starts has 1 values but axes has 2"},
      {{0}, {1}, {}, {1, 1}, "starts has 1 values but steps has 2"},
      {{0}, {1}, {}, {0}, "steps must not be 0"},
      {{0}, {1}, {2}, {}, "axis 2 is out of range for data input shape [2,3]"},
      {{0}, {1}, {-3}, {}, "axis -3 is out of range"},
      {{0, 0}, {1, 1}, {1, -1}, {}, "axes list dimension 1 more than once"},
      {{0, 0, 0}, {1, 1, 1}, {}, {}, "starts has 3 values but the data input has rank 2"},
  };
  for (size_t i = 0; i < bads.size(); ++i) {
    SCOPED_TRACE(i);
    const Bad& bad = bads[i];
    OpTester tester("Slice", RegisterSlice);
    tester.Input("x", {2, 3}, Iota(6))
        .Output("y")
        .Args("starts", bad.starts)
        .Args("ends", bad.ends);
    if (!bad.axes.empty()) tester.Args("axes", bad.axes);
    if (!bad.steps.empty()) tester.Args("steps", bad.steps);
    ExpectInvalid(&tester, bad.fragment);
  }
}

TEST(SliceTest, RejectsMissingBounds) {
  OpTester tester("Slice", RegisterSlice);
  tester.Input("x", {2}, Iota(2)).Output("y").Args("starts", std::vector<int64_t>{0});
  ExpectInvalid(&tester, "needs starts and ends");
  OpTester no_ends("Slice", RegisterSlice);
  no_ends.Input("x", {2}, Iota(2)).IntWeight("starts", {1}, {0}).Output("y");
  ExpectInvalid(&no_ends, "needs both a starts and an ends input");
}

TEST(SliceTest, RejectsBadBoundInputs) {
  OpTester both("Slice", RegisterSlice);
  both.Input("x", {2}, Iota(2))
      .IntWeight("starts", {1}, {0})
      .IntWeight("ends", {1}, {1})
      .Output("y")
      .Args("starts", std::vector<int64_t>{0});
  ExpectInvalid(&both, "either as arguments or as inputs, not both");
  OpTester float_bounds("Slice", RegisterSlice);
  float_bounds.Input("x", {2}, Iota(2))
      .Weight("starts", {1}, {0})
      .IntWeight("ends", {1}, {1})
      .Output("y");
  ExpectInvalid(&float_bounds, "starts input 'starts' is float32 but must be int32");
  OpTester matrix("Slice", RegisterSlice);
  matrix.Input("x", {2}, Iota(2))
      .IntWeight("starts", {1}, {0})
      .IntWeight("ends", {1, 1}, {1})
      .Output("y");
  ExpectInvalid(&matrix, "ends input 'ends' has shape [1,1] but must be 1-D");
}

// Bounds computed at run time (float32 model inputs, or int32) against the
// same slice with constant bounds, on random bounds that keep the planned
// shape from run to run; bounds that select another shape are refused.
TEST(SliceTest, ComputedBoundsMatchConstantBounds) {
  std::mt19937 engine(4321);
  auto uniform = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(engine);
  };
  const std::vector<int64_t> shape = {4, 7, 5};
  const std::vector<float> input = RandomFloats(NumElements(shape), 77);
  // Axis 1 (or -2), length 3, step 1 or 2 (or -1 walking back); axis 0 fixed.
  OpTester computed("Slice", RegisterSlice);
  computed.Input("x", shape, input)
      .Input("starts", {2}, {0, 1})
      .Input("ends", {2}, {2, 4})
      .Input("axes", {2}, {0, 1})
      .Input("steps", {2}, {1, 1})
      .Output("y")
      .PlannedShape({2, 3, 5});
  ASSERT_TRUE(computed.Run().ok());
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    SCOPED_TRACE(trial);
    const int64_t step = std::vector<int64_t>{1, 2, -1}[uniform(0, 2)];
    const int64_t span = step > 0 ? 2 * step + 1 : 3;
    const int64_t start = step > 0 ? uniform(0, 7 - span) : uniform(3, 6);
    const int64_t end = step > 0 ? start + span : start - 3;
    const int64_t axis = uniform(0, 1) == 0 ? 1 : -2;
    const std::vector<int64_t> starts = {uniform(0, 2), start}, ends = {starts[0] + 2, end},
                               axes = {0, axis}, steps = {1, step};
    OpTester constant("Slice", RegisterSlice);
    constant.Input("x", shape, input)
        .Output("y")
        .Args("starts", starts)
        .Args("ends", ends)
        .Args("axes", axes)
        .Args("steps", steps);
    ASSERT_TRUE(constant.Run().ok());
    ASSERT_EQ(constant.OutputShape("y"), (std::vector<int64_t>{2, 3, 5}));
    auto floats = [](const std::vector<int64_t>& v) {
      return std::vector<float>(v.begin(), v.end());
    };
    const MaceStatus status = computed.RunAgain({{"starts", floats(starts)},
                                                 {"ends", floats(ends)},
                                                 {"axes", floats(axes)},
                                                 {"steps", floats(steps)}});
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(computed.OutputData("y"), constant.OutputData("y"));
    ++checked;
  }
  EXPECT_EQ(checked, 40);
  const std::map<std::string, std::vector<float>> good = {
      {"starts", {0, 1}}, {"ends", {2, 4}}, {"axes", {0, 1}}, {"steps", {1, 1}}};
  ASSERT_TRUE(computed.RunAgain(good).ok());
  const struct {
    const char* input;
    std::vector<float> values;
    const char* fragment;
  } bads[] = {
      {"ends", {3, 4}, "select [3,3,5] in this run but the output was planned as [2,3,5]"},
      {"ends", {2, 1}, "select no elements from axis 1"},
      {"axes", {1, 1}, "axes list dimension 1 more than once"},
      {"axes", {0, 3}, "axis 3 is out of range"},
      {"steps", {1, 0}, "steps must not be 0"},
      {"starts", {0, 0.5f}, "which is not a whole number"},
  };
  for (const auto& bad : bads) {
    std::map<std::string, std::vector<float>> values = good;
    values[bad.input] = bad.values;
    const MaceStatus status = computed.RunAgain(values);
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << bad.fragment;
    EXPECT_NE(status.information().find(bad.fragment), std::string::npos) << status.information();
  }
  ASSERT_TRUE(computed.RunAgain(good).ok());
}

TEST(SliceTest, RejectsBadComputedBounds) {
  OpTester unplanned("Slice", RegisterSlice);
  unplanned.Input("x", {4}, Iota(4)).Input("starts", {1}, {0}).Input("ends", {1}, {2}).Output("y");
  ExpectInvalid(&unplanned, "must give its planned shape (output_shape)");
  OpTester larger("Slice", RegisterSlice);
  larger.Input("x", {4}, Iota(4))
      .Input("starts", {1}, {0})
      .IntWeight("ends", {1}, {2})
      .Output("y")
      .PlannedShape({5});
  ExpectInvalid(&larger, "planned output shape [5] is larger than data input shape [4]");
  OpTester matrix("Slice", RegisterSlice);
  matrix.Input("x", {4}, Iota(4))
      .Input("starts", {1, 1}, {0})
      .Input("ends", {1}, {2})
      .Output("y")
      .PlannedShape({2});
  ExpectInvalid(&matrix, "starts input 'starts' has shape [1,1] but must be 1-D");
}

TEST(SliceTest, RejectsOutputTypeMismatch) {
  OpTester tester("Slice", RegisterSlice);
  tester.Input("x", {2}, Iota(2))
      .Output("y", DT_INT32)
      .Args("starts", std::vector<int64_t>{0})
      .Args("ends", std::vector<int64_t>{1});
  ExpectInvalid(&tester, "output 'y' is declared int32 but this kernel writes float32");
}

TEST(SliceTest, EmptyDataGivesAnEmptyOutput) {
  // No rows (a data-dependent op found none): column 2 of [0, 3] is [0, 1],
  // forwards or backwards.
  for (int64_t step : {1, -1}) {
    OpTester tester("Slice", RegisterSlice);
    tester.Input("x", {0, 3}, {})
        .Output("y")
        .Args("starts", std::vector<int64_t>{0, 2})
        .Args("ends", std::vector<int64_t>{kInt64Max, 3})
        .Args("steps", std::vector<int64_t>{step, 1});
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{0, 1}));
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
