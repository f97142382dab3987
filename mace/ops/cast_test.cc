#include "mace/ops/ref/cast.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
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
using testing::RandomFloats;

std::vector<float> RunCast(const std::string& to, const std::vector<int64_t>& shape,
                           const std::vector<float>& input, int saturate = -1) {
  OpTester tester("Cast", RegisterCast);
  tester.Input("x", shape, input).Output("y").Arg("to", to);
  if (saturate >= 0) tester.Arg("saturate", saturate);
  const MaceStatus status = tester.Run();
  EXPECT_TRUE(status.ok()) << status.information();
  if (!status.ok()) return {};
  EXPECT_EQ(tester.OutputShape("y"), shape);
  return tester.OutputData("y");
}

// Equal as bit patterns, except that any NaN matches any NaN.
void ExpectSameValues(const std::vector<float>& got, const std::vector<float>& want,
                      const std::vector<float>& input) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const float x = i < input.size() ? input[i] : 0.f;
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i << " input " << x;
      continue;
    }
    EXPECT_EQ(got[i], want[i]) << "at " << i << " input " << x;
    EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "at " << i << " input " << x;
  }
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(CastTest, HandComputedValues) {
  // bfloat16 keeps 8 significant bits: 1 + 2^-8 is a tie and goes to the
  // even 1; 1 + 3 * 2^-8 is a tie and goes to the even 1 + 2^-6.
  ExpectSameValues(RunCast("BFLOAT16", {4}, {1.00390625f, 1.01171875f, 1.005f, 3.14159f}),
                   {1.f, 1.015625f, 1.0078125f, 3.140625f}, {});
  // Truncated bfloat16 keeps the high 16 bits: toward zero, NaN stays NaN.
  {
    OpTester tester("Cast", RegisterCast);
    const std::vector<float> x = {1.01171875f, -1.0078125f, 3.14159f, kInf, kNaN, -0.f};
    tester.Input("x", {6}, x).Output("y").Arg("to", "BFLOAT16").Arg("truncate", 1);
    ASSERT_TRUE(tester.Run().ok());
    ExpectSameValues(tester.OutputData("y"), {1.0078125f, -1.0078125f, 3.140625f, kInf, kNaN, -0.f},
                     x);
  }
  // float16: 65519 rounds to 65504, 65520 (a tie with 65536) overflows to
  // infinity; 2^-25 is half the smallest subnormal 2^-24 and goes to 0.
  ExpectSameValues(RunCast("FLOAT16", {5}, {65519.f, 65520.f, -70000.f, 0x1p-25f, 0x1.8p-24f}),
                   {65504.f, kInf, -kInf, 0.f, 0x1p-23f}, {});
  // E4M3FN: largest 448, no infinity.
  ExpectSameValues(RunCast("FLOAT8E4M3FN", {6}, {464.f, 470.f, kInf, -1000.f, 0.3f, kNaN}),
                   {448.f, 448.f, 448.f, -448.f, 0.3125f, kNaN}, {});
  ExpectSameValues(RunCast("FLOAT8E4M3FN", {4}, {464.f, 470.f, kInf, -1000.f}, 0),
                   {448.f, kNaN, kNaN, kNaN}, {});
  // E4M3FNUZ: largest 240, no negative zero; smallest subnormal 2^-10.
  ExpectSameValues(RunCast("FLOAT8E4M3FNUZ", {4}, {-0.f, 250.f, -0x1p-12f, 0x1.8p-10f}),
                   {0.f, 240.f, 0.f, 0x1p-9f}, {});
  // E5M2: largest 57344; 61440 is a tie with 65536 and overflows.
  ExpectSameValues(RunCast("FLOAT8E5M2", {3}, {61439.f, 61440.f, -kInf}),
                   {57344.f, 57344.f, -57344.f}, {});
  ExpectSameValues(RunCast("FLOAT8E5M2", {3}, {61439.f, 61440.f, -kInf}, 0),
                   {57344.f, kInf, -kInf}, {});
  ExpectSameValues(RunCast("FLOAT8E5M2FNUZ", {3}, {61440.f, kInf, -0.f}, 0), {kNaN, kNaN, 0.f},
                   {});
  // Integers: toward zero; 8 and 16 bits wrap, 4 bits round and clamp.
  EXPECT_EQ(RunCast("INT8", {6}, {-2.7f, 2.7f, 127.9f, 128.f, 200.f, -129.f}),
            (std::vector<float>{-2, 2, 127, -128, -56, 127}));
  EXPECT_EQ(RunCast("UINT8", {4}, {-1.f, 255.5f, 256.f, 300.f}),
            (std::vector<float>{255, 255, 0, 44}));
  EXPECT_EQ(RunCast("INT16", {2}, {32768.f, -32769.f}), (std::vector<float>{-32768, 32767}));
  EXPECT_EQ(RunCast("UINT16", {2}, {65536.f, -2.5f}), (std::vector<float>{0, 65534}));
  EXPECT_EQ(RunCast("INT32", {4}, {-3.9f, 3e9f, kNaN, kInf}),
            (std::vector<float>{-3, 2147483647.f, 0, 0}));
  EXPECT_EQ(RunCast("UINT8", {2}, {-kInf, kNaN}), (std::vector<float>{0, 0}));
  EXPECT_EQ(RunCast("UINT32", {2}, {-3.9f, 7.5f}), (std::vector<float>{0, 7}));
  EXPECT_EQ(RunCast("INT64", {2}, {-1e20f, 1.5f}), (std::vector<float>{-9.223372e18f, 1}));
  EXPECT_EQ(RunCast("INT4", {6}, {-9.f, -8.5f, 2.5f, 3.5f, 7.4f, 20.f}),
            (std::vector<float>{-8, -8, 2, 4, 7, 7}));
  EXPECT_EQ(RunCast("UINT4", {4}, {-3.f, 0.5f, 1.5f, 16.f}), (std::vector<float>{0, 0, 2, 15}));
  EXPECT_EQ(RunCast("BOOL", {4}, {0.f, -0.f, 0.1f, kNaN}), (std::vector<float>{0, 0, 1, 1}));
  ExpectSameValues(RunCast("FLOAT32", {2}, {1.2345678f, -kInf}), {1.2345678f, -kInf}, {});
  ExpectSameValues(RunCast("DOUBLE", {1}, {kNaN}), {kNaN}, {});
}

