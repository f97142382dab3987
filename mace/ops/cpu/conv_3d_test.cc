// Conv3D: the reference kernel and the GEMM kernel, each against a naive
// convolution written here independently (it zero-pads the input into a
// buffer first and so never tests bounds), at edge shapes: kernels 1 and 3,
// stride 2, dilation 2, asymmetric pads, odd sizes, groups (depthwise-like
// too), output channel counts that leave partial GEMM tiles, with and
// without bias and activation, on every kernel table and 0-3 threads; then
// the op (constant and computed filters), and its errors.
#include "mace/ops/ref/conv_3d.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/conv_3d_cpu.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::OpTester;
using testing::RandomFloats;

struct Case {
  int64_t batch, in_channels, out_channels, group;
  int64_t in[3], kernel[3], stride[3], dilation[3];
  int64_t pads[6];  // begins then ends
  bool bias;
  bool relu;
};

ref::Conv3DParams Params(const Case& c) {
  ref::Conv3DParams p;
  p.batch = c.batch;
  p.in_channels = c.in_channels;
  p.out_channels = c.out_channels;
  p.group = c.group;
  for (int a = 0; a < 3; ++a) {
    p.in[a] = c.in[a];
    p.kernel[a] = c.kernel[a];
    p.stride[a] = c.stride[a];
    p.dilation[a] = c.dilation[a];
    p.pad[a] = c.pads[a];
    p.out[a] = (c.in[a] + c.pads[a] + c.pads[a + 3] - c.dilation[a] * (c.kernel[a] - 1) - 1) /
                   c.stride[a] +
               1;
  }
  if (c.relu) p.activation.type = ActivationType::RELU;
  return p;
}

int64_t Volume(const int64_t* dims) { return dims[0] * dims[1] * dims[2]; }

// The naive convolution: pad, then sum over the padded volume.
std::vector<float> Naive(const Case& c, const std::vector<float>& input,
                         const std::vector<float>& filter, const std::vector<float>& bias) {
  const ref::Conv3DParams p = Params(c);
  int64_t padded[3];
  for (int a = 0; a < 3; ++a) padded[a] = c.in[a] + c.pads[a] + c.pads[a + 3];
  const int64_t padded_volume = Volume(padded);
  std::vector<double> x(c.batch * c.in_channels * padded_volume, 0.0);
  for (int64_t plane = 0; plane < c.batch * c.in_channels; ++plane) {
    for (int64_t d = 0; d < c.in[0]; ++d) {
      for (int64_t h = 0; h < c.in[1]; ++h) {
        for (int64_t w = 0; w < c.in[2]; ++w) {
          x[plane * padded_volume + ((d + c.pads[0]) * padded[1] + h + c.pads[1]) * padded[2] + w +
            c.pads[2]] = input[plane * Volume(c.in) + (d * c.in[1] + h) * c.in[2] + w];
        }
      }
    }
  }
  const int64_t cg = c.in_channels / c.group, og = c.out_channels / c.group;
  std::vector<float> out;
  for (int64_t n = 0; n < c.batch; ++n) {
    for (int64_t o = 0; o < c.out_channels; ++o) {
      for (int64_t od = 0; od < p.out[0]; ++od) {
        for (int64_t oh = 0; oh < p.out[1]; ++oh) {
          for (int64_t ow = 0; ow < p.out[2]; ++ow) {
            double sum = c.bias ? bias[o] : 0.0;
            for (int64_t i = 0; i < cg; ++i) {
              const int64_t channel = (o / og) * cg + i;
              for (int64_t a = 0; a < c.kernel[0]; ++a) {
                for (int64_t b = 0; b < c.kernel[1]; ++b) {
                  for (int64_t e = 0; e < c.kernel[2]; ++e) {
                    const int64_t zd = od * c.stride[0] + a * c.dilation[0];
                    const int64_t zh = oh * c.stride[1] + b * c.dilation[1];
                    const int64_t zw = ow * c.stride[2] + e * c.dilation[2];
                    sum +=
                        x[(n * c.in_channels + channel) * padded_volume +
                          (zd * padded[1] + zh) * padded[2] + zw] *
                        filter[(((o * cg + i) * c.kernel[0] + a) * c.kernel[1] + b) * c.kernel[2] +
                               e];
                  }
                }
              }
            }
            if (c.relu && sum < 0) sum = 0;
            out.push_back(static_cast<float>(sum));
          }
        }
      }
    }
  }
  return out;
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      // ONNX's conv 3-D shape: kernel 3, no padding.
      {1, 1, 1, 1, {5, 5, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, 0, 0},
      // Pointwise: the input is the GEMM's B as it is; 7 outputs (a tile tail).
      {2, 5, 7, 1, {3, 4, 5}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, 1, 0},
      // Pointwise with stride 2 and asymmetric pads.
      {1, 3, 4, 1, {5, 4, 3}, {1, 1, 1}, {2, 2, 2}, {1, 1, 1}, {1, 0, 0, 0, 1, 1}, 1, 1},
      // Kernel 3, stride 2, asymmetric pads, odd sizes, bias and ReLU.
      {2, 3, 5, 1, {7, 5, 9}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 0, 1, 0, 2, 1}, 1, 1},
      // Dilation 2 with mixed strides and kernels.
      {1, 2, 9, 1, {6, 7, 8}, {3, 2, 3}, {1, 2, 1}, {2, 2, 1}, {2, 1, 0, 1, 0, 2}, 1, 0},
      // Groups: 6 inputs, 4 outputs in 2 groups.
      {2, 6, 4, 2, {4, 5, 3}, {3, 1, 2}, {1, 1, 2}, {1, 1, 1}, {1, 0, 0, 1, 0, 1}, 1, 0},
      // Depthwise-like: group equals the channels, two outputs per channel.
      {1, 3, 6, 3, {5, 5, 5}, {3, 3, 3}, {2, 1, 2}, {1, 2, 1}, {1, 2, 1, 1, 2, 1}, 0, 0},
      // Kernel as large as the padded input: one output voxel.
      {1, 4, 3, 1, {2, 3, 1}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 0, 1, 0, 0, 1}, 1, 0},
      // Many channels and voxels: reduction and columns over several blocks.
      {1, 40, 17, 1, {6, 9, 11}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}, 1, 1},
  };
  return cases;
}

