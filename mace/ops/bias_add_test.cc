#include "mace/ops/ref/bias_add.h"

#include <cmath>
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
  EXPECT_NE(status.information().find("BiasAdd 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(BiasAddTest, AddsPerChannel) {
  // Batch 2, channels 2, two pixels; bias [10, -1] goes to each channel of
  // each batch: 1+10, 2+10, 3-1, 4-1, then the second batch the same way.
  OpTester tester("BiasAdd", RegisterBiasAdd);
  tester.Input("x", {2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}).Weight("b", {2}, {10, -1}).Output("y");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 2, 1, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{11, 12, 2, 3, 15, 16, 6, 7}));
  EXPECT_EQ(tester.op().InPlaceInput(), 0);
}

TEST(BiasAddTest, Rank2WithFusedRelu) {
  // [N, C] = [1, 3]: 1-2 = -1 -> 0, 2+0 = 2, -3+5 = 2.
  OpTester tester("BiasAdd", RegisterBiasAdd);
  tester.Input("x", {1, 3}, {1, 2, -3})
      .Weight("b", {3}, {-2, 0, 5})
      .Output("y")
      .Arg("activation", "RELU");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{0, 2, 2}));
}

TEST(BiasAddTest, MatchesNaiveComputation) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1}, {4, 9}, {1, 3, 1, 1}, {2, 17, 3, 5}, {3, 1, 4, 4}, {1, 5, 7}, {2, 3, 2, 1, 3},
  };
  uint32_t seed = 900;
  for (const std::vector<int64_t>& shape : shapes) {
    SCOPED_TRACE(ShapeToString(shape));
    const int64_t channels = shape[1];
    const std::vector<float> x = RandomFloats(NumElements(shape), seed++);
    const std::vector<float> bias = RandomFloats(channels, seed++);
    OpTester tester("BiasAdd", RegisterBiasAdd);
    tester.Input("x", shape, x).Weight("b", {channels}, bias).Output("y").Arg("activation", "TANH");
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    // Walks explicit (n, c, rest) coordinates rather than a flat index.
    std::vector<float> expected;
    const int64_t rest = NumElements(shape) / (shape[0] * channels);
    for (int64_t n = 0; n < shape[0]; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t r = 0; r < rest; ++r) {
          expected.push_back(std::tanh(x[(n * channels + c) * rest + r] + bias[c]));
        }
      }
    }
    ASSERT_EQ(tester.OutputShape("y"), shape);
    ExpectNear(tester.OutputData("y"), expected, 1e-6f, 1e-5f);
  }
}

TEST(BiasAddTest, KernelRunsInPlace) {
  ref::BiasAddParams params;
  params.outer = 3;
  params.channels = 5;
  params.inner = 7;
  const std::vector<float> x = RandomFloats(105, 41);
  const std::vector<float> bias = RandomFloats(5, 42);
  std::vector<float> separate(105);
  ref::BiasAdd(params, x.data(), bias.data(), separate.data());
  std::vector<float> in_place = x;
  ref::BiasAdd(params, in_place.data(), bias.data(), in_place.data());
  EXPECT_EQ(in_place, separate);
}

TEST(BiasAddTest, RejectsBadShapes) {
  OpTester rank1("BiasAdd", RegisterBiasAdd);
  rank1.Input("x", {3}, {1, 2, 3}).Weight("b", {3}, {1, 1, 1}).Output("y");
  ExpectInvalid(&rank1, "input has shape [3] but needs rank 2 or more");
  OpTester bias("BiasAdd", RegisterBiasAdd);
  bias.Input("x", {1, 3, 2, 2}, std::vector<float>(12)).Weight("b", {2}, {1, 1}).Output("y");
  ExpectInvalid(&bias, "bias has shape [2] but needs [3]");
  OpTester bias_rank("BiasAdd", RegisterBiasAdd);
  bias_rank.Input("x", {1, 2}, {1, 2}).Weight("b", {1, 2}, {1, 1}).Output("y");
  ExpectInvalid(&bias_rank, "bias has shape [1,2] but needs [2]");
  OpTester int_bias("BiasAdd", RegisterBiasAdd);
  int_bias.Input("x", {1, 2}, {1, 2}).IntWeight("b", {2}, {1, 1}).Output("y");
  ExpectInvalid(&int_bias, "'b' is int32 but must be float32");
}

TEST(BiasAddTest, RejectsBadInputsAndArgs) {
  OpTester one("BiasAdd", RegisterBiasAdd);
  one.Input("x", {1, 2}, {1, 2}).Output("y");
  ExpectInvalid(&one, "needs inputs [input, bias] and one output, got 1 inputs");
  OpTester missing("BiasAdd", RegisterBiasAdd);
  missing.Input("x", {1, 2}, {1, 2}).EmptyInput().Output("y");
  ExpectInvalid(&missing, "bias is missing");
  OpTester activation("BiasAdd", RegisterBiasAdd);
  activation.Input("x", {1, 2}, {1, 2})
      .Weight("b", {2}, {1, 1})
      .Output("y")
      .Arg("activation", "GELU");
  ExpectInvalid(&activation, "unknown activation 'GELU'");
}

}  // namespace
}  // namespace ops
}  // namespace mace