// ---- a table-driven reference, independent of ref/cast.cc ------------------------
// A format by its bit layout: every code is decoded from its bits, and a
// value is rounded by searching the sorted codes for the nearest, ties to
// the even code.
struct Layout {
  const char* name;
  int exponent_bits, mantissa_bits, bias;
  bool ieee_specials;    // all-ones exponent: infinity and NaN
  bool e4m3fn_special;   // only S.1111.111 is NaN
  bool fnuz;             // 0x80 is NaN; no infinity, no negative zero
  bool saturates;
};

const Layout kLayouts[] = {
    {"FLOAT16", 5, 10, 15, true, false, false, false},
    {"BFLOAT16", 8, 7, 127, true, false, false, false},
    {"FLOAT8E4M3FN", 4, 3, 7, false, true, false, true},
    {"FLOAT8E4M3FNUZ", 4, 3, 8, false, false, true, true},
    {"FLOAT8E5M2", 5, 2, 15, true, false, false, true},
    {"FLOAT8E5M2FNUZ", 5, 2, 16, false, false, true, true},
};

// The non-negative finite values of the layout, ascending, with their codes.
std::vector<std::pair<double, uint32_t>> PositiveValues(const Layout& l) {
  std::vector<std::pair<double, uint32_t>> values;
  const uint32_t max_exponent = (1u << l.exponent_bits) - 1;
  const uint32_t mantissa_count = 1u << l.mantissa_bits;
  for (uint32_t e = 0; e <= max_exponent; ++e) {
    for (uint32_t m = 0; m < mantissa_count; ++m) {
      if (l.ieee_specials && e == max_exponent) continue;
      if (l.e4m3fn_special && e == max_exponent && m == mantissa_count - 1) continue;
      const double fraction = static_cast<double>(m) / mantissa_count;
      const double value = e == 0 ? std::ldexp(fraction, 1 - l.bias)
                                  : std::ldexp(1 + fraction, static_cast<int>(e) - l.bias);
      values.push_back({value, (e << l.mantissa_bits) | m});
    }
  }
  return values;
}