struct Data {
  std::vector<float> input, filter, bias, expected;
};

Data MakeData(const Case& c, uint32_t seed) {
  const ref::Conv3DParams p = Params(c);
  Data data;
  data.input = RandomFloats(c.batch * c.in_channels * Volume(c.in), seed);
  data.filter = RandomFloats(c.out_channels * c.in_channels / c.group * Volume(c.kernel), seed + 1);
  data.bias = RandomFloats(c.out_channels, seed + 2);
  data.expected = Naive(c, data.input, data.filter, data.bias);
  EXPECT_EQ(static_cast<int64_t>(data.expected.size()), p.batch * p.out_channels * Volume(p.out));
  return data;
}

TEST(Conv3DKernelTest, ReferenceMatchesNaive) {
  for (size_t index = 0; index < Cases().size(); ++index) {
    SCOPED_TRACE(::testing::Message() << "case " << index);
    const Case& c = Cases()[index];
    const Data data = MakeData(c, 700 + 10 * index);
    std::vector<float> output(data.expected.size(), 1e30f);
    ref::Conv3D(Params(c), data.input.data(), data.filter.data(),
                c.bias ? data.bias.data() : nullptr, output.data());
    ExpectNear(output, data.expected, 1e-5f, 1e-5f);
  }
}

TEST(Conv3DKernelTest, GemmMatchesNaive) {
  const std::vector<const KernelTable*> tables = testing::TablesUnderTest();
  if (tables.empty()) GTEST_SKIP() << "no fast kernel family on this CPU";
  for (const KernelTable* table : tables) {
    for (size_t index = 0; index < Cases().size(); ++index) {
      const Case& c = Cases()[index];
      const ref::Conv3DParams p = Params(c);
      const Data data = MakeData(c, 700 + 10 * index);
      const Conv3dGemm gemm(*table, p, data.filter.data(), nullptr);
      EXPECT_EQ(gemm.pointwise(), index == 1) << "case " << index;
      for (const auto& pool : testing::PoolsUnderTest()) {
        SCOPED_TRACE(::testing::Message()
                     << table->name << " case " << index << " threads " << NumThreads(pool.get()));
        std::vector<float> scratch(gemm.ScratchBytes(NumThreads(pool.get())) / sizeof(float) + 1);
        std::vector<float> output(data.expected.size(), 1e30f);
        gemm.Run(data.input.data(), c.bias ? data.bias.data() : nullptr, output.data(), pool.get(),
                 scratch.data());
        ExpectNear(output, data.expected, 1e-4f, 1e-4f);
      }
    }
  }
}

// One channel of 1..8 in a 2x2x2 volume, a 2x2x2 kernel of ones, padded by
// one at the start of the depth only, stride 1: the first output plane sums
// the first input plane's windows, the second plane the whole volume.
TEST(Conv3DKernelTest, HandWorked) {
  ref::Conv3DParams p;
  p.batch = p.in_channels = p.out_channels = 1;
  for (int a = 0; a < 3; ++a) {
    p.in[a] = 2;
    p.kernel[a] = 2;
  }
  p.pad[0] = 1;
  p.out[0] = 2;
  p.out[1] = p.out[2] = 1;
  const std::vector<float> input = {1, 2, 3, 4, 5, 6, 7, 8}, filter(8, 1.f);
  std::vector<float> got(2);
  ref::Conv3D(p, input.data(), filter.data(), nullptr, got.data());
  EXPECT_EQ(got, (std::vector<float>{10.f, 36.f}));
}

