#include "mace/ops/ref/logic.h"

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/logic_fast.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::NumElements;
using testing::OpTester;
using testing::RandomFloats;

void ExpectInvalid(OpTester* tester, const std::string& op, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find(op + " 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> RunBinary(const std::string& op, const std::string& type,
                             const std::vector<int64_t>& a_shape, const std::vector<float>& a,
                             const std::vector<int64_t>& b_shape, const std::vector<float>& b,
                             std::vector<int64_t>* out_shape, int fmod = -1) {
  OpTester tester(op, RegisterLogic);
  tester.Input("a", a_shape, a);
  if (!b_shape.empty() || !b.empty()) tester.Input("b", b_shape, b);
  tester.Output("y");
  if (!type.empty()) tester.Arg("type", type);
  if (fmod >= 0) tester.Arg("fmod", fmod);
  const MaceStatus status = tester.Run();
  EXPECT_TRUE(status.ok()) << status.information();
  if (!status.ok()) return {};
  if (out_shape) *out_shape = tester.OutputShape("y");
  return tester.OutputData("y");
}

TEST(LogicTest, HandComputedComparisons) {
  // a = [1, 2, 3], b = [2, 2, 2].
  const std::vector<float> a = {1, 2, 3}, b = {2, 2, 2};
  const struct {
    const char* type;
    std::vector<float> want;
  } cases[] = {
      {"equal", {0, 1, 0}},      {"less", {1, 0, 0}},          {"greater", {0, 0, 1}},
      {"less_equal", {1, 1, 0}}, {"greater_equal", {0, 1, 1}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type);
    EXPECT_EQ(RunBinary("Compare", c.type, {3}, a, {3}, b, nullptr), c.want);
  }
}

TEST(LogicTest, HandComputedLogic) {
  // Any nonzero value is true: x = [0, 0, 2, -1], y = [0, 5, 0, 1].
  const std::vector<float> x = {0, 0, 2, -1}, y = {0, 5, 0, 1};
  EXPECT_EQ(RunBinary("Compare", "and", {4}, x, {4}, y, nullptr), (std::vector<float>{0, 0, 0, 1}));
  EXPECT_EQ(RunBinary("Compare", "or", {4}, x, {4}, y, nullptr), (std::vector<float>{0, 1, 1, 1}));
  EXPECT_EQ(RunBinary("Compare", "xor", {4}, x, {4}, y, nullptr), (std::vector<float>{0, 1, 1, 0}));
  EXPECT_EQ(RunBinary("Compare", "not", {4}, x, {}, {}, nullptr), (std::vector<float>{1, 1, 0, 0}));
}

TEST(LogicTest, NanComparesFalse) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(RunBinary("Compare", "equal", {2}, {nan, 1}, {2}, {nan, 1}, nullptr),
            (std::vector<float>{0, 1}));
  EXPECT_EQ(RunBinary("Compare", "less_equal", {1}, {nan}, {1}, {0}, nullptr),
            (std::vector<float>{0}));
}

TEST(LogicTest, HandComputedMod) {
  // 7 mod 3 = 1, -7 mod 3 = 2, 7 mod -3 = -2, -7 mod -3 = -1 (sign of b);
  // fmod takes the sign of a: 1, -1, 1, -1. 5.5 fmod 2 = 1.5.
  const std::vector<float> a = {7, -7, 7, -7, 6}, b = {3, 3, -3, -3, 3};
  EXPECT_EQ(RunBinary("Mod", "", {5}, a, {5}, b, nullptr, 0),
            (std::vector<float>{1, 2, -2, -1, 0}));
  EXPECT_EQ(RunBinary("Mod", "", {5}, a, {5}, b, nullptr, 1),
            (std::vector<float>{1, -1, 1, -1, 0}));
  EXPECT_EQ(RunBinary("Mod", "", {1}, {5.5f}, {1}, {2}, nullptr, 1), (std::vector<float>{1.5f}));
  const std::vector<float> zero = RunBinary("Mod", "", {1}, {5}, {1}, {0}, nullptr);
  ASSERT_EQ(zero.size(), 1u);
  EXPECT_TRUE(std::isnan(zero[0]));
}

TEST(LogicTest, HandComputedWhere) {
  // condition [[1], [0]] broadcasts over x [2, 2] and the scalar-like y [1].
  OpTester tester("Where", RegisterLogic);
  tester.Input("c", {2, 1}, {1, 0}).Input("x", {2, 2}, {1, 2, 3, 4}).Input("y", {1}, {9});
  tester.Output("z");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("z"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(tester.OutputData("z"), (std::vector<float>{1, 2, 9, 9}));
}

// The value of a row-major tensor of `shape` at the broadcast position of
// output index `index` (in output shape `out`).
float At(const std::vector<float>& data, const std::vector<int64_t>& shape,
         const std::vector<int64_t>& out, int64_t index) {
  std::vector<int64_t> coords(out.size());
  for (size_t d = out.size(); d-- > 0;) {
    coords[d] = index % out[d];
    index /= out[d];
  }
  int64_t offset = 0;
  const size_t pad = out.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d) {
    offset = offset * shape[d] + (shape[d] == 1 ? 0 : coords[pad + d]);
  }
  return data[offset];
}