float NaiveRound(const Layout& l, const std::vector<std::pair<double, uint32_t>>& values,
                 bool saturate, float x) {
  if (std::isnan(x)) return kNaN;
  const double a = std::fabs(static_cast<double>(x));
  const double largest = values.back().first;
  // One step past the largest value, where the next code would sit.
  const double step = largest - values[values.size() - 2].first;
  const uint32_t next_code = values.back().second + 1;
  bool overflow = std::isinf(a);
  double best = 0;
  if (!overflow) {
    const double past = largest + step;
    double best_distance = std::numeric_limits<double>::infinity();
    for (const auto& [value, code] : values) {
      const double d = std::fabs(value - a);
      if (d < best_distance || (d == best_distance && code % 2 == 0)) {
        best_distance = d, best = value;
      }
    }
    const double d = past - a;
    overflow = d < best_distance || (d == best_distance && next_code % 2 == 0);
  }
  const double sign = std::signbit(x) ? -1 : 1;
  if (overflow) {
    if (l.saturates && saturate) return static_cast<float>(sign * largest);
    if (l.ieee_specials) return static_cast<float>(sign * INFINITY);
    return kNaN;
  }
  if (best == 0 && l.fnuz) return 0.f;
  return static_cast<float>(sign * best);
}

TEST(CastTest, FloatTypesMatchATableOfEveryCode) {
  uint32_t seed = 900;
  for (const Layout& layout : kLayouts) {
    const auto values = PositiveValues(layout);
    // Every value (every 97th of the 16-bit types), every midpoint (the ties) and the points just beside
    // them, both signs, the range's ends and random values across it.
    std::vector<float> input;
    const bool wide = layout.exponent_bits == 8;
    const size_t stride = values.size() > 4096 ? 97 : 1;
    for (size_t i = 0; i + 1 < values.size(); i += stride) {
      const double mid = (values[i].first + values[i + 1].first) / 2;
      for (double v : {values[i].first, mid}) {
        const float f = static_cast<float>(v);  // exact: all have 12 bits or fewer
        input.push_back(f);
        input.push_back(-f);
        input.push_back(std::nextafter(f, 0.f));
        input.push_back(std::nextafter(f, kInf));
      }
    }
    const double largest = values.back().first;
    const double step = largest - values[values.size() - 2].first;
    for (double v : {largest + step / 2, largest + step, largest * 4}) {
      if (!wide || v < 3.4e38) input.push_back(static_cast<float>(v));
    }
    for (float v : {kInf, -kInf, kNaN, 0.f, -0.f}) input.push_back(v);
    for (float f : RandomFloats(500, seed++, -static_cast<float>(std::min(largest, 1e6)),
                                static_cast<float>(std::min(largest, 1e6)))) {
      input.push_back(f);
      input.push_back(f * 1e-3f);
    }
    for (int saturate : {1, 0}) {
      SCOPED_TRACE(std::string(layout.name) + " saturate " + std::to_string(saturate));
      std::vector<float> want(input.size());
      for (size_t i = 0; i < input.size(); ++i) {
        want[i] = NaiveRound(layout, values, saturate == 1, input[i]);
      }
      ExpectSameValues(RunCast(layout.name, {static_cast<int64_t>(input.size())}, input, saturate),
                       want, input);
    }
  }
}