void RunOp(const Case& c, bool constant_filter, int threads) {
  const ref::Conv3DParams p = Params(c);
  const Data data = MakeData(c, 900);
  const std::vector<int64_t> in_shape = {c.batch, c.in_channels, c.in[0], c.in[1], c.in[2]};
  const std::vector<int64_t> w_shape = {c.out_channels, c.in_channels / c.group, c.kernel[0],
                                        c.kernel[1], c.kernel[2]};
  std::unique_ptr<testing::TestCpuRuntime> runtime;
  if (threads > 0) runtime = std::make_unique<testing::TestCpuRuntime>(threads);
  OpTester tester("Conv3D", RegisterConv3D);
  tester.WithRuntime(runtime.get()).Input("x", in_shape, data.input);
  if (constant_filter) {
    tester.Weight("w", w_shape, data.filter);
  } else {
    tester.Input("w", w_shape, data.filter);
  }
  if (c.bias) tester.Weight("b", {c.out_channels}, data.bias);
  tester.Output("y")
      .Args("strides", std::vector<int64_t>(c.stride, c.stride + 3))
      .Args("dilations", std::vector<int64_t>(c.dilation, c.dilation + 3))
      .Args("pads", std::vector<int64_t>(c.pads, c.pads + 6))
      .Arg("group", c.group);
  if (c.relu) tester.Arg("activation", "RELU");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"),
            (std::vector<int64_t>{p.batch, p.out_channels, p.out[0], p.out[1], p.out[2]}));
  ExpectNear(tester.OutputData("y"), data.expected, 1e-4f, 1e-4f);
}

TEST(Conv3DOpTest, ShapesAndValues) {
  for (size_t index : {1, 3, 6}) {
    for (bool constant_filter : {true, false}) {
      for (int threads : {0, 2}) {
        SCOPED_TRACE(::testing::Message() << "case " << index << " constant " << constant_filter
                                          << " threads " << threads);
        RunOp(Cases()[index], constant_filter, threads);
      }
    }
  }
}

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(Conv3DOpTest, RejectsBadArguments) {
  const std::vector<float> x(8, 1.f), w(8, 1.f);
  {
    OpTester tester("Conv3D", RegisterConv3D);
    tester.Input("x", {1, 1, 2, 4}, x).Input("w", {1, 1, 2, 2, 2}, w).Output("y");
    ExpectInvalid(&tester, "needs rank 5");
  }
  {
    OpTester tester("Conv3D", RegisterConv3D);
    tester.Input("x", {1, 1, 2, 2, 2}, x)
        .Input("w", {1, 1, 2, 2, 2}, w)
        .Output("y")
        .Args("dilations", std::vector<int64_t>{1, 2, 1});
    ExpectInvalid(&tester, "longer than the padded input");
  }
  {
    OpTester tester("Conv3D", RegisterConv3D);
    tester.Input("x", {1, 1, 2, 2, 2}, x)
        .Input("w", {1, 1, 2, 2, 2}, w)
        .Output("y")
        .Args("strides", std::vector<int64_t>{1, 1});
    ExpectInvalid(&tester, "strides must have 3 values");
  }
  {
    OpTester tester("Conv3D", RegisterConv3D);
    tester.Input("x", {1, 1, 2, 2, 2}, x)
        .Input("w", {1, 1, 2, 2, 2}, w)
        .Output("y")
        .Args("pads", std::vector<int64_t>{0, 0, -1, 0, 0, 0});
    ExpectInvalid(&tester, "out of range");
  }
  {
    OpTester tester("Conv3D", RegisterConv3D);
    tester.Input("x", {1, 2, 2, 2, 1}, x)
        .Input("w", {3, 1, 2, 2, 1}, std::vector<float>(12, 1.f))
        .Output("y")
        .Arg("group", 2);
    ExpectInvalid(&tester, "must divide");
  }
  {
    OpTester tester("Conv3D", RegisterConv3D);
    tester.Input("x", {1, 2, 2, 2, 1}, x).Input("w", {1, 1, 2, 2, 2}, w).Output("y");
    ExpectInvalid(&tester, "does not fit");
  }
  {
    OpTester tester("Conv3D", RegisterConv3D);
    tester.Input("x", {1, 1, 2, 2, 2}, x)
        .Input("w", {1, 1, 2, 2, 2}, w)
        .Output("y")
        .Arg("activation", "PRELU");
    const MaceStatus status = tester.Run();
    EXPECT_FALSE(status.ok());
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
