#include "mace/ops/ref/softmax.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/softmax_cpu.h"
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
  EXPECT_NE(status.information().find("Softmax 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> RunSoftmax(const std::vector<int64_t>& shape, const std::vector<float>& x,
                              int axis, int use_log) {
  OpTester tester("Softmax", RegisterSoftmax);
  tester.Input("x", shape, x).Output("y").Arg("axis", axis).Arg("use_log", use_log);
  const MaceStatus status = tester.Run();
  EXPECT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), shape);
  return tester.OutputData("y");
}

TEST(SoftmaxTest, HandComputedLastAxis) {
  // [1, 2, 3] minus its max 3 is [-2, -1, 0]; sum e^-2 + e^-1 + 1 = 1.5032147.
  // Softmax: 0.1353353 / 1.5032147 = 0.0900306, 0.3678794 / ... = 0.2447285,
  // 1 / ... = 0.6652410. Log-softmax: [-2, -1, 0] - ln(1.5032147) = -0.4076060
  // shifted: -2.4076060, -1.4076060, -0.4076060.
  OpTester tester("Softmax", RegisterSoftmax);
  tester.Input("x", {1, 3}, {1, 2, 3}).Output("y");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  ExpectNear(tester.OutputData("y"), {0.0900306f, 0.2447285f, 0.6652410f}, 1e-7f);
  EXPECT_EQ(tester.op().InPlaceInput(), 0);
  ExpectNear(RunSoftmax({3}, {1, 2, 3}, -1, 1), {-2.4076060f, -1.4076060f, -0.4076060f}, 1e-6f);
}

TEST(SoftmaxTest, ChannelAxisOfNchw) {
  // [1, 2, 1, 2] with axis 1: pixel 0 compares 0 with ln 3 -> 1/4, 3/4;
  // pixel 1 compares 5 with 5 -> 1/2, 1/2.
  ExpectNear(RunSoftmax({1, 2, 1, 2}, {0, 5, std::log(3.f), 5}, 1, 0), {0.25f, 0.5f, 0.75f, 0.5f},
             1e-7f);
}

TEST(SoftmaxTest, LargeInputsStayFinite) {
  // Without subtracting the max, e^1000 would overflow even in double.
  ExpectNear(RunSoftmax({2, 2}, {1000, 1000, 1000, 0}, -1, 0), {0.5f, 0.5f, 1, 0}, 1e-7f);
  // log-softmax of [1000, 0]: [0, -1000] exactly, since e^-1000 vanishes.
  EXPECT_EQ(RunSoftmax({2}, {1000, 0}, 0, 1), (std::vector<float>{0, -1000}));
  // A single element along the axis is always 1 (log 0).
  EXPECT_EQ(RunSoftmax({2, 1}, {-7, 42}, 1, 0), (std::vector<float>{1, 1}));
  EXPECT_EQ(RunSoftmax({2, 1}, {-7, 42}, 1, 1), (std::vector<float>{0, 0}));
}

TEST(SoftmaxTest, MatchesNaiveComputation) {
  const std::vector<std::vector<int64_t>> shapes = {
      {7}, {1, 1}, {3, 17}, {2, 5, 3, 7}, {1, 1001, 1, 1}, {2, 1, 9}, {3, 2, 1, 4, 5},
  };
  uint32_t seed = 1100;
  for (const std::vector<int64_t>& shape : shapes) {
    const int rank = static_cast<int>(shape.size());
    for (int axis = -rank; axis < rank; ++axis) {
      for (int use_log : {0, 1}) {
        SCOPED_TRACE(ShapeToString(shape) + " axis " + std::to_string(axis) + " use_log " +
                     std::to_string(use_log));
        const std::vector<float> x = RandomFloats(NumElements(shape), seed++, -8.f, 8.f);
        const std::vector<float> actual = RunSoftmax(shape, x, axis, use_log);
        // Plain exp(x) / sum(exp(x)) in double (no max trick: the inputs are
        // small), visiting each slice through explicit strides.
        const int a = axis < 0 ? axis + rank : axis;
        int64_t inner = 1;
        for (int d = a + 1; d < rank; ++d) inner *= shape[d];
        const int64_t size = shape[a];
        std::vector<float> expected(x.size());
        for (int64_t start = 0; start < static_cast<int64_t>(x.size()); ++start) {
          if ((start / inner) % size != 0) continue;  // not the first element of a slice
          double sum = 0;
          for (int64_t k = 0; k < size; ++k) sum += std::exp(double{x[start + k * inner]});
          for (int64_t k = 0; k < size; ++k) {
            const double value = x[start + k * inner];
            expected[start + k * inner] =
                static_cast<float>(use_log ? value - std::log(sum) : std::exp(value) / sum);
          }
        }
        ExpectNear(actual, expected, 1e-6f, 1e-5f);
      }
    }
  }
}

TEST(SoftmaxTest, KernelRunsInPlace) {
  for (bool use_log : {false, true}) {
    ref::SoftmaxParams params;
    params.outer = 2;
    params.axis_size = 5;
    params.inner = 3;
    params.use_log = use_log;
    const std::vector<float> x = RandomFloats(30, 51, -4.f, 4.f);
    std::vector<float> separate(30);
    ref::Softmax(params, x.data(), separate.data());
    std::vector<float> in_place = x;
    ref::Softmax(params, in_place.data(), in_place.data());
    EXPECT_EQ(in_place, separate);
  }
}