struct ShapePair {
  std::vector<int64_t> a, b, out;
};

const std::vector<ShapePair> kShapes = {
    {{1}, {1}, {1}},
    {{7}, {1}, {7}},
    {{3, 4, 5}, {5}, {3, 4, 5}},
    {{1, 4, 1, 6}, {3, 1, 5, 6}, {3, 4, 5, 6}},
    {{2, 1, 3}, {4, 1}, {2, 4, 3}},
    {{1}, {2, 3, 1, 2, 2}, {2, 3, 1, 2, 2}},
};

TEST(LogicTest, MatchesNaiveBroadcast) {
  const char* types[] = {"equal",         "less", "greater", "less_equal",
                         "greater_equal", "and",  "or",      "xor"};
  uint32_t seed = 3100;
  for (const ShapePair& s : kShapes) {
    std::vector<float> a = RandomFloats(NumElements(s.a), seed++, -2.f, 2.f);
    std::vector<float> b = RandomFloats(NumElements(s.b), seed++, -2.f, 2.f);
    // Integers in [-2, 2] make equality and zeros (false) common.
    for (float& v : a) v = std::round(v);
    for (float& v : b) v = std::round(v);
    const int64_t count = NumElements(s.out);
    for (const char* type : types) {
      SCOPED_TRACE(type);
      std::vector<int64_t> shape;
      const std::vector<float> got = RunBinary("Compare", type, s.a, a, s.b, b, &shape);
      ASSERT_EQ(shape, s.out);
      const std::string t = type;
      for (int64_t i = 0; i < count; ++i) {
        const float x = At(a, s.a, s.out, i), y = At(b, s.b, s.out, i);
        const bool want = t == "equal"           ? x == y
                          : t == "less"          ? x < y
                          : t == "greater"       ? x > y
                          : t == "less_equal"    ? x <= y
                          : t == "greater_equal" ? x >= y
                          : t == "and"           ? (x != 0 && y != 0)
                          : t == "or"            ? (x != 0 || y != 0)
                                                 : ((x != 0) != (y != 0));
        ASSERT_EQ(got[i], want ? 1.f : 0.f) << "element " << i;
      }
    }
    for (int fmod : {0, 1}) {
      std::vector<float> divisor = b;
      for (float& v : divisor) v = v >= 0 ? v + 1 : v;  // never 0
      std::vector<int64_t> shape;
      const std::vector<float> got = RunBinary("Mod", "", s.a, a, s.b, divisor, &shape, fmod);
      for (int64_t i = 0; i < count; ++i) {
        const double x = At(a, s.a, s.out, i), y = At(divisor, s.b, s.out, i);
        // Integer definitions: truncated or floored division.
        const double q = fmod ? std::trunc(x / y) : std::floor(x / y);
        ASSERT_EQ(got[i], static_cast<float>(x - q * y)) << "element " << i << " fmod " << fmod;
      }
    }
  }
}

TEST(LogicTest, WhereMatchesNaiveBroadcast) {
  uint32_t seed = 3200;
  for (const ShapePair& s : kShapes) {
    std::vector<float> c = RandomFloats(NumElements(s.a), seed++);
    for (float& v : c) v = v > 0 ? 1.f : 0.f;
    const std::vector<float> x = RandomFloats(NumElements(s.b), seed++);
    const std::vector<float> y = RandomFloats(NumElements(s.out), seed++);
    OpTester tester("Where", RegisterLogic);
    tester.Input("c", s.a, c).Input("x", s.b, x).Input("y", s.out, y).Output("z");
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    ASSERT_EQ(tester.OutputShape("z"), s.out);
    const std::vector<float> got = tester.OutputData("z");
    for (int64_t i = 0; i < NumElements(s.out); ++i) {
      const float want = At(c, s.a, s.out, i) != 0 ? At(x, s.b, s.out, i) : y[i];
      ASSERT_EQ(got[i], want) << "element " << i;
    }
  }
}

