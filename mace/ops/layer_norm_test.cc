#include "mace/ops/ref/layer_norm.h"

#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/layer_norm_fast.h"
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
  EXPECT_NE(status.information().find("LayerNorm 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(LayerNormTest, HandComputed) {
  // Rows [1, 3] and [2, 2]: means 2 and 2, variances 1 and 0. With epsilon 0
  // row 0 becomes [-1, 1]; row 1 (epsilon 1 would be needed to avoid 0/0)
  // is tested separately. scale [2, 1], bias [0, 10]: [-2, 11].
  OpTester tester("LayerNorm", RegisterLayerNorm);
  tester.Input("x", {1, 2}, {1, 3})
      .Input("scale", {2}, {2, 1})
      .Input("bias", {2}, {0, 10})
      .Output("y")
      .Output("mean")
      .Output("inv")
      .Arg("epsilon", 0.f);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{-2, 11}));
  EXPECT_EQ(tester.OutputShape("mean"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(tester.OutputData("mean"), (std::vector<float>{2}));
  EXPECT_EQ(tester.OutputData("inv"), (std::vector<float>{1}));
}

TEST(LayerNormTest, ConstantRowUsesEpsilon) {
  // [2, 2]: variance 0, so inv = 1 / sqrt(0.25) = 2 and every value is 0.
  OpTester tester("LayerNorm", RegisterLayerNorm);
  tester.Input("x", {2}, {2, 2}).Output("y").Output("mean").Output("inv").Arg("epsilon", 0.25f);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{0, 0}));
  EXPECT_EQ(tester.OutputShape("inv"), (std::vector<int64_t>{1}));
  EXPECT_EQ(tester.OutputData("inv"), (std::vector<float>{2}));
}

struct Case {
  std::vector<int64_t> shape;
  int64_t axis;
  bool scale, bias;
};

TEST(LayerNormTest, MatchesNaiveTwoPass) {
  const std::vector<Case> cases = {
      {{1}, 0, false, false},         {{7}, -1, true, true},          {{3, 4}, 1, true, false},
      {{3, 4}, 0, true, true},        {{2, 3, 4, 5}, -1, true, true}, {{2, 3, 4, 5}, 1, true, true},
      {{2, 3, 4, 5}, 0, false, true}, {{1, 1, 1, 33}, 3, true, true}, {{5, 1, 9}, -2, true, true},
  };
  uint32_t seed = 4100;
  for (size_t n = 0; n < cases.size(); ++n) {
    SCOPED_TRACE(n);
    const Case& c = cases[n];
    const int rank = static_cast<int>(c.shape.size());
    const int axis = static_cast<int>(c.axis < 0 ? c.axis + rank : c.axis);
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < rank; ++i) (i < axis ? outer : inner) *= c.shape[i];
    // An offset makes the mean matter.
    std::vector<float> x = RandomFloats(outer * inner, seed++, 2.f, 5.f);
    const std::vector<float> scale = RandomFloats(inner, seed++);
    const std::vector<float> bias = RandomFloats(inner, seed++);
    const float epsilon = 1e-3f;
    OpTester tester("LayerNorm", RegisterLayerNorm);
    tester.Input("x", c.shape, x);
    if (c.scale) {
      tester.Input("scale", {inner}, scale);
    } else {
      tester.EmptyInput();
    }
    if (c.bias) tester.Input("bias", {inner}, bias);
    tester.Output("y").Output("mean").Output("inv").Arg("axis", c.axis).Arg("epsilon", epsilon);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    std::vector<float> want(x.size()), want_mean(outer), want_inv(outer);
    for (int64_t o = 0; o < outer; ++o) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < inner; ++i) mean += x[o * inner + i];
      mean /= inner;
      for (int64_t i = 0; i < inner; ++i) var += std::pow(x[o * inner + i] - mean, 2);
      var /= inner;
      const double sd = std::sqrt(var + epsilon);
      for (int64_t i = 0; i < inner; ++i) {
        double v = (x[o * inner + i] - mean) / sd;
        if (c.scale) v *= scale[i];
        if (c.bias) v += bias[i];
        want[o * inner + i] = static_cast<float>(v);
      }
      want_mean[o] = static_cast<float>(mean);
      want_inv[o] = static_cast<float>(1 / sd);
    }
    std::vector<int64_t> stats_shape = c.shape;
    for (int i = axis; i < rank; ++i) stats_shape[i] = 1;
    EXPECT_EQ(tester.OutputShape("y"), c.shape);
    EXPECT_EQ(tester.OutputShape("mean"), stats_shape);
    ExpectNear(tester.OutputData("y"), want, 1e-5f, 1e-5f);
    ExpectNear(tester.OutputData("mean"), want_mean, 1e-6f, 1e-6f);
    ExpectNear(tester.OutputData("inv"), want_inv, 1e-5f, 1e-6f);
  }
}

