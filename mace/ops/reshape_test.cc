#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/core/workspace.h"
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
  EXPECT_NE(status.information().find("Reshape 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(ReshapeTest, FlattensClassifierOutput) {
  // The last op of MobileNet: [1, C, 1, 1] -> [1, C], data untouched.
  OpTester tester("Reshape", RegisterReshape);
  tester.Input("x", {1, 5, 1, 1}, {1, 2, 3, 4, 5})
      .Output("y")
      .Args("shape", std::vector<int64_t>{1, 5});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 3, 4, 5}));
  EXPECT_EQ(tester.op().InPlaceInput(), 0);
}

TEST(ReshapeTest, CopyAndInferDimensions) {
  // [2, 3, 4] to [0, -1]: 0 keeps the 2, -1 becomes 24 / 2 = 12.
  OpTester tester("Reshape", RegisterReshape);
  tester.Input("x", {2, 3, 4}, RandomFloats(24, 1))
      .Output("y")
      .Args("shape", std::vector<int64_t>{0, -1});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(tester.OutputData("y"), RandomFloats(24, 1));
}

TEST(ReshapeTest, ShapeFromConstantInput) {
  // ONNX layout: the shape is an int32 weight. [6] -> [3, 2].
  OpTester tester("Reshape", RegisterReshape);
  tester.Input("x", {6}, {1, 2, 3, 4, 5, 6}).IntWeight("shape", {2}, {-1, 2}).Output("y");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(ReshapeTest, ArgumentAndInputMayAgree) {
  OpTester tester("Reshape", RegisterReshape);
  tester.Input("x", {6}, {1, 2, 3, 4, 5, 6})
      .IntWeight("shape", {2}, {2, 3})
      .Output("y")
      .Args("shape", std::vector<int64_t>{2, 3});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 3}));
}

TEST(ReshapeTest, Int32ToScalar) {
  // A one-element int32 tensor becomes a scalar (rank 0).
  OpTester tester("Reshape", RegisterReshape);
  tester.IntWeight("x", {1, 1}, {42}).Output("y", DT_INT32).Args("shape", std::vector<int64_t>{});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{}));
  EXPECT_EQ(tester.OutputInts("y"), (std::vector<int32_t>{42}));
}

TEST(ReshapeTest, RegistersFloatAndInt32) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterReshape(&registry).ok());
  EXPECT_TRUE(registry.Has("Reshape", DeviceType::CPU, DT_FLOAT));
  EXPECT_TRUE(registry.Has("Reshape", DeviceType::CPU, DT_INT32));
}

TEST(ReshapeTest, AliasedOutputIsLeftAlone) {
  // When the planner gives the output the input's bytes, Run must not copy
  // them onto themselves (memcpy with overlap is undefined; ASan reports it).
  OpRegistry registry;
  ASSERT_TRUE(RegisterReshape(&registry).ok());
  Workspace workspace;
  Tensor* input = workspace.CreateTensor("x", DT_FLOAT);
  input->Reshape({2, 3});
  input->AllocateOwned();
  for (int i = 0; i < 6; ++i) input->mutable_data<float>()[i] = static_cast<float>(i);
  OperatorDef def;
  def.set_type("Reshape");
  def.set_name("op_under_test");
  def.add_input("x");
  def.add_output("y");
  Argument* arg = def.add_arg();
  arg->set_name("shape");
  arg->add_ints(-1);
  std::unique_ptr<Operation> op = registry.Create("Reshape", DeviceType::CPU, DT_FLOAT);
  ASSERT_NE(op, nullptr);
  ASSERT_TRUE(op->Construct(def, &workspace).ok());
  OpContext context;
  ASSERT_TRUE(op->Prepare(&context).ok());
  Tensor* output = op->Output(0);
  EXPECT_EQ(output->shape(), (std::vector<int64_t>{6}));
  output->SetBuffer(input->raw_mutable_data(), input->capacity());
  ASSERT_TRUE(op->Run(&context).ok());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(output->data<float>()[i], static_cast<float>(i));
}

TEST(ReshapeTest, MatchesNaiveShapeRule) {
  // The naive rule: replace 0 by the input dimension, then -1 by whatever
  // makes the counts equal. The data must come through unchanged.
  struct Case {
    std::vector<int64_t> input_shape;
    std::vector<int64_t> shape;
    std::vector<int64_t> expected;
  };
  const std::vector<Case> cases = {
      {{1, 1, 1, 1}, {1}, {1}},  // all size-1
      {{1, 1, 1, 1}, {-1}, {1}},
      {{1, 3, 5, 7}, {-1, 7}, {15, 7}},               // odd sizes
      {{1, 3, 5, 7}, {0, 0, -1}, {1, 3, 35}},         // copies then infers
      {{1, 3, 5, 7}, {1, -1, 1, 1}, {1, 105, 1, 1}},  // infer in the middle
      {{2, 9}, {3, 2, 3}, {3, 2, 3}},                 // rank grows
      {{2, 3, 4, 5, 6}, {0, -1, 0}, {2, 90, 4}},      // 0 at index 2 copies 4
      {{7}, {1, 7, 1}, {1, 7, 1}},
  };
  uint32_t seed = 50;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.input_shape), seed++);
    OpTester tester("Reshape", RegisterReshape);
    tester.Input("x", c.input_shape, input).Output("y").Args("shape", c.shape);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), c.expected);
    EXPECT_EQ(tester.OutputData("y"), input);
  }
}

