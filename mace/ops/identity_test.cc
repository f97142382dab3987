#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::OpTester;

TEST(IdentityTest, CopiesInput) {
  OpTester tester("Identity", RegisterIdentity);
  tester.Input("x", {1, 2, 1, 3}, {1, -2, 3, -4, 5, -6}).Output("y");
  ASSERT_TRUE(tester.Run().ok());
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{1, 2, 1, 3}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, -2, 3, -4, 5, -6}));
}

TEST(IdentityTest, MissingInputIsAnError) {
  OpTester tester("Identity", RegisterIdentity);
  tester.EmptyInput().Output("y");
  MaceStatus status = tester.Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
  EXPECT_NE(status.information().find("Identity 'op_under_test'"), std::string::npos);
}

}  // namespace
}  // namespace ops
}  // namespace mace
