#include "mace/ops/ref/batch_norm.h"

#include <cmath>
#include <limits>
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
  EXPECT_NE(status.information().find("BatchNorm 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(BatchNormTest, FoldedForm) {
  // Channel 0: x * 2 + 1 -> 1*2+1 = 3, 2*2+1 = 5. Channel 1: x * -1 + 0.5 ->
  // -3+0.5 = -2.5, -4+0.5 = -3.5.
  OpTester tester("BatchNorm", RegisterBatchNorm);
  tester.Input("x", {1, 2, 1, 2}, {1, 2, 3, 4})
      .Weight("scale", {2}, {2, -1})
      .Weight("offset", {2}, {1, 0.5f})
      .Output("y");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{3, 5, -2.5f, -3.5f}));
  EXPECT_EQ(tester.op().InPlaceInput(), 0);
}

TEST(BatchNormTest, StatisticsFormWithEpsilon) {
  // Channel 0: mean 1, var 3.75, epsilon 0.25 -> sqrt(4) = 2; scale 4, offset 1:
  // 4 * (5 - 1) / 2 + 1 = 9, 4 * (-1 - 1) / 2 + 1 = -3.
  // Channel 1: mean -2, var 8.75 -> sqrt(9) = 3; scale 3, offset 0:
  // 3 * (1 + 2) / 3 = 3, 3 * (-8 + 2) / 3 = -6.
  OpTester tester("BatchNorm", RegisterBatchNorm);
  tester.Input("x", {2, 2}, {5, 1, -1, -8})
      .Weight("scale", {2}, {4, 3})
      .Weight("offset", {2}, {1, 0})
      .Weight("mean", {2}, {1, -2})
      .Weight("var", {2}, {3.75f, 8.75f})
      .Output("y")
      .Arg("epsilon", 0.25f);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{9, 3, -3, -6}));
}

TEST(BatchNormTest, DefaultEpsilonAndFusedRelu6) {
  // var 0.999 + default epsilon 0.001 = 1, so y = x * 10 clamped by RELU6:
  // 0.5 -> 5, 1 -> 10 -> 6, -1 -> -10 -> 0.
  OpTester tester("BatchNorm", RegisterBatchNorm);
  tester.Input("x", {1, 1, 3}, {0.5f, 1, -1})
      .Weight("scale", {1}, {10})
      .Weight("offset", {1}, {0})
      .Weight("mean", {1}, {0})
      .Weight("var", {1}, {0.999f})
      .Output("y")
      .Arg("activation", "RELU6");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  ExpectNear(tester.OutputData("y"), {5, 6, 0});
}

TEST(BatchNormTest, MatchesNaiveComputation) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 1}, {3, 7}, {1, 5, 9}, {2, 3, 1, 1}, {2, 13, 3, 5}, {1, 1, 7, 3},
  };
  uint32_t seed = 700;
  for (const std::vector<int64_t>& shape : shapes) {
    for (bool folded : {true, false}) {
      SCOPED_TRACE(ShapeToString(shape) + (folded ? " folded" : " statistics"));
      const int64_t channels = shape[1];
      const int64_t inner = NumElements(shape) / (shape[0] * channels);
      const std::vector<float> x = RandomFloats(NumElements(shape), seed++, -3.f, 3.f);
      const std::vector<float> scale = RandomFloats(channels, seed++, -2.f, 2.f);
      const std::vector<float> offset = RandomFloats(channels, seed++);
      const std::vector<float> mean = RandomFloats(channels, seed++);
      const std::vector<float> var = RandomFloats(channels, seed++, 0.01f, 4.f);
      const float epsilon = 1e-5f;
      OpTester tester("BatchNorm", RegisterBatchNorm);
      tester.Input("x", shape, x)
          .Weight("scale", {channels}, scale)
          .Weight("offset", {channels}, offset);
      if (!folded) {
        tester.Weight("mean", {channels}, mean)
            .Weight("var", {channels}, var)
            .Arg("epsilon", epsilon);
      }
      tester.Output("y").Arg("activation", "LEAKYRELU").Arg("activation_coefficient", 0.2f);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      std::vector<float> expected(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        const int64_t c = (static_cast<int64_t>(i) / inner) % channels;
        float y = folded ? x[i] * scale[c] + offset[c]
                         : (x[i] - mean[c]) / std::sqrt(var[c] + epsilon) * scale[c] + offset[c];
        if (y < 0) y *= 0.2f;
        expected[i] = y;
      }
      ASSERT_EQ(tester.OutputShape("y"), shape);
      ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-5f);
    }
  }
}