TEST(ReshapeTest, RejectsBadShapes) {
  struct Bad {
    std::vector<int64_t> shape;
    std::string fragment;
  };
  const std::vector<Bad> bads = {
      {{-1, -1}, "shape [-1,-1] has more than one -1"},
      {{2, -2}, "shape [2,-2] has -2; entries must be positive, 0 (copy) or -1 (infer)"},
      {{4, 2}, "cannot reshape input shape [2,3] (6 elements) to [4,2]"},
      {{4, -1}, "cannot reshape input shape [2,3] (6 elements) to [4,-1]"},
      {{0, 0, 0}, "copies dimension 2 (0) but input shape [2,3] has only 2"},
      {{int64_t{1} << 62, int64_t{1} << 62, -1}, "cannot reshape"},
      {{3, int64_t{1} << 62}, "cannot reshape"},
      {{}, "cannot reshape input shape [2,3] (6 elements) to []"},
  };
  for (size_t i = 0; i < bads.size(); ++i) {
    SCOPED_TRACE(i);
    OpTester tester("Reshape", RegisterReshape);
    tester.Input("x", {2, 3}, std::vector<float>(6)).Output("y").Args("shape", bads[i].shape);
    ExpectInvalid(&tester, bads[i].fragment);
  }
}

TEST(ReshapeTest, RejectsBadShapeInput) {
  OpTester missing("Reshape", RegisterReshape);
  missing.Input("x", {2}, {1, 2}).Output("y");
  ExpectInvalid(&missing, "needs the shape argument or a shape input");
  OpTester float_shape("Reshape", RegisterReshape);
  float_shape.Input("x", {2}, {1, 2}).Weight("shape", {1}, {2}).Output("y");
  ExpectInvalid(&float_shape, "shape input 'shape' is float32 but must be int32");
  OpTester matrix("Reshape", RegisterReshape);
  matrix.Input("x", {2}, {1, 2}).IntWeight("shape", {1, 1}, {2}).Output("y");
  ExpectInvalid(&matrix, "shape input 'shape' has shape [1,1] but must be 1-D");
  OpTester disagree("Reshape", RegisterReshape);
  disagree.Input("x", {2}, {1, 2})
      .IntWeight("shape", {2}, {1, 2})
      .Output("y")
      .Args("shape", std::vector<int64_t>{2, 1});
  ExpectInvalid(&disagree, "shape argument [2,1] disagrees with shape input [1,2]");
}

// A shape computed at run time (a float32 model input, as integer model
// inputs are fed): the output is planned for the shape argument, and each
// run checks the values still give it, with 0 and -1 resolved as ONNX does.
TEST(ReshapeTest, ComputedShapeCheckedEveryRun) {
  OpTester tester("Reshape", RegisterReshape);
  tester.Input("x", {2, 3, 4}, RandomFloats(24, 3))
      .Input("shape", {3}, {0, -1, 2})
      .Output("y")
      .Args("shape", std::vector<int64_t>{2, 6, 2});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 6, 2}));
  EXPECT_EQ(tester.OutputData("y"), RandomFloats(24, 3));
  // Other values that give the same shape are fine.
  EXPECT_TRUE(tester.RunAgain("shape", {2, 6, -1}).ok());
  EXPECT_FALSE(tester.RunAgain("shape", {2, 0, 0}).ok());  // [2, 3, 4]
  const struct {
    std::vector<float> shape;
    const char* fragment;
  } bads[] = {
      {{4, 3, 2}, "gives [4,3,2] in this run but the output was planned as [2,6,2]"},
      {{2, 6, 1}, "cannot reshape input shape [2,3,4]"},
      {{-1, -1, 2}, "more than one -1"},
      {{2, 6.5f, 2}, "holds 6.5 at index 1, which is not a whole number"},
      {{2, std::nanf(""), 2}, "which is not a whole number"},
      {{2, 1e30f, 2}, "cannot reshape"},
      {{2, -3, 2}, "entries must be positive, 0 (copy) or -1 (infer)"},
  };
  for (const auto& bad : bads) {
    const MaceStatus again = tester.RunAgain("shape", bad.shape);
    EXPECT_EQ(again.code(), MaceStatus::MACE_INVALID_ARGS) << bad.fragment;
    EXPECT_NE(again.information().find(bad.fragment), std::string::npos) << again.information();
  }
}

