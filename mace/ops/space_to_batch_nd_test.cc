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
  EXPECT_NE(status.information().find("SpaceToBatchND 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(SpaceToBatchNDTest, TensorFlowExample) {
  // TensorFlow's first example in NCHW: [[1, 2], [3, 4]] with a 2x2 block
  // becomes four batches of one pixel, phase (0,0) first: 1, 2, 3, 4.
  OpTester tester("SpaceToBatchND", RegisterSpaceToBatchND);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .Output("y")
      .Args("block_shape", std::vector<int64_t>{2, 2});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{4, 1, 1, 1}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 3, 4}));
}

TEST(SpaceToBatchNDTest, PaddingAndPhases) {
  // [[1, 2], [3, 4]] padded by one on every side is the 4x4 grid
  //   0 0 0 0 / 0 1 2 0 / 0 3 4 0 / 0 0 0 0.
  // Phase (py, px) takes rows py, py + 2 and columns px, px + 2:
  //   (0,0): 0 0 0 4   (0,1): 0 0 3 0   (1,0): 0 2 0 0   (1,1): 1 0 0 0.
  OpTester tester("SpaceToBatchND", RegisterSpaceToBatchND);
  tester.Input("x", {1, 1, 2, 2}, {1, 2, 3, 4})
      .Output("y")
      .Args("block_shape", std::vector<int64_t>{2, 2})
      .Args("paddings", std::vector<int64_t>{1, 1, 1, 1});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{4, 1, 2, 2}));
  EXPECT_EQ(tester.OutputData("y"),
            (std::vector<float>{0, 0, 0, 4, 0, 0, 3, 0, 0, 2, 0, 0, 1, 0, 0, 0}));
}

TEST(SpaceToBatchNDTest, BlockOffsetIsTheSlowBatchIndex) {
  // Two batches [1 2; 3 4] and [5 6; 7 8], block [1, 2]: output batch
  // px * 2 + n holds column px of batch n: [1 3], [5 7], [2 4], [6 8].
  OpTester tester("SpaceToBatchND", RegisterSpaceToBatchND);
  tester.Input("x", {2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})
      .Output("y")
      .Args("block_shape", std::vector<int64_t>{1, 2});
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{4, 1, 2, 1}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 3, 5, 7, 2, 4, 6, 8}));
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

// TensorFlow's definition in NCHW: zero-pad, reshape to
// [N, C, Hp/bh, bh, Wp/bw, bw], transpose to [bh, bw, N, C, Hp/bh, Wp/bw].
std::vector<float> NaiveSpaceToBatch(const std::vector<int64_t>& s, int64_t bh, int64_t bw,
                                     const std::vector<int64_t>& pads,
                                     const std::vector<float>& input) {
  const int64_t hp = s[2] + pads[0] + pads[1], wp = s[3] + pads[2] + pads[3];
  std::vector<float> padded(s[0] * s[1] * hp * wp, 0.f);
  for (int64_t p = 0; p < s[0] * s[1]; ++p) {
    for (int64_t y = 0; y < s[2]; ++y) {
      for (int64_t x = 0; x < s[3]; ++x) {
        padded[(p * hp + y + pads[0]) * wp + x + pads[2]] = input[(p * s[2] + y) * s[3] + x];
      }
    }
  }
  return Transpose(padded, {s[0], s[1], hp / bh, bh, wp / bw, bw}, {3, 5, 0, 1, 2, 4});
}

TEST(SpaceToBatchNDTest, MatchesNaiveSpaceToBatch) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t bh, bw;
    std::vector<int64_t> pads;
  };
  const std::vector<Case> cases = {
      {{1, 1, 1, 1}, 1, 1, {0, 0, 0, 0}}, {{1, 3, 4, 6}, 2, 2, {0, 0, 0, 0}},
      {{2, 3, 5, 7}, 2, 2, {1, 0, 0, 1}}, {{1, 2, 5, 5}, 3, 3, {2, 2, 2, 2}},
      {{3, 2, 4, 3}, 1, 3, {0, 0, 0, 0}}, {{1, 4, 7, 2}, 3, 1, {1, 1, 0, 0}},
      {{2, 1, 1, 1}, 2, 2, {1, 0, 0, 1}}, {{1, 5, 9, 11}, 4, 2, {2, 1, 0, 1}},
  };
  uint32_t seed = 1600;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("SpaceToBatchND", RegisterSpaceToBatchND);
    tester.Input("x", c.shape, input)
        .Output("y")
        .Args("block_shape", std::vector<int64_t>{c.bh, c.bw})
        .Args("paddings", c.pads);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    const int64_t hp = c.shape[2] + c.pads[0] + c.pads[1];
    const int64_t wp = c.shape[3] + c.pads[2] + c.pads[3];
    ASSERT_EQ(tester.OutputShape("y"),
              (std::vector<int64_t>{c.shape[0] * c.bh * c.bw, c.shape[1], hp / c.bh, wp / c.bw}));
    EXPECT_EQ(tester.OutputData("y"), NaiveSpaceToBatch(c.shape, c.bh, c.bw, c.pads, input));
  }
}

TEST(SpaceToBatchNDTest, RejectsBadArgs) {
  struct BadArgs {
    std::vector<int64_t> shape;
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const int64_t big = int64_t{1} << 31;
  const std::vector<BadArgs> cases = {
      {{1, 1, 2, 2}, [](OpTester*) {}, "block_shape must be two"},
      {{1, 1, 2, 2},
       [](OpTester* t) { t->Args("block_shape", std::vector<int64_t>{2}); },
       "block_shape must be two"},
      {{1, 1, 2, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{0, 2});
       },
       "block_shape must be two positive"},
      {{1, 1, 2, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, int64_t{1} << 40});
       },
       "at most 2^31"},
      {{1, 1, 2, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, 2})
             .Args("paddings", std::vector<int64_t>{1, 1, -1, 1});
       },
       "paddings must be [top, bottom, left, right], each in [0, 2^31], got [1,1,-1,1]"},
      {{1, 1, 2, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, 2})
             .Args("paddings", std::vector<int64_t>{1, 1});
       },
       "paddings must be [top, bottom, left, right]"},
      {{1, 1, 3, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, 2});
       },
       "the padded input is 3x2, which block_shape [2, 2] does not divide"},
      {{1, 1, 2, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{2, 2})
             .Args("paddings", std::vector<int64_t>{1, 0, 0, 0});
       },
       "does not divide"},
      {{1, 1, 2, 2},
       [big](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{1, 1})
             .Args("paddings", std::vector<int64_t>{big, big, big, big});
       },
       "more than 2^31 elements"},
      {{1, 2, 2},
       [](OpTester* t) {
         t->Args("block_shape", std::vector<int64_t>{1, 1});
       },
       "needs rank 4"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("SpaceToBatchND", RegisterSpaceToBatchND);
    tester.Input("x", cases[i].shape, std::vector<float>(NumElements(cases[i].shape))).Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