TEST(LogicTest, FlatKernelsMatchReference) {
  // Operands of the output's shape or single values take the flat loops;
  // any other broadcast is refused by them (the reference runs instead).
  const struct {
    std::vector<std::vector<int64_t>> shapes;
    bool flat;
  } cases[] = {
      {{{3, 4, 5}, {3, 4, 5}, {3, 4, 5}}, true}, {{{3, 4, 5}, {1}, {3, 4, 5}}, true},
      {{{1}, {2, 1, 7}, {1, 1}}, true},          {{{1}, {1}, {1}}, true},
      {{{1, 6}, {6}, {1, 1, 6}}, true},          {{{3, 4, 5}, {5}, {3, 4, 5}}, false},
      {{{2, 1}, {2, 3}, {2, 3}}, false},
  };
  const ref::CompareType types[] = {
      ref::CompareType::EQUAL,      ref::CompareType::LESS,          ref::CompareType::GREATER,
      ref::CompareType::LESS_EQUAL, ref::CompareType::GREATER_EQUAL, ref::CompareType::AND,
      ref::CompareType::OR,         ref::CompareType::XOR,           ref::CompareType::NOT};
  uint32_t seed = 3300;
  for (const auto& c : cases) {
    ref::BroadcastParams binary, ternary;
    ASSERT_TRUE(ref::MakeBroadcast({c.shapes[0], c.shapes[1]}, &binary));
    ASSERT_TRUE(ref::MakeBroadcast(c.shapes, &ternary));
    std::vector<std::vector<float>> data;
    for (const auto& shape : c.shapes) {
      std::vector<float> v = RandomFloats(NumElements(shape), seed++, -2.f, 2.f);
      for (float& x : v) x = std::round(x);
      data.push_back(v);
    }
    const int64_t count = NumElements(binary.shape);
    for (ref::CompareType type : types) {
      const ref::BroadcastParams& p = binary;
      if (type == ref::CompareType::NOT && NumElements(c.shapes[0]) != count) continue;
      ref::BroadcastParams unary_params;
      ASSERT_TRUE(ref::MakeBroadcast({c.shapes[0]}, &unary_params));
      const ref::BroadcastParams& used = type == ref::CompareType::NOT ? unary_params : p;
      const int64_t n = NumElements(used.shape);
      std::vector<float> want(n), got(n, -7.f);
      ref::Compare(type, used, data[0].data(), data[1].data(), want.data());
      const bool flat = CompareFlat(type, used, data[0].data(), data[1].data(), got.data());
      EXPECT_EQ(flat, c.flat || type == ref::CompareType::NOT);
      if (flat) {
        EXPECT_EQ(got, want) << static_cast<int>(type);
      }
    }
    std::vector<float> divisor = data[1];
    for (float& v : divisor) v = v >= 0 ? v + 1 : v;
    for (bool fmod : {false, true}) {
      std::vector<float> want(count), got(count, -7.f);
      ref::Mod(fmod, binary, data[0].data(), divisor.data(), want.data());
      ASSERT_EQ(ModFlat(fmod, binary, data[0].data(), divisor.data(), got.data()), c.flat);
      if (c.flat) {
        EXPECT_EQ(got, want);
      }
    }
    const int64_t n3 = NumElements(ternary.shape);
    std::vector<float> want(n3), got(n3, -7.f);
    ref::Where(ternary, data[0].data(), data[1].data(), data[2].data(), want.data());
    const bool flat3 =
        WhereFlat(ternary, data[0].data(), data[1].data(), data[2].data(), got.data());
    if (flat3) {
      EXPECT_EQ(got, want);
    }
    if (c.flat) {
      EXPECT_TRUE(flat3);
    }
  }
}

TEST(LogicTest, RejectsBadInput) {
  {
    OpTester tester("Compare", RegisterLogic);
    tester.Input("a", {2}, {1, 2}).Input("b", {2}, {1, 2}).Output("y").Arg("type", "near");
    ExpectInvalid(&tester, "Compare", "unknown type 'near'");
  }
  {
    OpTester tester("Compare", RegisterLogic);
    tester.Input("a", {2}, {1, 2}).Input("b", {2}, {1, 2}).Output("y");
    ExpectInvalid(&tester, "Compare", "needs the string argument type");
  }
  {
    OpTester tester("Compare", RegisterLogic);
    tester.Input("a", {2}, {1, 2}).Input("b", {2}, {1, 2}).Output("y").Arg("type", "not");
    ExpectInvalid(&tester, "Compare", "needs 1 input(s)");
  }
  {
    OpTester tester("Compare", RegisterLogic);
    tester.Input("a", {2, 3}, std::vector<float>(6)).Input("b", {2}, {1, 2}).Output("y");
    tester.Arg("type", "less");
    ExpectInvalid(&tester, "Compare", "input shapes [2,3] and [2] do not broadcast");
  }
  {
    OpTester tester("Mod", RegisterLogic);
    tester.Input("a", {2}, {1, 2}).Input("b", {2}, {1, 2}).Output("y").Arg("fmod", 2);
    ExpectInvalid(&tester, "Mod", "fmod must be 0 or 1");
  }
  {
    OpTester tester("Where", RegisterLogic);
    tester.Input("c", {2}, {1, 0}).Input("x", {2}, {1, 2}).Output("y");
    ExpectInvalid(&tester, "Where", "needs 3 input(s)");
  }
  {
    OpTester tester("Where", RegisterLogic);
    tester.IntWeight("c", {2}, {1, 0}).Input("x", {2}, {1, 2}).Input("y", {2}, {1, 2});
    tester.Output("z");
    ExpectInvalid(&tester, "Where", "int32");
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
