#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::OpTester;

// Values over the whole int32 range, from a fixed seed.
std::vector<int32_t> RandomInts(size_t count, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<int32_t> dist(INT32_MIN, INT32_MAX);
  std::vector<int32_t> values(count);
  for (int32_t& v : values) v = dist(engine);
  return values;
}

int32_t Expected(const std::string& type, int32_t a, int32_t b) {
  if (type == "and") return a & b;
  if (type == "or") return a | b;
  if (type == "xor") return a ^ b;
  return ~a;
}

TEST(BitwiseTest, BroadcastsOverTheWholeInt32Range) {
  // a [2, 3, 4] against b [3, 1]: b[j] pairs with every a[i, j, k].
  const std::vector<int32_t> a = RandomInts(24, 7), b = RandomInts(3, 8);
  for (const std::string type : {"and", "or", "xor"}) {
    SCOPED_TRACE(type);
    OpTester tester("Bitwise", RegisterBitwise);
    tester.KernelType(DT_INT32)
        .IntWeight("a", {2, 3, 4}, a)
        .IntWeight("b", {3, 1}, b)
        .Output("y", DT_INT32)
        .Arg("type", type);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 3, 4}));
    const std::vector<int32_t> got = tester.OutputInts("y");
    ASSERT_EQ(got.size(), 24u);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        for (int k = 0; k < 4; ++k) {
          const int n = (i * 3 + j) * 4 + k;
          EXPECT_EQ(got[n], Expected(type, a[n], b[j])) << "at " << n;
        }
      }
    }
  }
}

TEST(BitwiseTest, NotOfTheExtremes) {
  OpTester tester("Bitwise", RegisterBitwise);
  tester.KernelType(DT_INT32)
      .IntWeight("a", {4}, {INT32_MIN, -1, 0, INT32_MAX})
      .Output("y", DT_INT32)
      .Arg("type", "not");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputInts("y"), (std::vector<int32_t>{INT32_MAX, 0, -1, INT32_MIN}));
}

TEST(BitwiseTest, RefusesBadOps) {
  OpTester unknown("Bitwise", RegisterBitwise);
  unknown.KernelType(DT_INT32).IntWeight("a", {1}, {1}).Output("y", DT_INT32).Arg("type", "nand");
  EXPECT_NE(unknown.Run().information().find("type"), std::string::npos);

  OpTester one_input("Bitwise", RegisterBitwise);
  one_input.KernelType(DT_INT32).IntWeight("a", {1}, {1}).Output("y", DT_INT32).Arg("type", "and");
  EXPECT_NE(one_input.Run().information().find("needs 2 input(s)"), std::string::npos);

  OpTester floats("Bitwise", RegisterBitwise);
  floats.KernelType(DT_INT32)
      .Input("a", {2}, {1, 2})
      .IntWeight("b", {2}, {1, 2})
      .Output("y", DT_INT32)
      .Arg("type", "or");
  const MaceStatus float_status = floats.Run();
  EXPECT_EQ(float_status.code(), MaceStatus::MACE_INVALID_ARGS) << float_status.information();

  OpTester shapes("Bitwise", RegisterBitwise);
  shapes.KernelType(DT_INT32)
      .IntWeight("a", {2}, {1, 2})
      .IntWeight("b", {3}, {1, 2, 3})
      .Output("y", DT_INT32)
      .Arg("type", "xor");
  EXPECT_NE(shapes.Run().information().find("do not broadcast"), std::string::npos);
}

}  // namespace
}  // namespace ops
}  // namespace mace
