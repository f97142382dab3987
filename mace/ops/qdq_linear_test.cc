// QuantizeLinear and DequantizeLinear against hand-computed values and a
// naive per-element reference that finds each element's scale from its
// multi-index.
#include "mace/ops/qdq_linear.h"

#include <cmath>
#include <cstdint>
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

struct Outcome {
  MaceStatus status;
  std::vector<float> y;
};

Outcome RunOp(const std::string& type, const std::vector<int64_t>& shape,
              const std::vector<float>& x, const std::vector<int64_t>& scale_shape,
              const std::vector<float>& scale, const std::vector<float>& zero_point,
              int64_t axis = 1, int64_t block = 0, const std::string& to = "", int saturate = -1,
              int dequantize = -1) {
  OpTester t(type, RegisterQdqLinear);
  t.Input("x", shape, x).Input("scale", scale_shape, scale);
  if (!zero_point.empty()) t.Input("zp", scale_shape, zero_point);
  t.Output("y").Arg("axis", axis).Arg("block_size", block);
  if (!to.empty()) t.Arg("to", to);
  if (saturate >= 0) t.Arg("saturate", saturate);
  if (dequantize >= 0) t.Arg("dequantize", dequantize);
  Outcome r;
  r.status = t.Run();
  if (r.status.ok()) r.y = t.OutputData("y");
  return r;
}

TEST(QdqLinearTest, QuantizeRoundsHalfToEvenAndSaturates) {
  // x / 2: 0.5, 1.5, 2.5, -0.5, -1.5, 300, -7 -> 0, 2, 2, -0, -2, 300, -7;
  // plus zero point 3 and clamped to uint8: 3, 5, 5, 3, 1, 255, 0.
  const std::vector<float> x = {1.f, 3.f, 5.f, -1.f, -3.f, 600.f, -14.f};
  Outcome r = RunOp("QuantizeLinear", {7}, x, {1}, {2.f}, {3.f}, 0, 0, "UINT8");
  ASSERT_TRUE(r.status.ok()) << r.status.information();
  EXPECT_EQ(r.y, (std::vector<float>{3, 5, 5, 3, 1, 255, 0}));
  r = RunOp("QuantizeLinear", {7}, x, {1}, {2.f}, {}, 0, 0, "INT4");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.y, (std::vector<float>{0, 2, 2, 0, -2, 7, -7}));
  r = RunOp("QuantizeLinear", {7}, x, {1}, {0.01f}, {}, 0, 0, "INT16");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.y, (std::vector<float>{100, 300, 500, -100, -300, 32767, -1400}));
  // float8 E4M3FN: 1000 saturates to 448, or is NaN without saturate.
  r = RunOp("QuantizeLinear", {2}, {1000.f, 0.3f}, {1}, {1.f}, {}, 0, 0, "FLOAT8E4M3FN");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.y, (std::vector<float>{448.f, 0.3125f}));
  r = RunOp("QuantizeLinear", {2}, {1000.f, 0.3f}, {1}, {1.f}, {}, 0, 0, "FLOAT8E4M3FN", 0);
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(std::isnan(r.y[0]));
  // NaN quantizes to the zero point.
  r = RunOp("QuantizeLinear", {1}, {std::nanf("")}, {1}, {1.f}, {7.f}, 0, 0, "INT8");
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.y, (std::vector<float>{7.f}));
}

TEST(QdqLinearTest, DequantizeHandComputed) {
  Outcome r = RunOp("DequantizeLinear", {4}, {0, 3, 128, 255}, {1}, {0.5f}, {128});
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.y, (std::vector<float>{-64.f, -62.5f, 0.f, 63.5f}));
  // A rank-0 scale with a [1] zero point is one value each too.
  OpTester t("DequantizeLinear", RegisterQdqLinear);
  t.Input("x", {2}, {1, 9}).Input("scale", {}, {2.f}).Input("zp", {1}, {1.f}).Output("y");
  const MaceStatus status = t.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(t.OutputData("y"), (std::vector<float>{0.f, 16.f}));
}

// The scale index of element `index` of x of `shape`, found from its
// multi-index.
int64_t NaiveScaleIndex(const std::vector<int64_t>& shape, int64_t axis, int64_t block,
                        int64_t scale_count, int64_t index) {
  std::vector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    at[d] = index % shape[d];
    index /= shape[d];
  }
  if (scale_count == 1) return 0;
  if (block == 0) return at[axis];
  at[axis] /= block;
  std::vector<int64_t> scale_shape = shape;
  scale_shape[axis] = (shape[axis] + block - 1) / block;
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * scale_shape[d] + at[d];
  return flat;
}

