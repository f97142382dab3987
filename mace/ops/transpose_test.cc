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
  EXPECT_NE(status.information().find("Transpose 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(TransposeTest, ReversesByDefault) {
  // The matrix [[1, 2, 3], [4, 5, 6]] transposed reads down its columns.
  OpTester tester("Transpose", RegisterTranspose);
  tester.Input("x", {2, 3}, {1, 2, 3, 4, 5, 6}).Output("y");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(TransposeTest, NchwToNhwc) {
  // Channel planes [1, 2, 3, 4] and [5, 6, 7, 8] interleave pixel by pixel.
  OpTester tester("Transpose", RegisterTranspose);
  tester.Input("x", {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})
      .Output("y")
      .Args("dims", std::vector<int64_t>{0, 2, 3, 1});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 5, 2, 6, 3, 7, 4, 8}));
}

TEST(TransposeTest, NegativeDims) {
  // dims [0, -1, 1] is [0, 2, 1]: swap the last two axes of [1, 2, 3].
  OpTester tester("Transpose", RegisterTranspose);
  tester.Input("x", {1, 2, 3}, {1, 2, 3, 4, 5, 6})
      .Output("y")
      .Args("dims", std::vector<int64_t>{0, -1, 1});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(TransposeTest, Int32) {
  OpTester tester("Transpose", RegisterTranspose);
  tester.IntWeight("x", {2, 2}, {1, 2, 3, 4}).Output("y", DT_INT32);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputInts("y"), (std::vector<int32_t>{1, 3, 2, 4}));
}

TEST(TransposeTest, RegistersFloatAndInt32) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterTranspose(&registry).ok());
  EXPECT_TRUE(registry.Has("Transpose", DeviceType::CPU, DT_FLOAT));
  EXPECT_TRUE(registry.Has("Transpose", DeviceType::CPU, DT_INT32));
}

// Scatters each input element to its permuted position (the kernel gathers).
std::vector<float> NaiveTranspose(const std::vector<int64_t>& shape,
                                  const std::vector<float>& input, const std::vector<int64_t>& perm,
                                  std::vector<int64_t>* out_shape) {
  const int rank = static_cast<int>(shape.size());
  out_shape->clear();
  for (int64_t p : perm) out_shape->push_back(shape[p]);
  std::vector<float> out(input.size());
  for (int64_t flat = 0; flat < static_cast<int64_t>(input.size()); ++flat) {
    std::vector<int64_t> coord(rank);
    int64_t rest = flat;
    for (int d = rank - 1; d >= 0; --d) {
      coord[d] = rest % shape[d];
      rest /= shape[d];
    }
    int64_t dst = 0;
    for (int d = 0; d < rank; ++d) dst = dst * (*out_shape)[d] + coord[perm[d]];
    out[dst] = input[flat];
  }
  return out;
}

TEST(TransposeTest, MatchesNaiveTranspose) {
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> dims;  // empty: reverse
  };
  const std::vector<Case> cases = {
      {{7}, {}},                                 // rank 1
      {{1, 1, 1, 1}, {3, 1, 0, 2}},              // all size-1
      {{1, 3, 5, 7}, {0, 2, 3, 1}},              // NCHW -> NHWC, odd sizes
      {{1, 5, 7, 3}, {0, 3, 1, 2}},              // NHWC -> NCHW
      {{2, 3, 4}, {}},                           // reverse
      {{2, 3, 4}, {0, 1, 2}},                    // identity
      {{2, 1, 5, 1, 3}, {-1, 0, -2, 2, 1}},      // size-1 dims, negative entries
      {{2, 3, 2, 3, 2, 2}, {5, 3, 1, 0, 2, 4}},  // rank 6
      {{1, 2, 29, 2, 2}, {0, 2, 1, 3, 4}},       // channel shuffle's transpose
  };
  uint32_t seed = 30;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const int rank = static_cast<int>(c.shape.size());
    std::vector<int64_t> perm;
    for (int64_t d : c.dims) perm.push_back(d < 0 ? d + rank : d);
    if (c.dims.empty()) {
      for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
    }
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("Transpose", RegisterTranspose);
    tester.Input("x", c.shape, input).Output("y");
    if (!c.dims.empty()) tester.Args("dims", c.dims);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    std::vector<int64_t> expected_shape;
    const std::vector<float> expected = NaiveTranspose(c.shape, input, perm, &expected_shape);
    EXPECT_EQ(tester.OutputShape("y"), expected_shape);
    EXPECT_EQ(tester.OutputData("y"), expected);
  }
}

TEST(TransposeTest, RejectsNonPermutations) {
  struct Bad {
    std::vector<int64_t> dims;
    std::string fragment;
  };
  for (const Bad& bad :
       std::vector<Bad>{{{0, 1}, "dims [0,1] has 2 entries but the input has shape [1,2,3]"},
                        {{0, 1, 1}, "is not a permutation: dimension 1 appears twice"},
                        {{0, 2, -1}, "is not a permutation: dimension 2 appears twice"},
                        {{0, 1, 3}, "is not a permutation: 3 is out of range for rank 3"},
                        {{0, 1, -4}, "-4 is out of range"}}) {
    OpTester tester("Transpose", RegisterTranspose);
    tester.Input("x", {1, 2, 3}, std::vector<float>(6)).Output("y").Args("dims", bad.dims);
    ExpectInvalid(&tester, bad.fragment);
  }
}

TEST(TransposeTest, RejectsOutputTypeMismatch) {
  OpTester tester("Transpose", RegisterTranspose);
  tester.IntWeight("x", {2}, {1, 2}).Output("y");
  ExpectInvalid(&tester, "output 'y' is declared float32 but this kernel writes int32");
}

TEST(TransposeTest, RejectsWrongArity) {
  OpTester tester("Transpose", RegisterTranspose);
  tester.EmptyInput().Output("y");
  ExpectInvalid(&tester, "input is missing");
}

}  // namespace
}  // namespace ops
}  // namespace mace