// The CPU kernel's path for adjacent slices against the reference kernel
// (double precision): tails of every length around the 16-value step, a
// classifier's 1000 and 1001 classes, inputs wide enough that most
// exponentials underflow, and the kernel in place.
TEST(SoftmaxTest, ContiguousPathMatchesReference) {
  const int64_t sizes[] = {1, 2, 3, 15, 16, 17, 31, 33, 1000, 1001, 4099};
  const float ranges[] = {1.f, 8.f, 60.f, 200.f};
  uint32_t seed = 2600;
  for (int64_t size : sizes) {
    for (float range : ranges) {
      for (bool use_log : {false, true}) {
        SCOPED_TRACE("size " + std::to_string(size) + " range " + std::to_string(range) +
                     " use_log " + std::to_string(use_log));
        ref::SoftmaxParams params;
        params.outer = 3;
        params.axis_size = size;
        params.inner = 1;
        params.use_log = use_log;
        const std::vector<float> x = RandomFloats(3 * size, seed++, -range, range);
        std::vector<float> expected(x.size()), actual(x.size());
        ref::Softmax(params, x.data(), expected.data());
        SoftmaxContiguous(x.data(), 3, size, use_log, actual.data());
        for (size_t i = 0; i < x.size(); ++i) {
          const float e = expected[i];
          const float bound = use_log ? 1e-6f * std::max(1.f, std::fabs(e))
                                      : 1e-6f * e + std::numeric_limits<float>::min();
          ASSERT_NEAR(actual[i], e, bound) << "at " << i << ", input " << x[i];
        }
        std::vector<float> in_place = x;
        SoftmaxContiguous(in_place.data(), 3, size, use_log, in_place.data());
        EXPECT_EQ(in_place, actual);
      }
    }
  }
}

TEST(SoftmaxTest, ContiguousPathSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // -inf takes no share; the others split as without it.
  std::vector<float> out(18);
  std::vector<float> x(18, 0.f);
  x[3] = -inf;
  SoftmaxContiguous(x.data(), 1, 18, false, out.data());
  for (int i = 0; i < 18; ++i) EXPECT_NEAR(out[i], i == 3 ? 0.f : 1.f / 17, 1e-7f) << i;
  // exp(x - max) of exactly 0 is 1, whatever the magnitudes.
  const std::vector<float> big = {1e30f, -1e30f, 1e30f};
  SoftmaxContiguous(big.data(), 1, 3, false, out.data());
  EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 3), (std::vector<float>{0.5f, 0, 0.5f}));
  // +inf or NaN anywhere in a slice makes the whole slice NaN, as in the
  // reference kernel; the next slice is unaffected.
  for (float bad : {inf, nan}) {
    for (bool use_log : {false, true}) {
      std::vector<float> two(40, 1.f);
      two[17] = bad;
      ref::SoftmaxParams params;
      params.outer = 2;
      params.axis_size = 20;
      params.inner = 1;
      params.use_log = use_log;
      std::vector<float> expected(40);
      ref::Softmax(params, two.data(), expected.data());
      out.resize(40);
      SoftmaxContiguous(two.data(), 2, 20, use_log, out.data());
      for (int i = 0; i < 40; ++i) {
        EXPECT_EQ(std::isnan(out[i]), std::isnan(expected[i])) << i;
        if (i >= 20) {
          EXPECT_NEAR(out[i], expected[i], 1e-6f) << i;
        }
      }
      EXPECT_TRUE(std::isnan(out[0]));
    }
  }
}

TEST(SoftmaxTest, RejectsBadAxis) {
  for (int axis : {3, -4, 1 << 30}) {
    OpTester tester("Softmax", RegisterSoftmax);
    tester.Input("x", {1, 2, 3}, std::vector<float>(6)).Output("y").Arg("axis", axis);
    ExpectInvalid(&tester, "is out of range for input shape [1,2,3] (rank 3)");
  }
  OpTester huge("Softmax", RegisterSoftmax);
  huge.Input("x", {2}, {1, 2}).Output("y").Arg("axis", int64_t{1} << 40);
  ExpectInvalid(&huge, "axis 1099511627776 is out of range");
}

TEST(SoftmaxTest, RejectsBadInputsAndArgs) {
  OpTester use_log("Softmax", RegisterSoftmax);
  use_log.Input("x", {2}, {1, 2}).Output("y").Arg("use_log", 2);
  ExpectInvalid(&use_log, "use_log must be 0 or 1, got 2");
  OpTester scalar("Softmax", RegisterSoftmax);
  scalar.Input("x", {}, {1}).Output("y");
  ExpectInvalid(&scalar, "input has shape [] but needs rank 1 or more");
  OpTester two("Softmax", RegisterSoftmax);
  two.Input("x", {2}, {1, 2}).Input("z", {2}, {1, 2}).Output("y");
  ExpectInvalid(&two, "needs one input and one output, got 2 inputs");
  OpTester missing("Softmax", RegisterSoftmax);
  missing.EmptyInput().Output("y");
  ExpectInvalid(&missing, "input is missing");
  OpTester int_input("Softmax", RegisterSoftmax);
  int_input.IntWeight("x", {2}, {1, 2}).Output("y");
  ExpectInvalid(&int_input, "'x' is int32 but must be float32");
}

}  // namespace
}  // namespace ops
}  // namespace mace
