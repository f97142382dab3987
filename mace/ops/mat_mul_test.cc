#include <algorithm>
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

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("MatMul 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(MatMulTest, PlainProductWithBias) {
  // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]]:
  // 1*7+2*9+3*11 = 58, 1*8+2*10+3*12 = 64, 4*7+5*9+6*11 = 139, 4*8+5*10+6*12 = 154;
  // bias [1, -1] -> 59, 63, 140, 153.
  OpTester tester("MatMul", RegisterMatMul);
  tester.Input("a", {2, 3}, {1, 2, 3, 4, 5, 6})
      .Weight("b", {3, 2}, {7, 8, 9, 10, 11, 12})
      .Weight("bias", {2}, {1, -1})
      .Output("y");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{59, 63, 140, 153}));
  EXPECT_EQ(tester.op().Macs(), 2 * 3 * 2);
}

TEST(MatMulTest, TransposedOperands) {
  // The same product with A stored as A^T and B as B^T.
  OpTester tester("MatMul", RegisterMatMul);
  tester.Weight("a", {3, 2}, {1, 4, 2, 5, 3, 6})
      .Input("b", {2, 3}, {7, 9, 11, 8, 10, 12})
      .Output("y")
      .Arg("transpose_a", 1)
      .Arg("transpose_b", 1);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{58, 64, 139, 154}));
}

TEST(MatMulTest, BroadcastsBatch) {
  // Two 1x2 rows [1, 2] and [3, 4] against one shared [1; 10]: 21 and 43.
  OpTester tester("MatMul", RegisterMatMul);
  tester.Input("a", {2, 1, 2}, {1, 2, 3, 4}).Weight("b", {2, 1}, {1, 10}).Output("y");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 1, 1}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{21, 43}));
}

// Reads element `index` (a full multi-index, right-aligned to `shape`, with
// broadcast dimensions pinned to 0) of a row-major tensor.
float At(const std::vector<float>& data, const std::vector<int64_t>& shape,
         const std::vector<int64_t>& index) {
  int64_t offset = 0;
  const size_t skip = index.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t coordinate = shape[i] == 1 ? 0 : index[skip + i];
    EXPECT_LT(coordinate, shape[i]);
    offset = offset * shape[i] + coordinate;
  }
  return data[offset];
}

struct MatMulCase {
  std::vector<int64_t> a_shape, b_shape;
  bool transpose_a, transpose_b, with_bias;
};

std::vector<float> NaiveMatMul(const MatMulCase& c, const std::vector<float>& a,
                               const std::vector<float>& b, const std::vector<float>& bias,
                               std::vector<int64_t>* out_shape) {
  const size_t rank = std::max(c.a_shape.size(), c.b_shape.size());
  std::vector<int64_t> batch(rank - 2, 1);
  for (size_t i = 0; i + 2 < rank; ++i) {
    const int64_t from_end = static_cast<int64_t>(rank - i);
    const int64_t ad = from_end <= static_cast<int64_t>(c.a_shape.size())
                           ? c.a_shape[c.a_shape.size() - from_end]
                           : 1;
    const int64_t bd = from_end <= static_cast<int64_t>(c.b_shape.size())
                           ? c.b_shape[c.b_shape.size() - from_end]
                           : 1;
    batch[i] = std::max(ad, bd);
  }
  const int64_t m = c.transpose_a ? c.a_shape.back() : c.a_shape[c.a_shape.size() - 2];
  const int64_t k = c.transpose_a ? c.a_shape[c.a_shape.size() - 2] : c.a_shape.back();
  const int64_t n = c.transpose_b ? c.b_shape[c.b_shape.size() - 2] : c.b_shape.back();
  *out_shape = batch;
  out_shape->push_back(m);
  out_shape->push_back(n);
  std::vector<float> out;
  std::vector<int64_t> index(rank, 0);  // batch coordinates, then two matrix ones
  const int64_t batch_count = NumElements(batch);
  for (int64_t flat = 0; flat < batch_count; ++flat) {
    for (int64_t rest = flat, i = static_cast<int64_t>(batch.size()) - 1; i >= 0; --i) {
      index[i] = rest % batch[i];
      rest /= batch[i];
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float sum = c.with_bias ? bias[j] : 0.f;
        for (int64_t l = 0; l < k; ++l) {
          std::vector<int64_t> ai = index, bi = index;
          ai[rank - 2] = c.transpose_a ? l : i, ai[rank - 1] = c.transpose_a ? i : l;
          bi[rank - 2] = c.transpose_b ? j : l, bi[rank - 1] = c.transpose_b ? l : j;
          sum += At(a, c.a_shape, ai) * At(b, c.b_shape, bi);
        }
        out.push_back(sum);
      }
    }
  }
  return out;
}

