// Deconv3D: the CPU scatter kernel against ref::Deconv3D (a gather) at edge
// shapes (stride 2 and 3, cropping pads, output_padding, dilation, groups,
// kernels larger than the input, sizes of one, with and without bias) on
// 0-3 threads; a hand-worked case; and the op's shapes and errors.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/deconv_3d_cpu.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/ref/deconv_3d.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::OpTester;
using testing::RandomFloats;

struct Case {
  int64_t batch, in_channels, out_per_group, group;
  int64_t in[3], kernel[3], stride[3], dilation[3];
  int64_t pads[6];  // begins then ends
  int64_t output_padding[3];
  bool bias;
};

ref::Deconv3DParams Params(const Case& c) {
  ref::Deconv3DParams p;
  p.batch = c.batch;
  p.in_channels = c.in_channels;
  p.group = c.group;
  p.out_channels = c.out_per_group * c.group;
  for (int a = 0; a < 3; ++a) {
    p.in[a] = c.in[a];
    p.kernel[a] = c.kernel[a];
    p.stride[a] = c.stride[a];
    p.dilation[a] = c.dilation[a];
    p.crop[a] = c.pads[a];
    p.out[a] = (c.in[a] - 1) * c.stride[a] + c.dilation[a] * (c.kernel[a] - 1) + 1 +
               c.output_padding[a] - c.pads[a] - c.pads[a + 3];
  }
  return p;
}

int64_t Volume(const int64_t* dims) { return dims[0] * dims[1] * dims[2]; }

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // ONNX's test_convtranspose_3d shape.
      {1, 1, 2, 1, {3, 4, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {0, 0, 0}, 0},
      // Stride 2 with cropping pads and output_padding.
      {2, 3, 2, 1, {3, 2, 4}, {3, 2, 3}, {2, 2, 2}, {1, 1, 1}, {1, 0, 1, 1, 1, 0}, {1, 1, 0}, 1},
      // Dilation, mixed strides, asymmetric pads.
      {1, 2, 3, 1, {2, 3, 3}, {2, 3, 2}, {1, 2, 3}, {2, 1, 2}, {0, 1, 2, 1, 0, 0}, {1, 0, 2}, 1},
      // Groups: 4 input channels, 2 groups of 3 outputs.
      {2, 4, 3, 2, {2, 3, 2}, {2, 2, 3}, {2, 1, 2}, {1, 2, 1}, {1, 1, 0, 0, 1, 1}, {0, 1, 1}, 1},
      // Depthwise-like: group equals the channels.
      {1, 3, 1, 3, {3, 3, 3}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, {1, 1, 1}, 0},
      // Sizes of one and kernels larger than the input, stride 3, output
      // voxels no input reaches (they hold the bias).
      {1, 2, 2, 1, {1, 1, 2}, {4, 1, 2}, {3, 3, 3}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {2, 1, 0}, 1},
      // Pads that crop most of the output.
      {1, 1, 1, 1, {2, 2, 2}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {2, 2, 2, 2, 2, 1}, {0, 0, 1}, 1},
  };
  return cases;
}

TEST(Deconv3DKernelTest, ScatterMatchesTheReference) {
  uint32_t seed = 300;
  for (size_t index = 0; index < Cases().size(); ++index) {
    const Case& c = Cases()[index];
    const ref::Deconv3DParams p = Params(c);
    ASSERT_GT(Volume(p.out), 0) << "case " << index;
    const std::vector<float> input = RandomFloats(p.batch * p.in_channels * Volume(p.in), ++seed);
    const std::vector<float> filter =
        RandomFloats(p.in_channels * c.out_per_group * Volume(p.kernel), ++seed);
    const std::vector<float> bias = RandomFloats(p.out_channels, ++seed);
    const float* bias_data = c.bias ? bias.data() : nullptr;
    const int64_t count = p.batch * p.out_channels * Volume(p.out);
    std::vector<float> expected(count);
    ref::Deconv3D(p, input.data(), filter.data(), bias_data, expected.data());
    for (const auto& pool : testing::PoolsUnderTest()) {
      SCOPED_TRACE(::testing::Message() << "case " << index << " threads "
                                        << NumThreads(pool.get()));
      std::vector<float> output(count, 1e30f);
      Deconv3DScatter(p, input.data(), filter.data(), bias_data, output.data(), pool.get());
      ExpectNear(output, expected, 1e-5f, 1e-5f);
    }
  }
}

