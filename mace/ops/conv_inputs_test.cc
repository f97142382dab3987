// Conv2D, DepthwiseConv2d and Deconv2D check their common inputs and
// arguments through mace/ops/common/conv_inputs.h: each must refuse the same
// bad input with the same message, naming itself.
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

struct ConvOp {
  const char* type;
  std::function<MaceStatus(OpRegistry*)> register_fn;
};

const ConvOp kOps[] = {
    {"Conv2D", RegisterConv2D},
    {"DepthwiseConv2d", RegisterDepthwiseConv2d},
    {"Deconv2D", RegisterDeconv2D},
};

// 3x3 filters for a [1, 2, 4, 4] input in each op's own layout, giving every
// op 2 output channels.
std::vector<int64_t> FilterShape(const std::string& type) {
  if (type == "Conv2D") return {2, 2, 3, 3};
  if (type == "DepthwiseConv2d") return {1, 2, 3, 3};
  return {2, 2, 3, 3};  // Deconv2D: [in, out, kh, kw]
}

OpTester MakeTester(const ConvOp& op, const std::vector<int64_t>& input_shape) {
  OpTester tester(op.type, op.register_fn);
  const std::vector<int64_t> filter_shape = FilterShape(op.type);
  tester.Input("x", input_shape, std::vector<float>(NumElements(input_shape), 1.f))
      .Weight("w", filter_shape, std::vector<float>(NumElements(filter_shape), 0.5f));
  return tester;
}

void ExpectInvalid(const ConvOp& op, OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << op.type;
  const std::string& message = status.information();
  EXPECT_NE(message.find(std::string(op.type) + " 'op_under_test'"), std::string::npos) << message;
  EXPECT_NE(message.find(fragment), std::string::npos) << op.type << ": " << message;
}

TEST(ConvInputsTest, AllRunOnValidInputs) {
  for (const ConvOp& op : kOps) {
    OpTester tester = MakeTester(op, {1, 2, 4, 4});
    tester.Weight("b", {2}, {0.f, 1.f}).Output("y");
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << op.type << ": " << status.information();
    EXPECT_EQ(tester.OutputShape("y")[1], 2) << op.type;
  }
}

TEST(ConvInputsTest, RejectIntBias) {
  for (const ConvOp& op : kOps) {
    OpTester tester = MakeTester(op, {1, 2, 4, 4});
    tester.IntWeight("b", {2}, {0, 1}).Output("y");
    ExpectInvalid(op, &tester, "'b' is int32 but must be float32");
  }
}

TEST(ConvInputsTest, RejectEmptyDimension) {
  for (const ConvOp& op : kOps) {
    OpTester tester = MakeTester(op, {1, 2, 0, 4});
    tester.Output("y");
    ExpectInvalid(op, &tester, "'x' has shape [1,2,0,4] with a non-positive dimension");
  }
}

TEST(ConvInputsTest, RejectWrongInputRank) {
  for (const ConvOp& op : kOps) {
    OpTester tester = MakeTester(op, {2, 4, 4});
    tester.Output("y");
    ExpectInvalid(op, &tester, "input has shape [2,4,4] but needs rank 4 (NCHW)");
  }
}

TEST(ConvInputsTest, RejectWrongBiasShape) {
  for (const ConvOp& op : kOps) {
    OpTester tester = MakeTester(op, {1, 2, 4, 4});
    tester.Weight("b", {3}, {0.f, 1.f, 2.f}).Output("y");
    ExpectInvalid(op, &tester, "bias has shape [3] but needs [2]");
  }
}

TEST(ConvInputsTest, RejectHugeStrides) {
  for (const ConvOp& op : kOps) {
    OpTester tester = MakeTester(op, {1, 2, 4, 4});
    tester.Output("y").Args("strides", std::vector<int64_t>{int64_t{1} << 21, 1});
    ExpectInvalid(op, &tester, "strides, dilations and pads must not exceed");
  }
}

TEST(ConvInputsTest, RejectMissingFilter) {
  for (const ConvOp& op : kOps) {
    OpTester tester(op.type, op.register_fn);
    tester.Input("x", {1, 2, 4, 4}, std::vector<float>(32)).Output("y");
    ExpectInvalid(op, &tester, "needs inputs [input, filter, optional bias] and one output");
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