TEST(QdqLinearTest, PerAxisAndBlockedMatchNaive) {
  const std::vector<int64_t> shape = {2, 5, 3};
  const std::vector<float> x = RandomFloats(NumElements(shape), 7, -20.f, 20.f);
  struct Grouping {
    int64_t axis, block;
    std::vector<int64_t> scale_shape;
  };
  for (const Grouping& g : {Grouping{1, 0, {5}}, Grouping{-1, 0, {3}}, Grouping{1, 2, {2, 3, 3}},
                            Grouping{2, 3, {2, 5, 1}}, Grouping{0, 0, {1}}}) {
    SCOPED_TRACE(std::to_string(g.axis) + " " + std::to_string(g.block));
    const int64_t count = NumElements(g.scale_shape);
    std::vector<float> scale = RandomFloats(count, 11, 0.05f, 0.5f);
    std::vector<float> zp(count);
    for (int64_t i = 0; i < count; ++i) zp[i] = static_cast<float>(i % 7 - 3);
    const int64_t axis = g.axis < 0 ? g.axis + 3 : g.axis;
    Outcome q = RunOp("QuantizeLinear", shape, x, g.scale_shape, scale, zp, g.axis, g.block, "INT8");
    ASSERT_TRUE(q.status.ok()) << q.status.information();
    Outcome dq = RunOp("DequantizeLinear", shape, q.y, g.scale_shape, scale, zp, g.axis, g.block);
    ASSERT_TRUE(dq.status.ok()) << dq.status.information();
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t s = NaiveScaleIndex(shape, axis, g.block, count, static_cast<int64_t>(i));
      const float want_q = std::fmin(
          127.f, std::fmax(-128.f, std::nearbyint(x[i] / scale[s]) + zp[s]));
      ASSERT_EQ(q.y[i], want_q) << "at " << i;
      ASSERT_FLOAT_EQ(dq.y[i], (want_q - zp[s]) * scale[s]) << "at " << i;
    }
  }
}

TEST(QdqLinearTest, RejectsBadInputs) {
  const std::vector<float> x(6, 1.f);
  EXPECT_FALSE(RunOp("QuantizeLinear", {2, 3}, x, {2}, {1, 1}, {}).status.ok());  // axis 1 is 3
  EXPECT_FALSE(RunOp("QuantizeLinear", {2, 3}, x, {2, 1}, {1, 1}, {}, 1, 2).status.ok());
  EXPECT_TRUE(RunOp("QuantizeLinear", {2, 3}, x, {2, 2}, {1, 1, 1, 1}, {}, 1, 2).status.ok());
  EXPECT_FALSE(RunOp("QuantizeLinear", {2, 3}, x, {3}, {1, 1, 1}, {}, 2).status.ok());
  // The axis does not matter to a per-tensor scale.
  EXPECT_TRUE(RunOp("QuantizeLinear", {2, 3}, x, {1}, {1}, {}, 2).status.ok());
  EXPECT_FALSE(RunOp("QuantizeLinear", {2, 3}, x, {1}, {1}, {}, 1, -1).status.ok());
  EXPECT_FALSE(RunOp("QuantizeLinear", {2, 3}, x, {1}, {1}, {}, 1, 0, "INT32").status.ok());
  EXPECT_FALSE(RunOp("QuantizeLinear", {2, 3}, x, {1}, {1}, {1}, 1, 0, "FLOAT8E5M2").status.ok());
  EXPECT_FALSE(RunOp("DequantizeLinear", {2, 3}, x, {3}, {1, 1, 1}, {}, 0).status.ok());
  EXPECT_FALSE(RunOp("QuantizeLinear", {2, 3}, x, {1}, {1}, {}, 1, 0, "INT8", -1, 2).status.ok());
  EXPECT_FALSE(RunOp("DequantizeLinear", {2, 3}, x, {1}, {1}, {}, 1, 0, "", -1, 1).status.ok());
}

// QuantizeLinear with dequantize is DequantizeLinear of its integers, for
// the groupings and types the CPU kernel's fast path leaves to the
// reference (blocked scales, float8) and one it takes.
TEST(QdqLinearTest, DequantizeFlagIsTheFakeQuantization) {
  const std::vector<int64_t> shape = {2, 6, 3};
  const std::vector<float> x = RandomFloats(NumElements(shape), 9, -40.f, 40.f);
  struct Form {
    std::vector<int64_t> scale_shape;
    int64_t block;
    std::string to;
  };
  for (const Form& f :
       {Form{{2, 2, 3}, 3, "INT8"}, Form{{1}, 0, "FLOAT8E4M3FN"}, Form{{6}, 0, "UINT8"}}) {
    SCOPED_TRACE(f.to + " block " + std::to_string(f.block));
    const int64_t count = NumElements(f.scale_shape);
    const std::vector<float> scale = RandomFloats(count, 13, 0.1f, 0.6f);
    std::vector<float> zp(count, 0.f);
    if (f.to != "FLOAT8E4M3FN") {
      for (int64_t i = 0; i < count; ++i) zp[i] = static_cast<float>(i % 5);
    }
    Outcome q = RunOp("QuantizeLinear", shape, x, f.scale_shape, scale, zp, 1, f.block, f.to);
    ASSERT_TRUE(q.status.ok()) << q.status.information();
    Outcome dq = RunOp("DequantizeLinear", shape, q.y, f.scale_shape, scale, zp, 1, f.block);
    ASSERT_TRUE(dq.status.ok()) << dq.status.information();
    Outcome fake =
        RunOp("QuantizeLinear", shape, x, f.scale_shape, scale, zp, 1, f.block, f.to, -1, 1);
    ASSERT_TRUE(fake.status.ok()) << fake.status.information();
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(fake.y[i], dq.y[i]) << "at " << i;
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
