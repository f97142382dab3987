#include <cmath>
#include <functional>
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
  EXPECT_NE(status.information().find("LocalResponseNorm 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(LocalResponseNormTest, RadiusOneWithDefaults) {
  // Channels 1, 2, 3 (one pixel), radius 1, bias 1, alpha 1, beta 0.5:
  //   c0: 1 + 4 = 5      -> 1 / sqrt(1 + 5)
  //   c1: 1 + 4 + 9 = 14 -> 2 / sqrt(15)
  //   c2: 4 + 9 = 13     -> 3 / sqrt(14)
  OpTester tester("LocalResponseNorm", RegisterLocalResponseNorm);
  tester.Input("x", {1, 3, 1, 1}, {1, 2, 3}).Output("y").Arg("depth_radius", 1);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 3, 1, 1}));
  ExpectNear(tester.OutputData("y"),
             {1 / std::sqrt(6.f), 2 / std::sqrt(15.f), 3 / std::sqrt(14.f)});
}

TEST(LocalResponseNormTest, DefaultRadiusCoversAllChannels) {
  // The default radius 5 spans all three channels: every sum is 14.
  OpTester tester("LocalResponseNorm", RegisterLocalResponseNorm);
  tester.Input("x", {1, 3, 1, 1}, {1, 2, 3}).Output("y");
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  const float d = std::sqrt(15.f);
  ExpectNear(tester.OutputData("y"), {1 / d, 2 / d, 3 / d});
}

TEST(LocalResponseNormTest, CustomCoefficients) {
  // Radius 0: each value only sees itself. bias 2, alpha 0.5, beta 0.75:
  // x = 2 gives 2 / (2 + 0.5 * 4)^0.75 = 2 / 4^0.75 = 2 / (2 * sqrt(2)), and
  // x = -2 the negative of that. Integer-valued float args are accepted too.
  OpTester tester("LocalResponseNorm", RegisterLocalResponseNorm);
  tester.Input("x", {1, 2, 1, 1}, {2, -2})
      .Output("y")
      .Arg("depth_radius", 0.f)
      .Arg("bias", 2.f)
      .Arg("alpha", 0.5f)
      .Arg("beta", 0.75f);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  ExpectNear(tester.OutputData("y"), {1 / std::sqrt(2.f), -1 / std::sqrt(2.f)});
}

TEST(LocalResponseNormTest, IntegerValuedCoefficients) {
  // bias 3 given as an int: 1 / (3 + 1 * 1)^0.5 = 0.5.
  OpTester tester("LocalResponseNorm", RegisterLocalResponseNorm);
  tester.Input("x", {1, 1, 1, 1}, {1}).Output("y").Arg("depth_radius", 0).Arg("bias", 3);
  const MaceStatus run_status = tester.Run();
  ASSERT_TRUE(run_status.ok()) << run_status.information();
  ExpectNear(tester.OutputData("y"), {0.5f});
}

struct LrnCase {
  std::vector<int64_t> shape;
  int64_t radius;
  float bias, alpha, beta;
};

// Straight from TensorFlow's formula: window offsets -r..r, skipping channels
// that do not exist.
std::vector<float> NaiveLrn(const LrnCase& c, const std::vector<float>& input) {
  const int64_t n = c.shape[0], ch = c.shape[1], hw = c.shape[2] * c.shape[3];
  std::vector<float> out(input.size());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t k = 0; k < ch; ++k) {
      for (int64_t i = 0; i < hw; ++i) {
        double sum = 0.0;
        for (int64_t d = -c.radius; d <= c.radius; ++d) {
          if (k + d < 0 || k + d >= ch) continue;
          const double v = input[(b * ch + k + d) * hw + i];
          sum += v * v;
        }
        const int64_t at = (b * ch + k) * hw + i;
        out[at] = static_cast<float>(input[at] * std::pow(c.bias + c.alpha * sum, -c.beta));
      }
    }
  }
  return out;
}

TEST(LocalResponseNormTest, MatchesNaiveLrn) {
  const std::vector<LrnCase> cases = {
      {{1, 1, 1, 1}, 2, 1.f, 1.f, 0.5f},     // one channel
      {{1, 7, 3, 5}, 2, 1.f, 1e-4f, 0.75f},  // AlexNet-like
      {{2, 5, 4, 3}, 0, 2.f, 0.3f, 0.75f},   // radius 0
      {{1, 4, 2, 2}, 9, 1.f, 0.5f, 1.f},     // radius beyond the channels
      {{1, 16, 1, 7}, 3, 0.5f, 2.f, 0.25f},  //
      {{3, 3, 5, 1}, 1, 1.5f, 0.1f, 2.f},    // beta 2
  };
  uint32_t seed = 1800;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const LrnCase& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++, -3.f, 3.f);
    OpTester tester("LocalResponseNorm", RegisterLocalResponseNorm);
    tester.Input("x", c.shape, input)
        .Output("y")
        .Arg("depth_radius", c.radius)
        .Arg("bias", c.bias)
        .Arg("alpha", c.alpha)
        .Arg("beta", c.beta);
    const MaceStatus run_status = tester.Run();
    ASSERT_TRUE(run_status.ok()) << run_status.information();
    ASSERT_EQ(tester.OutputShape("y"), c.shape);
    ExpectNear(tester.OutputData("y"), NaiveLrn(c, input), 1e-6f, 1e-5f);
  }
}

TEST(LocalResponseNormTest, RejectsBadArgs) {
  struct BadArgs {
    std::function<void(OpTester*)> set;
    std::string fragment;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<BadArgs> cases = {
      {[](OpTester* t) { t->Arg("depth_radius", -1); }, "depth_radius must be a non-negative"},
      {[](OpTester* t) { t->Arg("depth_radius", 1.5f); }, "depth_radius must be a non-negative"},
      {[](OpTester* t) { t->Arg("depth_radius", int64_t{1} << 40); }, "at most 2^31"},
      {[](OpTester* t) { t->Arg("depth_radius", "two"); },
       "argument 'depth_radius' must be an int or a float, got a string"},
      {[inf](OpTester* t) { t->Arg("bias", inf); }, "bias must be a finite number"},
      {[](OpTester* t) { t->Arg("alpha", std::numeric_limits<float>::quiet_NaN()); },
       "alpha must be a finite number"},
      {[](OpTester* t) { t->Args("beta", std::vector<float>{0.5f}); },
       "argument 'beta' must be an int or a float, got a list of floats"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("LocalResponseNorm", RegisterLocalResponseNorm);
    tester.Input("x", {1, 2, 1, 1}, {1, 2}).Output("y");
    cases[i].set(&tester);
    ExpectInvalid(&tester, cases[i].fragment);
  }
  OpTester rank("LocalResponseNorm", RegisterLocalResponseNorm);
  rank.Input("x", {1, 2, 1}, {1, 2}).Output("y");
  ExpectInvalid(&rank, "input has shape [1,2,1] but needs rank 4");
}

}  // namespace
}  // namespace ops
}  // namespace mace
