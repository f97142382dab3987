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

// Unsqueeze: the listed output positions become size-1 dimensions, the
// input's dimensions fill the others in order.
std::vector<int64_t> NaiveUnsqueezedShape(const std::vector<int64_t>& shape,
                                          const std::vector<int64_t>& axes) {
  const int64_t rank = static_cast<int64_t>(shape.size() + axes.size());
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    bool added = false;
    for (int64_t a : axes) added = added || (a < 0 ? a + rank : a) == d;
    out.push_back(added ? 1 : shape[next++]);
  }
  return out;
}

TEST(SqueezeTest, UnsqueezeMatchesNaiveShape) {
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> axes;
  };
  const std::vector<Case> cases = {
      {{3, 4}, {0}}, {{3, 4}, {-1}}, {{3, 4}, {1, 3}}, {{2}, {0, -1, 1}}, {{2, 3, 4}, {4, 0}}};
  uint32_t seed = 70;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    const Case& c = cases[i];
    const std::vector<float> input = RandomFloats(NumElements(c.shape), seed++);
    OpTester tester("Squeeze", RegisterSqueeze);
    tester.Input("x", c.shape, input)
        .IntWeight("axes", {static_cast<int64_t>(c.axes.size())},
                   std::vector<int32_t>(c.axes.begin(), c.axes.end()))
        .Output("y")
        .Arg("unsqueeze", 1);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), NaiveUnsqueezedShape(c.shape, c.axes));
    EXPECT_EQ(tester.OutputData("y"), input);
  }
}

// Axes computed at run time (float32, as integer model inputs are fed) for
// Squeeze and Unsqueeze: runs whose axes give the planned shape copy the
// data; axes that give another shape are refused.
TEST(SqueezeTest, ComputedAxes) {
  const std::vector<float> input = RandomFloats(6, 80);
  OpTester squeeze("Squeeze", RegisterSqueeze);
  squeeze.Input("x", {1, 3, 1, 2}, input).Input("axes", {1}, {0}).Output("y").PlannedShape({3, 1, 2});
  ASSERT_TRUE(squeeze.Run().ok());
  EXPECT_EQ(squeeze.OutputData("y"), input);
  ASSERT_TRUE(squeeze.RunAgain("axes", {-4}).ok());
  EXPECT_EQ(squeeze.OutputData("y"), input);
  MaceStatus status = squeeze.RunAgain("axes", {2});
  EXPECT_NE(status.information().find(
                "axes [2] give shape [1,3,2] in this run but the output was planned as [3,1,2]"),
            std::string::npos)
      << status.information();
  status = squeeze.RunAgain("axes", {1});
  EXPECT_NE(status.information().find("dimension 1 of input shape [1,3,1,2] has size 3, not 1"),
            std::string::npos)
      << status.information();
  OpTester unsqueeze("Squeeze", RegisterSqueeze);
  unsqueeze.Input("x", {3, 2}, input)
      .Input("axes", {2}, {0, 3})
      .Output("y")
      .Arg("unsqueeze", 1)
      .PlannedShape({1, 3, 2, 1});
  ASSERT_TRUE(unsqueeze.Run().ok());
  ASSERT_TRUE(unsqueeze.RunAgain("axes", {-1, -4}).ok());
  EXPECT_EQ(unsqueeze.OutputData("y"), input);
  status = unsqueeze.RunAgain("axes", {0, 1});
  EXPECT_NE(status.information().find("give shape [1,1,3,2] in this run"), std::string::npos)
      << status.information();
  status = unsqueeze.RunAgain("axes", {0, 4});
  EXPECT_NE(status.information().find("axis 4 is out of range for output rank 4"),
            std::string::npos)
      << status.information();
  OpTester unplanned("Squeeze", RegisterSqueeze);
  unplanned.Input("x", {3, 2}, input).Input("axes", {1}, {0}).Output("y").Arg("unsqueeze", 1);
  ExpectInvalid(&unplanned, "must give its planned shape (output_shape)");
  OpTester wrong("Squeeze", RegisterSqueeze);
  wrong.Input("x", {3, 2}, input).Input("axes", {1}, {0}).Output("y").PlannedShape({1, 7});
  ExpectInvalid(&wrong, "planned output shape [1,7] does not hold the elements of input shape [3,2]");
  OpTester both("Squeeze", RegisterSqueeze);
  both.Input("x", {3, 1}, {1, 2, 3}).IntWeight("axes", {1}, {1}).Output("y").Args(
      "axis", std::vector<int64_t>{1});
  ExpectInvalid(&both, "either as the axis argument or as input 1, not both");
  OpTester none("Squeeze", RegisterSqueeze);
  none.Input("x", {3, 2}, input).Output("y").Arg("unsqueeze", 1);
  ExpectInvalid(&none, "unsqueeze needs at least one axis");
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
  tester.Input("x", {1, 2}, {1, 2})
      .IntWeight("axes", {1}, {0})
      .IntWeight("more", {1}, {0})
      .Output("y");
  ExpectInvalid(&tester, "needs inputs [input, optional axes] and one output, got 3 inputs");
}

}  // namespace
}  // namespace ops
}  // namespace mace