TEST(MatMulTest, MatchesNaive) {
  const std::vector<MatMulCase> cases = {
      {{1, 1}, {1, 1}, false, false, false},
      {{3, 5}, {5, 7}, false, false, true},
      {{2, 3, 5}, {5, 4}, false, false, true},           // B shared across the batch
      {{5, 3}, {2, 5, 9}, true, false, false},           // A shared, transposed
      {{4, 1, 3, 5}, {3, 5, 6}, false, false, false},    // both broadcast
      {{2, 5, 3}, {2, 7, 5}, true, true, true},          // both transposed
      {{1, 2, 3, 4}, {2, 1, 4, 5}, false, false, true},  // 1s on both sides
      {{2, 9, 17}, {13, 17}, false, true, true},         // tails past 8 and 16
  };
  uint32_t seed = 600;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const MatMulCase& c = cases[i];
    const int64_t n = c.transpose_b ? c.b_shape[c.b_shape.size() - 2] : c.b_shape.back();
    const std::vector<float> a = RandomFloats(NumElements(c.a_shape), seed++);
    const std::vector<float> b = RandomFloats(NumElements(c.b_shape), seed++);
    const std::vector<float> bias = RandomFloats(n, seed++);
    OpTester tester("MatMul", RegisterMatMul);
    tester.Input("a", c.a_shape, a).Input("b", c.b_shape, b);
    if (c.with_bias) tester.Weight("bias", {n}, bias);
    tester.Output("y")
        .Arg("transpose_a", c.transpose_a ? 1 : 0)
        .Arg("transpose_b", c.transpose_b ? 1 : 0);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    std::vector<int64_t> expected_shape;
    const std::vector<float> expected = NaiveMatMul(c, a, b, bias, &expected_shape);
    ASSERT_EQ(tester.OutputShape("y"), expected_shape);
    ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-4f);
  }
}

TEST(MatMulTest, RejectsRankOne) {
  OpTester tester("MatMul", RegisterMatMul);
  tester.Input("a", {3}, {1, 2, 3}).Input("b", {3, 1}, {1, 2, 3}).Output("y");
  ExpectInvalid(&tester, "A has shape [3] but needs rank 2 or more");
}

TEST(MatMulTest, RejectsInnerDimensionMismatch) {
  OpTester tester("MatMul", RegisterMatMul);
  tester.Input("a", {2, 3}, std::vector<float>(6))
      .Input("b", {2, 3}, std::vector<float>(6))
      .Output("y");
  ExpectInvalid(&tester, "has inner dimension 3 but B [2,3] (transpose_b 0) has 2");
}

TEST(MatMulTest, RejectsIncompatibleBatch) {
  OpTester tester("MatMul", RegisterMatMul);
  tester.Input("a", {2, 1, 2}, std::vector<float>(4))
      .Input("b", {3, 2, 1}, std::vector<float>(6))
      .Output("y");
  ExpectInvalid(&tester, "do not broadcast (2 vs 3)");
}

TEST(MatMulTest, RejectsBadBias) {
  OpTester tester("MatMul", RegisterMatMul);
  tester.Input("a", {1, 2}, {1, 2})
      .Weight("b", {2, 3}, std::vector<float>(6))
      .Weight("bias", {2}, {1, 2})
      .Output("y");
  ExpectInvalid(&tester, "bias has shape [2] but needs [3]");
}

TEST(MatMulTest, RejectsBadFlagsAndMissingInputs) {
  OpTester flag("MatMul", RegisterMatMul);
  flag.Input("a", {1, 1}, {1}).Input("b", {1, 1}, {1}).Output("y").Arg("transpose_a", 2);
  ExpectInvalid(&flag, "transpose_a must be 0 or 1");
  OpTester missing("MatMul", RegisterMatMul);
  missing.Input("a", {1, 1}, {1}).EmptyInput().Output("y");
  ExpectInvalid(&missing, "input B is missing");
}

}  // namespace
}  // namespace ops
}  // namespace mace