// One input voxel of 2 at the centre of a 1x1x1 input, stride 2 and a 2x1x2
// kernel of 1..4, cropped by one on the width's start: the output is the
// kernel times 2 without its first column.
TEST(Deconv3DKernelTest, HandWorked) {
  ref::Deconv3DParams p;
  p.batch = p.in_channels = p.out_channels = 1;
  p.in[0] = p.in[1] = p.in[2] = 1;
  p.kernel[0] = 2;
  p.kernel[1] = 1;
  p.kernel[2] = 2;
  p.stride[0] = p.stride[1] = p.stride[2] = 2;
  p.crop[2] = 1;
  p.out[0] = 2;
  p.out[1] = 1;
  p.out[2] = 1;
  const std::vector<float> input = {2.f}, filter = {1.f, 2.f, 3.f, 4.f};
  std::vector<float> got(2), want(2);
  Deconv3DScatter(p, input.data(), filter.data(), nullptr, got.data(), nullptr);
  ref::Deconv3D(p, input.data(), filter.data(), nullptr, want.data());
  EXPECT_EQ(got, (std::vector<float>{4.f, 8.f}));
  EXPECT_EQ(want, got);
}

TEST(Deconv3DOpTest, ShapesAndValues) {
  const Case& c = Cases()[1];
  const ref::Deconv3DParams p = Params(c);
  const std::vector<int64_t> in_shape = {c.batch, c.in_channels, c.in[0], c.in[1], c.in[2]};
  const std::vector<int64_t> w_shape = {c.in_channels, c.out_per_group, c.kernel[0], c.kernel[1],
                                        c.kernel[2]};
  const std::vector<float> input = RandomFloats(testing::NumElements(in_shape), 51);
  const std::vector<float> filter = RandomFloats(testing::NumElements(w_shape), 52);
  const std::vector<float> bias = RandomFloats(p.out_channels, 53);
  std::vector<float> expected(p.batch * p.out_channels * Volume(p.out));
  ref::Deconv3D(p, input.data(), filter.data(), bias.data(), expected.data());
  for (int threads : {0, 2}) {
    std::unique_ptr<testing::TestCpuRuntime> runtime;
    if (threads > 0) runtime = std::make_unique<testing::TestCpuRuntime>(threads);
    OpTester tester("Deconv3D", RegisterDeconv3D);
    tester.WithRuntime(runtime.get())
        .Input("x", in_shape, input)
        .Input("w", w_shape, filter)
        .Input("b", {p.out_channels}, bias)
        .Output("y")
        .Args("strides", std::vector<int64_t>{2, 2, 2})
        .Args("pads", std::vector<int64_t>{1, 0, 1, 1, 1, 0})
        .Args("output_padding", std::vector<int64_t>{1, 1, 0});
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"),
              (std::vector<int64_t>{p.batch, p.out_channels, p.out[0], p.out[1], p.out[2]}));
    ExpectNear(tester.OutputData("y"), expected, 1e-5f, 1e-5f);
  }
}

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(Deconv3DOpTest, RejectsBadArguments) {
  const std::vector<float> x(8, 1.f), w(8, 1.f);
  {
    OpTester tester("Deconv3D", RegisterDeconv3D);
    tester.Input("x", {1, 1, 2, 4}, x).Input("w", {1, 1, 2, 2, 2}, w).Output("y");
    ExpectInvalid(&tester, "needs rank 5");
  }
  {
    OpTester tester("Deconv3D", RegisterDeconv3D);
    tester.Input("x", {1, 1, 2, 2, 2}, x).Input("w", {1, 1, 2, 2, 2}, w).Output("y")
        .Args("output_padding", std::vector<int64_t>{0, 1, 0});
    ExpectInvalid(&tester, "smaller than the stride or the dilation");
  }
  {
    OpTester tester("Deconv3D", RegisterDeconv3D);
    tester.Input("x", {1, 1, 2, 2, 2}, x).Input("w", {1, 1, 2, 2, 2}, w).Output("y")
        .Args("pads", std::vector<int64_t>{0, 0, 2, 0, 0, 1});
    ExpectInvalid(&tester, "crop away");
  }
  {
    OpTester tester("Deconv3D", RegisterDeconv3D);
    tester.Input("x", {1, 1, 2, 2, 2}, x).Input("w", {1, 1, 2, 2, 2}, w).Output("y")
        .Args("strides", std::vector<int64_t>{1, 1});
    ExpectInvalid(&tester, "strides must have 3 values");
  }
  {
    OpTester tester("Deconv3D", RegisterDeconv3D);
    tester.Input("x", {1, 2, 2, 2, 1}, x)
        .Input("w", {2, 1, 2, 2, 2}, std::vector<float>(16, 1.f))
        .Output("y")
        .Arg("group", 3);
    ExpectInvalid(&tester, "must divide");
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