TEST(CastTest, IntegerTypesMatchNaiveConversion) {
  struct Int {
    const char* name;
    int64_t low, high;
    bool wraps;
  };
  const Int kInts[] = {{"INT8", -128, 127, true},
                       {"UINT8", 0, 255, true},
                       {"INT16", -32768, 32767, true},
                       {"UINT16", 0, 65535, true},
                       {"INT32", INT32_MIN, INT32_MAX, false},
                       {"UINT32", 0, UINT32_MAX, false}};
  const std::vector<std::vector<int64_t>> shapes = {{1}, {7}, {3, 5, 2}};
  uint32_t seed = 1200;
  for (const Int& type : kInts) {
    for (const auto& shape : shapes) {
      SCOPED_TRACE(std::string(type.name) + " " + ShapeToString(shape));
      const std::vector<float> input = RandomFloats(NumElements(shape), seed++, -70000.f, 70000.f);
      std::vector<float> want(input.size());
      for (size_t i = 0; i < input.size(); ++i) {
        // The integer part of |x|, signed back, then wrapped or clamped.
        const int64_t whole = static_cast<int64_t>(std::fabs(input[i]));
        int64_t v = input[i] < 0 ? -whole : whole;
        const int64_t span = type.high - type.low + 1;
        if (type.wraps) {
          v = ((v - type.low) % span + span) % span + type.low;
        } else {
          v = std::min(std::max(v, type.low), type.high);
        }
        want[i] = static_cast<float>(v);
      }
      EXPECT_EQ(RunCast(type.name, shape, input), want);
    }
  }
}

TEST(CastTest, ScalarsAndEmptyTensors) {
  EXPECT_EQ(RunCast("INT8", {}, {-300.f}), (std::vector<float>{-44}));
  EXPECT_TRUE(RunCast("BFLOAT16", {2, 0, 4}, {}).empty());
  // The other dimensions of an empty tensor still obey the element bound.
  OpTester huge("Cast", RegisterCast);
  huge.Input("x", {0, int64_t{1} << 20, int64_t{1} << 20}, {}).Output("y").Arg("to", "INT8");
  EXPECT_EQ(huge.Run().code(), MaceStatus::MACE_INVALID_ARGS);
}

TEST(CastTest, KernelRunsInPlace) {
  ref::CastParams params;
  params.to = ref::CastType::FLOAT8E4M3FN;
  params.count = 33;
  const std::vector<float> input = RandomFloats(33, 21, -500.f, 500.f);
  std::vector<float> separate(33);
  ref::Cast(params, input.data(), separate.data());
  std::vector<float> in_place = input;
  ref::Cast(params, in_place.data(), in_place.data());
  EXPECT_EQ(in_place, separate);
}

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find("Cast 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

TEST(CastTest, RejectsBadArgs) {
  OpTester missing("Cast", RegisterCast);
  missing.Input("x", {2}, {1, 2}).Output("y");
  ExpectInvalid(&missing, "to is required");
  OpTester unknown("Cast", RegisterCast);
  unknown.Input("x", {2}, {1, 2}).Output("y").Arg("to", "STRING");
  ExpectInvalid(&unknown, "unknown type 'STRING'");
  OpTester saturate("Cast", RegisterCast);
  saturate.Input("x", {2}, {1, 2}).Output("y").Arg("to", "FLOAT8E5M2").Arg("saturate", 2);
  ExpectInvalid(&saturate, "saturate must be 0 or 1");
  OpTester truncate("Cast", RegisterCast);
  truncate.Input("x", {2}, {1, 2}).Output("y").Arg("to", "FLOAT16").Arg("truncate", 1);
  ExpectInvalid(&truncate, "truncate applies to BFLOAT16 only, not FLOAT16");
  OpTester two("Cast", RegisterCast);
  two.Input("x", {2}, {1, 2}).Input("z", {2}, {1, 2}).Output("y").Arg("to", "INT8");
  ExpectInvalid(&two, "needs one input and one output");
}

}  // namespace
}  // namespace ops
}  // namespace mace