TEST(BatchNormTest, KernelRunsInPlace) {
  ref::BatchNormParams params;
  params.outer = 2;
  params.channels = 3;
  params.inner = 4;
  params.epsilon = 0.1f;
  const std::vector<float> scale = {1, 2, 3}, offset = {0, 1, -1};
  const std::vector<float> mean = {0.5f, 0, -0.5f}, var = {1, 2, 0.5f};
  const std::vector<float> x = RandomFloats(24, 31);
  std::vector<float> separate(24);
  ref::BatchNorm(params, x.data(), scale.data(), offset.data(), mean.data(), var.data(),
                 separate.data());
  std::vector<float> in_place = x;
  ref::BatchNorm(params, in_place.data(), scale.data(), offset.data(), mean.data(), var.data(),
                 in_place.data());
  EXPECT_EQ(in_place, separate);
}

TEST(BatchNormTest, RejectsBadShapes) {
  OpTester rank1("BatchNorm", RegisterBatchNorm);
  rank1.Input("x", {3}, {1, 2, 3}).Weight("s", {3}, {1, 1, 1}).Weight("o", {3}, {0, 0, 0});
  rank1.Output("y");
  ExpectInvalid(&rank1, "input has shape [3] but needs rank 2 to 4");
  OpTester rank5("BatchNorm", RegisterBatchNorm);
  rank5.Input("x", {1, 1, 1, 1, 2}, {1, 2}).Weight("s", {1}, {1}).Weight("o", {1}, {0});
  rank5.Output("y");
  ExpectInvalid(&rank5, "needs rank 2 to 4");
  OpTester scale("BatchNorm", RegisterBatchNorm);
  scale.Input("x", {1, 3, 2}, std::vector<float>(6))
      .Weight("s", {2}, {1, 1})
      .Weight("o", {3}, {0, 0, 0})
      .Output("y");
  ExpectInvalid(&scale, "scale has shape [2] but needs [3]");
  OpTester var("BatchNorm", RegisterBatchNorm);
  var.Input("x", {1, 2}, {1, 2})
      .Weight("s", {2}, {1, 1})
      .Weight("o", {2}, {0, 0})
      .Weight("m", {2}, {0, 0})
      .Weight("v", {1, 2}, {1, 1})
      .Output("y");
  ExpectInvalid(&var, "var has shape [1,2] but needs [2]");
  OpTester int_scale("BatchNorm", RegisterBatchNorm);
  int_scale.Input("x", {1, 2}, {1, 2})
      .IntWeight("s", {2}, {1, 1})
      .Weight("o", {2}, {0, 0})
      .Output("y");
  ExpectInvalid(&int_scale, "'s' is int32 but must be float32");
}

TEST(BatchNormTest, RejectsBadInputsAndArgs) {
  OpTester four("BatchNorm", RegisterBatchNorm);
  four.Input("x", {1, 2}, {1, 2})
      .Weight("s", {2}, {1, 1})
      .Weight("o", {2}, {0, 0})
      .Weight("m", {2}, {0, 0})
      .Output("y");
  ExpectInvalid(&four, "needs inputs [input, scale, offset] or [input, scale, offset, mean, var]");
  OpTester missing("BatchNorm", RegisterBatchNorm);
  missing.Input("x", {1, 2}, {1, 2}).Weight("s", {2}, {1, 1}).EmptyInput().Output("y");
  ExpectInvalid(&missing, "offset is missing");
  for (float epsilon : {-1e-3f, std::nanf(""), std::numeric_limits<float>::infinity()}) {
    OpTester bad_epsilon("BatchNorm", RegisterBatchNorm);
    bad_epsilon.Input("x", {1, 2}, {1, 2})
        .Weight("s", {2}, {1, 1})
        .Weight("o", {2}, {0, 0})
        .Weight("m", {2}, {0, 0})
        .Weight("v", {2}, {1, 1})
        .Output("y")
        .Arg("epsilon", epsilon);
    ExpectInvalid(&bad_epsilon, "epsilon must be finite and non-negative");
  }
  OpTester prelu("BatchNorm", RegisterBatchNorm);
  prelu.Input("x", {1, 2}, {1, 2}).Weight("s", {2}, {1, 1}).Weight("o", {2}, {0, 0});
  prelu.Output("y").Arg("activation", "PRELU");
  ExpectInvalid(&prelu, "PRELU cannot be fused here");
}

}  // namespace
}  // namespace ops
}  // namespace mace