// allow_zero (ONNX allowzero = 1): a 0 in the shape is a dimension of size
// 0, not a copy of the input's; the empty output is planned as declared.
TEST(ReshapeTest, AllowZeroKeepsZeroDimensions) {
  OpTester tester("Reshape", RegisterReshape);
  tester.Input("x", {0, 3, 4}, {})
      .Input("shape", {3}, {3, 4, 0})
      .Output("y")
      .Args("shape", std::vector<int64_t>{3, 4, 0})
      .Arg("allow_zero", 1);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{3, 4, 0}));
  // Without allow_zero the same 0 copies the input's 4: no such reshape of
  // 0 elements into a planned [3, 4, 0], and a planned 0 is refused.
  OpTester copying("Reshape", RegisterReshape);
  copying.Input("x", {0, 3, 4}, {})
      .Input("shape", {3}, {3, 4, 0})
      .Output("y")
      .Args("shape", std::vector<int64_t>{3, 4, 0});
  ExpectInvalid(&copying, "must be fully known");
  OpTester ambiguous("Reshape", RegisterReshape);
  ambiguous.Input("x", {0, 3, 4}, {})
      .Output("y")
      .Args("shape", std::vector<int64_t>{-1, 0})
      .Arg("allow_zero", 1);
  ExpectInvalid(&ambiguous, "has both -1 and 0");
  OpTester counted("Reshape", RegisterReshape);
  counted.Input("x", {2, 3}, RandomFloats(6, 5))
      .Output("y")
      .Args("shape", std::vector<int64_t>{3, -1})
      .Arg("allow_zero", 1);
  ASSERT_TRUE(counted.Run().ok());
  EXPECT_EQ(counted.OutputShape("y"), (std::vector<int64_t>{3, 2}));
}

TEST(ReshapeTest, RejectsBadComputedShapeInput) {
  OpTester unplanned("Reshape", RegisterReshape);
  unplanned.Input("x", {6}, RandomFloats(6, 4)).Input("shape", {2}, {3, 2}).Output("y");
  ExpectInvalid(&unplanned, "needs the planned output shape as the shape argument");
  OpTester rank("Reshape", RegisterReshape);
  rank.Input("x", {6}, RandomFloats(6, 4))
      .Input("shape", {3}, {3, 2, 1})
      .Output("y")
      .Args("shape", std::vector<int64_t>{3, 2});
  ExpectInvalid(&rank, "has 3 values but the planned shape [3,2] has rank 2");
  OpTester unknown("Reshape", RegisterReshape);
  unknown.Input("x", {6}, RandomFloats(6, 4))
      .Input("shape", {2}, {3, 2})
      .Output("y")
      .Args("shape", std::vector<int64_t>{-1, 2});
  ExpectInvalid(&unknown, "must be fully known");
  OpTester matrix("Reshape", RegisterReshape);
  matrix.Input("x", {6}, RandomFloats(6, 4))
      .Input("shape", {1, 2}, {3, 2})
      .Output("y")
      .Args("shape", std::vector<int64_t>{3, 2});
  ExpectInvalid(&matrix, "but must be 1-D with 1 to 32 values");
}

TEST(ReshapeTest, RejectsOutputTypeMismatch) {
  OpTester tester("Reshape", RegisterReshape);
  tester.Input("x", {2}, {1, 2}).Output("y", DT_INT32).Args("shape", std::vector<int64_t>{2});
  ExpectInvalid(&tester, "output 'y' is declared int32 but this kernel writes float32");
}

TEST(ReshapeTest, EmptyInput) {
  // [0, 1] -> [-1] is [0]; [0, 3] -> [0, 3] copies the 0; -1 next to a 0
  // is ambiguous (0 times anything) and refused, as is a target with
  // elements.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{0, 1}, {-1}}, {{0, 3}, {0, 3}}, {{0, 4}, {-1, 2, 2}}};
  const std::vector<std::vector<int64_t>> want = {{0}, {0, 3}, {0, 2, 2}};
  for (size_t i = 0; i < cases.size(); ++i) {
    OpTester tester("Reshape", RegisterReshape);
    tester.Input("x", cases[i].first, {}).Output("y").Args("shape", cases[i].second);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), want[i]);
  }
  for (const std::vector<int64_t>& bad : {std::vector<int64_t>{0, -1}, {2, 2}}) {
    OpTester tester("Reshape", RegisterReshape);
    tester.Input("x", {0, 3}, {}).Output("y").Args("shape", bad);
    EXPECT_FALSE(tester.Run().ok());
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
