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
  EXPECT_NE(status.information().find("SpaceToDepth 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(SpaceToDepthTest, DcrAndCrdOrders) {
  // Two channels of 2x2: c0 = [0 1; 2 3], c1 = [4 5; 6 7], block 2. DCR puts
  // pixel (by, bx) of channel c in channel (by * 2 + bx) * 2 + c: 0 4 1 5 2 6
  // 3 7. CRD puts it in (c * 2 + by) * 2 + bx, which keeps the memory order.
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"DCR", {0, 4, 1, 5, 2, 6, 3, 7}},
      {"CRD", {0, 1, 2, 3, 4, 5, 6, 7}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.first);
    OpTester tester("SpaceToDepth", RegisterSpaceToDepth);
    tester.Input("x", {1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})
        .Output("y")
        .Arg("block_size", 2)
        .Arg("mode", c.first);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 8, 1, 1}));
    EXPECT_EQ(tester.OutputData("y"), c.second);
  }
}

TEST(SpaceToDepthTest, TilesBecomeChannels) {
  // One 2x4 channel [0 1 2 3; 4 5 6 7], block 2, default DCR: channel
  // by * 2 + bx collects pixel (by, 2x + bx) for x = 0, 1: [0 2], [1 3],
  // [4 6], [5 7].
  OpTester tester("SpaceToDepth", RegisterSpaceToDepth);
  tester.Input("x", {1, 1, 2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}).Output("y").Arg("block_size", 2);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 4, 1, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7}));
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

// ONNX's definition: reshape to [N, C, H/b, b, W/b, b], then transpose to
// [N, b, b, C, H/b, W/b] (DCR) or [N, C, b, b, H/b, W/b] (CRD).
std::vector<float> NaiveSpaceToDepth(const std::vector<int64_t>& s, int64_t b, bool crd,
                                     const std::vector<float>& input) {
  const std::vector<int64_t> dims = {s[0], s[1], s[2] / b, b, s[3] / b, b};
  if (crd) return Transpose(input, dims, {0, 1, 3, 5, 2, 4});
  return Transpose(input, dims, {0, 3, 5, 1, 2, 4});
}

TEST(SpaceToDepthTest, MatchesNaiveTranspose) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t block;
    bool crd;
  };
  const std::vector<Case> cases = {
      {{1, 1, 2, 2}, 2, false}, {{1, 3, 2, 2}, 2, true},  {{2, 3, 6, 10}, 2, false},
      {{2, 3, 6, 10}, 2, true}, {{1, 5, 9, 3}, 3, false}, {{1, 2, 3, 9}, 3, true},
      {{1, 5, 3, 7}, 1, false}, {{3, 1, 8, 4}, 4, false}, {{1, 7, 4, 8}, 4, true},
  };
  uint32_t seed = 1500;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("SpaceToDepth", RegisterSpaceToDepth);
    tester.Input("x", c.shape, input)
        .Output("y")
        .Arg("block_size", c.block)
        .Arg("mode", c.crd ? "CRD" : "DCR");
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    ASSERT_EQ(tester.OutputShape("y"),
              (std::vector<int64_t>{c.shape[0], c.shape[1] * c.block * c.block,
                                    c.shape[2] / c.block, c.shape[3] / c.block}));
    EXPECT_EQ(tester.OutputData("y"), NaiveSpaceToDepth(c.shape, c.block, c.crd, input));
  }
}

TEST(SpaceToDepthTest, RejectsBadArgs) {
  struct BadArgs {
    std::vector<int64_t> shape;
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const std::vector<BadArgs> cases = {
      {{1, 1, 2, 2}, [](OpTester*) {}, "block_size is required"},
      {{1, 1, 2, 2}, [](OpTester* t) { t->Arg("block_size", 0); }, "must be positive, got 0"},
      {{1, 1, 2, 2}, [](OpTester* t) { t->Arg("block_size", -1); }, "must be positive"},
      {{1, 1, 3, 4}, [](OpTester* t) { t->Arg("block_size", 2); }, "got 3x4"},
      {{1, 1, 4, 3}, [](OpTester* t) { t->Arg("block_size", 2); }, "must divide the input"},
      {{1, 1, 2, 2}, [](OpTester* t) { t->Arg("block_size", int64_t{1} << 40); }, "must divide"},
      {{1, 1, 2, 2},
       [](OpTester* t) { t->Arg("block_size", 2).Arg("mode", "RDC"); },
       "mode must be DCR or CRD"},
      {{1, 2, 2}, [](OpTester* t) { t->Arg("block_size", 2); }, "needs rank 4"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("SpaceToDepth", RegisterSpaceToDepth);
    tester.Input("x", cases[i].shape, std::vector<float>(NumElements(cases[i].shape))).Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
