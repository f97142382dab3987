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
  EXPECT_NE(status.information().find("Squeeze 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(SqueezeTest, RemovesEverySizeOneDimensionByDefault) {
  OpTester tester("Squeeze", RegisterSqueeze);
  tester.Input("x", {1, 3, 1, 2}, {1, 2, 3, 4, 5, 6}).Output("y");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(tester.op().InPlaceInput(), 0);
}

TEST(SqueezeTest, OnlyListedAxes) {
  // [1, 2, 1, 1]: axes 2 and -1 (= 3) go, the leading 1 stays.
  OpTester tester("Squeeze", RegisterSqueeze);
  tester.Input("x", {1, 2, 1, 1}, {7, 8}).Output("y").Args("axis", std::vector<int64_t>{2, -1});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{7, 8}));
}

TEST(SqueezeTest, Int32ToScalar) {
  OpTester tester("Squeeze", RegisterSqueeze);
  tester.IntWeight("x", {1, 1}, {5}).Output("y", DT_INT32);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{}));
  EXPECT_EQ(tester.OutputInts("y"), (std::vector<int32_t>{5}));
}

TEST(SqueezeTest, RegistersFloatAndInt32) {
  OpRegistry registry;
  ASSERT_TRUE(RegisterSqueeze(&registry).ok());
  EXPECT_TRUE(registry.Has("Squeeze", DeviceType::CPU, DT_FLOAT));
  EXPECT_TRUE(registry.Has("Squeeze", DeviceType::CPU, DT_INT32));
}

TEST(SqueezeTest, AliasedOutputIsLeftAlone) {
  // When the planner gives the output the input's bytes, Run must not copy
  // them onto themselves (memcpy with overlap is undefined; ASan reports it).
  OpRegistry registry;
  ASSERT_TRUE(RegisterSqueeze(&registry).ok());
  Workspace workspace;
  Tensor* input = workspace.CreateTensor("x", DT_FLOAT);
  input->Reshape({1, 4});
  input->AllocateOwned();
  for (int i = 0; i < 4; ++i) input->mutable_data<float>()[i] = static_cast<float>(i);
  OperatorDef def;
  def.set_type("Squeeze");
  def.set_name("op_under_test");
  def.add_input("x");
  def.add_output("y");
  std::unique_ptr<Operation> op = registry.Create("Squeeze", DeviceType::CPU, DT_FLOAT);
  ASSERT_NE(op, nullptr);
  ASSERT_TRUE(op->Construct(def, &workspace).ok());
  OpContext context;
  ASSERT_TRUE(op->Prepare(&context).ok());
  Tensor* output = op->Output(0);
  EXPECT_EQ(output->shape(), (std::vector<int64_t>{4}));
  output->SetBuffer(input->raw_mutable_data(), input->capacity());
  ASSERT_TRUE(op->Run(&context).ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(output->data<float>()[i], static_cast<float>(i));
}

// Keeps every dimension that is not both listed (or, with no list, any) and 1.
std::vector<int64_t> NaiveSqueezedShape(const std::vector<int64_t>& shape,
                                        const std::vector<int64_t>& axes) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    bool listed = axes.empty();
    for (int64_t a : axes) listed = listed || a == d || a + rank == d;
    if (!(listed && shape[d] == 1)) out.push_back(shape[d]);
  }
  return out;
}

TEST(SqueezeTest, MatchesNaiveSqueeze) {
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> axes;
  };
  const std::vector<Case> cases = {
      {{1, 1, 1, 1}, {}},          // everything goes
      {{1, 1, 1, 1}, {0, 3}},      // some size-1 dims stay
      {{3, 5, 7}, {}},             // nothing to remove
      {{1, 3, 1, 7}, {-2}},        // negative axis
      {{5, 1, 1, 3, 1}, {1, -1}},  // odd sizes, mixed signs
      {{1, 1001, 1, 1}, {2, 3}},   // classifier logits
  };
  uint32_t seed = 60;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("Squeeze", RegisterSqueeze);
    tester.Input("x", c.shape, input).Output("y");
    if (!c.axes.empty()) tester.Args("axis", c.axes);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), NaiveSqueezedShape(c.shape, c.axes));
    EXPECT_EQ(tester.OutputData("y"), input);
  }
}

TEST(SqueezeTest, RejectsBadAxes) {
  struct Bad {
    std::vector<int64_t> axes;
    std::string fragment;
  };
  for (const Bad& bad :
       std::vector<Bad>{{{1}, "dimension 1 of input shape [1,3,1] has size 3, not 1"},
                        {{3}, "axis 3 is out of range for input shape [1,3,1]"},
                        {{-4}, "axis -4 is out of range"},
                        {{0, -3}, "axis lists dimension 0 more than once"}}) {
    OpTester tester("Squeeze", RegisterSqueeze);
    tester.Input("x", {1, 3, 1}, {1, 2, 3}).Output("y").Args("axis", bad.axes);
    ExpectInvalid(&tester, bad.fragment);
  }
}

TEST(SqueezeTest, RejectsOutputTypeMismatch) {
  OpTester tester("Squeeze", RegisterSqueeze);
  tester.IntWeight("x", {1, 2}, {1, 2}).Output("y");
  ExpectInvalid(&tester, "output 'y' is declared float32 but this kernel writes int32");
}

TEST(SqueezeTest, RejectsWrongArity) {
  OpTester tester("Squeeze", RegisterSqueeze);
  tester.Input("x", {1, 2}, {1, 2}).IntWeight("axes", {1}, {0}).Output("y");
  ExpectInvalid(&tester, "needs one input and one output, got 2 inputs");
}

}  // namespace
}  // namespace ops
}  // namespace mace
