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
  EXPECT_NE(status.information().find("DepthToSpace 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> Iota(int64_t count) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i) values[i] = static_cast<float>(i);
  return values;
}

TEST(DepthToSpaceTest, DcrAndCrdOrders) {
  // Eight 1x1 channels 0..7, block 2, two output channels of 2x2. DCR reads
  // channel (by * 2 + bx) * 2 + c: c0 = [0 2; 4 6], c1 = [1 3; 5 7]. CRD reads
  // (c * 2 + by) * 2 + bx: c0 = [0 1; 2 3], c1 = [4 5; 6 7].
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"DCR", {0, 2, 4, 6, 1, 3, 5, 7}},
      {"CRD", {0, 1, 2, 3, 4, 5, 6, 7}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.first);
    OpTester tester("DepthToSpace", RegisterDepthToSpace);
    tester.Input("x", {1, 8, 1, 1}, Iota(8)).Output("y").Arg("block_size", 2).Arg("mode", c.first);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2, 2, 2}));
    EXPECT_EQ(tester.OutputData("y"), c.second);
  }
}

TEST(DepthToSpaceTest, TilesInterleaveAcrossPixels) {
  // Four channels of 1x2 (channel k holds 10k, 10k + 1), block 2, default DCR:
  // output row by, column 2x + bx is channel by * 2 + bx at pixel x, so
  // row 0 = [0 10 1 11], row 1 = [20 30 21 31].
  OpTester tester("DepthToSpace", RegisterDepthToSpace);
  tester.Input("x", {1, 4, 1, 2}, {0, 1, 10, 11, 20, 21, 30, 31}).Output("y").Arg("block_size", 2);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 1, 2, 4}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{0, 10, 1, 11, 20, 30, 21, 31}));
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

// ONNX's definition: DCR reshapes to [N, b, b, C', H, W] and transposes with
// [0, 3, 4, 1, 5, 2]; CRD reshapes to [N, C', b, b, H, W] and uses
// [0, 1, 4, 2, 5, 3].
std::vector<float> NaiveDepthToSpace(const std::vector<int64_t>& s, int64_t b, bool crd,
                                     const std::vector<float>& input) {
  const int64_t c_out = s[1] / (b * b);
  if (crd) return Transpose(input, {s[0], c_out, b, b, s[2], s[3]}, {0, 1, 4, 2, 5, 3});
  return Transpose(input, {s[0], b, b, c_out, s[2], s[3]}, {0, 3, 4, 1, 5, 2});
}

TEST(DepthToSpaceTest, MatchesNaiveTranspose) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t block;
    bool crd;
  };
  const std::vector<Case> cases = {
      {{1, 4, 1, 1}, 2, false}, {{1, 4, 1, 1}, 2, true},   {{2, 12, 3, 5}, 2, false},
      {{2, 12, 3, 5}, 2, true}, {{1, 27, 2, 3}, 3, false}, {{1, 18, 5, 1}, 3, true},
      {{1, 5, 3, 7}, 1, false}, {{3, 32, 1, 2}, 4, true},  {{1, 16, 7, 3}, 4, false},
  };
  uint32_t seed = 1400;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("DepthToSpace", RegisterDepthToSpace);
    tester.Input("x", c.shape, input)
        .Output("y")
        .Arg("block_size", c.block)
        .Arg("mode", c.crd ? "CRD" : "DCR");
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    ASSERT_EQ(tester.OutputShape("y"),
              (std::vector<int64_t>{c.shape[0], c.shape[1] / (c.block * c.block),
                                    c.shape[2] * c.block, c.shape[3] * c.block}));
    EXPECT_EQ(tester.OutputData("y"), NaiveDepthToSpace(c.shape, c.block, c.crd, input));
  }
}

TEST(DepthToSpaceTest, RejectsBadArgs) {
  struct BadArgs {
    std::vector<int64_t> shape;
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const std::vector<BadArgs> cases = {
      {{1, 4, 1, 1}, [](OpTester*) {}, "block_size is required"},
      {{1, 4, 1, 1}, [](OpTester* t) { t->Arg("block_size", 0); }, "must be positive, got 0"},
      {{1, 4, 1, 1}, [](OpTester* t) { t->Arg("block_size", -2); }, "must be positive"},
      {{1, 6, 1, 1}, [](OpTester* t) { t->Arg("block_size", 2); }, "must divide the 6 input"},
      {{1, 4, 1, 1}, [](OpTester* t) { t->Arg("block_size", int64_t{1} << 40); }, "must divide"},
      {{1, 4, 1, 1},
       [](OpTester* t) { t->Arg("block_size", 2).Arg("mode", "dcr"); },
       "mode must be DCR or CRD, got 'dcr'"},
      {{4, 1, 1}, [](OpTester* t) { t->Arg("block_size", 2); }, "needs rank 4"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("DepthToSpace", RegisterDepthToSpace);
    tester.Input("x", cases[i].shape, std::vector<float>(NumElements(cases[i].shape))).Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
