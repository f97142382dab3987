// LP pooling (Pooling's pooling_type 3, ONNX LpPool): the op on 0-3 threads
// against a naive computation written here for p = 1, 2, 3 and 4 at edge
// windows (stride, dilation, asymmetric pads, ceil_mode, one-row inputs,
// odd sizes), a hand-worked case, and its errors.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::OpTester;
using testing::RandomFloats;

struct LpCase {
  int64_t batch, channels, in_h, in_w;
  int64_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w;
  int64_t pads[4];  // top, left, bottom, right
  bool ceil_mode;
  int64_t p;
};

// The output length of one axis: windows are counted rounding down (or up
// with ceil_mode, dropping a last window that starts in the end padding).
int64_t OutSize(int64_t in, int64_t begin, int64_t end, int64_t kernel, int64_t stride,
                int64_t dilation, bool ceil_mode) {
  const int64_t span = in + begin + end - (dilation * (kernel - 1) + 1);
  int64_t out = span / stride + 1;
  if (ceil_mode && span % stride != 0) {
    ++out;
    if ((out - 1) * stride >= in + begin) --out;
  }
  return out;
}

std::vector<float> Naive(const LpCase& c, const std::vector<float>& x, int64_t out_h,
                         int64_t out_w) {
  std::vector<float> y;
  for (int64_t plane = 0; plane < c.batch * c.channels; ++plane) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t ow = 0; ow < out_w; ++ow) {
        double sum = 0;
        for (int64_t i = 0; i < c.kernel_h; ++i) {
          for (int64_t j = 0; j < c.kernel_w; ++j) {
            const int64_t h = oh * c.stride_h + i * c.dilation_h - c.pads[0];
            const int64_t w = ow * c.stride_w + j * c.dilation_w - c.pads[1];
            if (h < 0 || w < 0 || h >= c.in_h || w >= c.in_w) continue;  // a zero
            double term = 1;
            const double v = std::fabs(x[(plane * c.in_h + h) * c.in_w + w]);
            for (int64_t k = 0; k < c.p; ++k) term *= v;
            sum += term;
          }
        }
        y.push_back(static_cast<float>(std::pow(sum, 1.0 / c.p)));
      }
    }
  }
  return y;
}

TEST(LpPoolingTest, MatchesNaive) {
  const std::vector<LpCase> cases = {
      {1, 2, 5, 7, 3, 2, 1, 1, 1, 1, {0, 0, 0, 0}, false, 2},
      {2, 3, 6, 5, 3, 3, 2, 2, 1, 1, {1, 0, 0, 1}, false, 1},
      {1, 4, 7, 6, 2, 3, 2, 1, 2, 1, {0, 1, 1, 0}, false, 3},
      {1, 5, 5, 5, 2, 2, 2, 2, 1, 1, {0, 0, 0, 0}, true, 2},
      {2, 1, 1, 9, 1, 4, 1, 3, 1, 1, {0, 2, 0, 1}, true, 2},
      {1, 3, 4, 4, 3, 3, 1, 1, 1, 1, {2, 2, 2, 2}, false, 4},
  };
  uint32_t seed = 4100;
  for (size_t index = 0; index < cases.size(); ++index) {
    const LpCase& c = cases[index];
    const int64_t out_h =
        OutSize(c.in_h, c.pads[0], c.pads[2], c.kernel_h, c.stride_h, c.dilation_h, c.ceil_mode);
    const int64_t out_w =
        OutSize(c.in_w, c.pads[1], c.pads[3], c.kernel_w, c.stride_w, c.dilation_w, c.ceil_mode);
    const std::vector<float> x = RandomFloats(c.batch * c.channels * c.in_h * c.in_w, ++seed);
    const std::vector<float> expected = Naive(c, x, out_h, out_w);
    for (int threads : {0, 2, 3}) {
      SCOPED_TRACE(::testing::Message() << "case " << index << " threads " << threads);
      std::unique_ptr<testing::TestCpuRuntime> runtime;
      if (threads > 0) runtime = std::make_unique<testing::TestCpuRuntime>(threads);
      OpTester tester("Pooling", RegisterPooling);
      tester.WithRuntime(runtime.get())
          .Input("x", {c.batch, c.channels, c.in_h, c.in_w}, x)
          .Output("y")
          .Arg("pooling_type", 3)
          .Arg("p", c.p)
          .Args("kernels", std::vector<int64_t>{c.kernel_h, c.kernel_w})
          .Args("strides", std::vector<int64_t>{c.stride_h, c.stride_w})
          .Args("dilations", std::vector<int64_t>{c.dilation_h, c.dilation_w})
          .Args("pads", std::vector<int64_t>(c.pads, c.pads + 4))
          .Arg("ceil_mode", c.ceil_mode ? 1 : 0);
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{c.batch, c.channels, out_h, out_w}));
      ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-5f);
    }
  }
}

// A 2x2 window over [[3, -4], [0, 0]]: p = 2 gives 5, p = 1 gives 7; with a
// pad of one all round the corner windows hold one value each.
TEST(LpPoolingTest, HandWorked) {
  for (int64_t p : {1, 2}) {
    OpTester tester("Pooling", RegisterPooling);
    tester.Input("x", {1, 1, 2, 2}, {3.f, -4.f, 0.f, 0.f})
        .Output("y")
        .Arg("pooling_type", 3)
        .Arg("p", p)
        .Args("kernels", std::vector<int64_t>{2, 2});
    ASSERT_TRUE(tester.Run().ok());
    EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{p == 2 ? 5.f : 7.f}));
  }
  OpTester tester("Pooling", RegisterPooling);
  tester.Input("x", {1, 1, 2, 2}, {3.f, -4.f, 0.f, 0.f})
      .Output("y")
      .Arg("pooling_type", 3)
      .Args("kernels", std::vector<int64_t>{2, 2})
      .Args("strides", std::vector<int64_t>{2, 2})
      .Args("pads", std::vector<int64_t>{1, 1, 1, 1});
  ASSERT_TRUE(tester.Run().ok());
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{3.f, 4.f, 0.f, 0.f}));
}

TEST(LpPoolingTest, RejectsBadArguments) {
  for (int64_t p : {0, -2, 5000}) {
    OpTester tester("Pooling", RegisterPooling);
    tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4, 1.f))
        .Output("y")
        .Arg("pooling_type", 3)
        .Arg("p", p)
        .Args("kernels", std::vector<int64_t>{2, 2});
    const MaceStatus status = tester.Run();
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
    EXPECT_NE(status.information().find("p must be in"), std::string::npos) << status.information();
  }
  OpTester tester("Pooling", RegisterPooling);
  tester.Input("x", {1, 1, 2, 2}, std::vector<float>(4, 1.f))
      .Output("y")
      .Output("i", DT_INT32)
      .Arg("pooling_type", 3)
      .Args("kernels", std::vector<int64_t>{2, 2});
  EXPECT_EQ(tester.Run().code(), MaceStatus::MACE_INVALID_ARGS);
}

}  // namespace
}  // namespace ops
}  // namespace mace