TEST(LayerNormTest, FastKernelMatchesReference) {
  // Row lengths around the 8 lanes and the 256-value blocks, rows with a
  // large offset (which float sums would lose without centering), and every
  // combination of scale and bias.
  const int64_t inners[] = {1, 2, 7, 8, 9, 255, 256, 257, 1000};
  uint32_t seed = 4200;
  for (int64_t inner : inners) {
    for (float offset : {0.f, 1000.f}) {
      ref::LayerNormParams p;
      p.outer = 3;
      p.inner = inner;
      p.epsilon = 1e-5f;
      std::vector<float> x = RandomFloats(p.outer * inner, seed++);
      for (float& v : x) v += offset;
      const std::vector<float> scale = RandomFloats(inner, seed++);
      const std::vector<float> bias = RandomFloats(inner, seed++);
      for (int mask = 0; mask < 4; ++mask) {
        SCOPED_TRACE(::testing::Message()
                     << "inner " << inner << " offset " << offset << " mask " << mask);
        const float* s = (mask & 1) ? scale.data() : nullptr;
        const float* b = (mask & 2) ? bias.data() : nullptr;
        std::vector<float> want(x.size()), got(x.size());
        std::vector<float> want_mean(p.outer), got_mean(p.outer), want_inv(p.outer),
            got_inv(p.outer);
        ref::LayerNorm(p, x.data(), s, b, want.data(), want_mean.data(), want_inv.data());
        LayerNormFast(p, x.data(), s, b, got.data(), got_mean.data(), got_inv.data());
        // A row of one value has variance 0: inv is 1/sqrt(epsilon) either way.
        ExpectNear(got, want, 2e-4f, 1e-4f);
        ExpectNear(got_mean, want_mean, 1e-6f, 1e-6f);
        ExpectNear(got_inv, want_inv, 1e-6f, 1e-4f);
      }
    }
  }
}

// Rows split over a pool of 2 or 3 threads give the one-thread values bit
// for bit, on row counts around the threads and the serial threshold.
TEST(LayerNormTest, FastKernelSplitsRowsOverThePool) {
  uint32_t seed = 4300;
  for (int threads : {2, 3}) {
    auto pool = ThreadPool::Create(threads, CPUAffinityPolicy::AFFINITY_NONE);
    ASSERT_NE(pool, nullptr);
    for (int64_t outer : {1, 2, 3, 7, 64, 129}) {
      for (int64_t inner : {384, 1000}) {
        SCOPED_TRACE(::testing::Message() << "threads " << threads << " outer " << outer
                                          << " inner " << inner);
        ref::LayerNormParams p;
        p.outer = outer;
        p.inner = inner;
        p.epsilon = 1e-5f;
        const std::vector<float> x = RandomFloats(outer * inner, seed++);
        const std::vector<float> scale = RandomFloats(inner, seed++);
        const std::vector<float> bias = RandomFloats(inner, seed++);
        std::vector<float> one(x.size()), split(x.size()), one_mean(outer), split_mean(outer),
            one_inv(outer), split_inv(outer);
        LayerNormFast(p, x.data(), scale.data(), bias.data(), one.data(), one_mean.data(),
                      one_inv.data());
        LayerNormFast(p, x.data(), scale.data(), bias.data(), split.data(), split_mean.data(),
                      split_inv.data(), pool.get());
        EXPECT_EQ(split, one);
        EXPECT_EQ(split_mean, one_mean);
        EXPECT_EQ(split_inv, one_inv);
      }
    }
  }
}

TEST(LayerNormTest, RejectsBadInput) {
  {
    OpTester tester("LayerNorm", RegisterLayerNorm);
    tester.Input("x", {2, 3}, std::vector<float>(6)).Output("y").Arg("axis", 2);
    ExpectInvalid(&tester, "axis 2 is out of range for input shape [2,3]");
  }
  {
    OpTester tester("LayerNorm", RegisterLayerNorm);
    tester.Input("x", {2, 3}, std::vector<float>(6)).Input("s", {2}, {1, 1}).Output("y");
    ExpectInvalid(&tester, "scale has shape [2] but the normalized axes of [2,3] hold 3 values");
  }
  {
    OpTester tester("LayerNorm", RegisterLayerNorm);
    tester.Input("x", {3}, {1, 2, 3}).Output("y").Arg("epsilon", -1.f);
    ExpectInvalid(&tester, "epsilon must be a finite number >= 0");
  }
  {
    OpTester tester("LayerNorm", RegisterLayerNorm);
    tester.Input("x", {}, {1}).Output("y");
    ExpectInvalid(&tester, "needs rank 1 or more");
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
