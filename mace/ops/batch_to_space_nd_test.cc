#include <functional>
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
  EXPECT_NE(status.information().find("BatchToSpaceND 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(BatchToSpaceNDTest, TensorFlowExample) {
  // Four one-pixel batches 1, 2, 3, 4 with a 2x2 block: phase (py, px) is
  // batch py * 2 + px, so they land as [[1, 2], [3, 4]].
  OpTester tester("BatchToSpaceND", RegisterBatchToSpaceND);
  tester.Input("x", {4, 1, 1, 1}, {1, 2, 3, 4})
      .Output("y")
      .Args("block_shape", std::vector<int64_t>{2, 2});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 3, 4}));
}

TEST(BatchToSpaceNDTest, UndoesPaddedSpaceToBatch) {
  // The four phases of [[1, 2], [3, 4]] padded by one (see the SpaceToBatchND
  // test) interleave back into the 4x4 padded grid; cropping one pixel from
  // every side leaves [[1, 2], [3, 4]].
  OpTester tester("BatchToSpaceND", RegisterBatchToSpaceND);
  tester.Input("x", {4, 1, 2, 2}, {0, 0, 0, 4, 0, 0, 3, 0, 0, 2, 0, 0, 1, 0, 0, 0})
      .Output("y")
      .Args("block_shape", std::vector<int64_t>{2, 2})
      .Args("crops", std::vector<int64_t>{1, 1, 1, 1});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 3, 4}));
}

TEST(BatchToSpaceNDTest, BlockOffsetIsTheSlowBatchIndex) {
  // Batches [1 3], [5 7], [2 4], [6 8] (columns, block [1, 2]): batch
  // px * 2 + n is column px of output batch n: [1 2; 3 4] and [5 6; 7 8].
  OpTester tester("BatchToSpaceND", RegisterBatchToSpaceND);
  tester.Input("x", {4, 1, 2, 1}, {1, 3, 5, 7, 2, 4, 6, 8})
      .Output("y")
      .Args("block_shape", std::vector<int64_t>{1, 2});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 1, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// Row-major transpose: output dimension i is input dimension perm[i].
std::vector<float> Transpose(const std::vector<float>& data, const std::vector<int64_t>& dims,
                             const std::vector<int>& perm) {
  const size_t rank = dims.size();
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t i = rank - 1; i > 0; --i) in_strides[i - 1] = in_strides[i] * dims[i];
  std::vector<float> out;
  std::vector<int64_t> coord(rank, 0);  // output coordinate
  for (size_t n = 0; n < data.size(); ++n) {
    int64_t offset = 0;
    for (size_t i = 0; i < rank; ++i) offset += coord[i] * in_strides[perm[i]];
    out.push_back(data[offset]);
    for (size_t i = rank; i-- > 0;) {
      if (++coord[i] < dims[perm[i]]) break;
      coord[i] = 0;
    }
  }
  return out;
}

// TensorFlow's definition in NCHW: reshape to [bh, bw, N, C, H, W], transpose
// to [N, C, H, bh, W, bw], then crop.
std::vector<float> NaiveBatchToSpace(const std::vector<int64_t>& s, int64_t bh, int64_t bw,
                                     const std::vector<int64_t>& crops,
                                     const std::vector<float>& input) {
  const int64_t n = s[0] / (bh * bw), fh = s[2] * bh, fw = s[3] * bw;
  const std::vector<float> full =
      Transpose(input, {bh, bw, n, s[1], s[2], s[3]}, {2, 3, 4, 0, 5, 1});
  std::vector<float> out;
  for (int64_t p = 0; p < n * s[1]; ++p) {
    for (int64_t y = crops[0]; y < fh - crops[1]; ++y) {
      for (int64_t x = crops[2]; x < fw - crops[3]; ++x) out.push_back(full[(p * fh + y) * fw + x]);
    }
  }
  return out;
}

TEST(BatchToSpaceNDTest, MatchesNaiveBatchToSpace) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t bh, bw;
    std::vector<int64_t> crops;
  };
  const std::vector<Case> cases = {
      {{1, 1, 1, 1}, 1, 1, {0, 0, 0, 0}}, {{4, 3, 2, 3}, 2, 2, {0, 0, 0, 0}},
      {{8, 3, 3, 4}, 2, 2, {1, 0, 0, 1}}, {{9, 2, 3, 3}, 3, 3, {2, 2, 2, 2}},
      {{9, 2, 4, 1}, 1, 3, {0, 0, 1, 1}}, {{6, 4, 2, 5}, 3, 1, {0, 2, 0, 0}},
      {{8, 1, 1, 1}, 2, 2, {1, 0, 0, 1}}, {{16, 5, 3, 6}, 4, 2, {2, 1, 0, 3}},
  };
  uint32_t seed = 1700;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("BatchToSpaceND", RegisterBatchToSpaceND);
    tester.Input("x", c.shape, input)
        .Output("y")
        .Args("block_shape", std::vector<int64_t>{c.bh, c.bw})
        .Args("crops", c.crops);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    ASSERT_EQ(tester.OutputShape("y"),
              (std::vector<int64_t>{c.shape[0] / (c.bh * c.bw), c.shape[1],
                                    c.shape[2] * c.bh - c.crops[0] - c.crops[1],
                                    c.shape[3] * c.bw - c.crops[2] - c.crops[3]}));
    EXPECT_EQ(tester.OutputData("y"), NaiveBatchToSpace(c.shape, c.bh, c.bw, c.crops, input));
  }
}

TEST(BatchToSpaceNDTest, RejectsBadArgs) {
  struct BadArgs {
    std::vector<int64_t> shape;
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const std::vector<BadArgs> cases = {
      {{4, 1, 1, 1}, [](OpTester*) {}, "block_shape must be two"},
      {{4, 1, 1, 1},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, -2});
       },
       "block_shape must be two positive"},
      {{4, 1, 1, 1},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{int64_t{1} << 40, 1});
       },
       "at most 2^31"},
      {{3, 1, 1, 1},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, 1});
       },
       "needs a batch divisible by 2x1, got batch 3"},
      {{2, 1, 1, 1},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{4, 1});
       },
       "needs a batch divisible"},
      {{4, 1, 2, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, 2})
             .Args("crops", std::vector<int64_t>{2, 2, 0, 0});
       },
       "leave nothing of the 4x4 output"},
      {{4, 1, 2, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, 2})
             .Args("crops", std::vector<int64_t>{0, 0, -1, 0});
       },
       "crops must be [top, bottom, left, right], each in [0, 2^31], got [0,0,-1,0]"},
      {{4, 1, 2, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, 2})
             .Args("crops", std::vector<int64_t>{0, 0, 1});
       },
       "crops must be [top, bottom, left, right]"},
      {{4, 1, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, 2});
       },
       "needs rank 4"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("BatchToSpaceND", RegisterBatchToSpaceND);
    tester.Input("x", cases[i].shape, std::vector<float>(NumElements(cases[i].shape))).Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
