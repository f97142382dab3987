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

void ExpectInvalid(OpTester* tester, const std::string& op, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find(op + " 'op_under_test'"), std::string::npos)
      << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

std::vector<float> Iota(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(GatherTest, HandComputedGather) {
  // data [[0, 1, 2], [3, 4, 5]]; axis 1, indices [[2, -3]] (-3 is 0):
  // shape [2, 1, 2], rows [2, 0] and [5, 3].
  OpTester tester("Gather", RegisterGather);
  tester.Input("d", {2, 3}, Iota(6)).Input("i", {1, 2}, {2, -3}).Output("y").Arg("axis", 1);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{2, 0, 5, 3}));
}

TEST(GatherTest, Int32Indices) {
  // int32 indices (an ArgMax result) pick rows 1 and 1 of [[0, 1], [2, 3]].
  OpTester tester("Gather", RegisterGather);
  tester.Input("d", {2, 2}, Iota(4)).IntWeight("i", {2}, {1, 1}).Output("y");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{2, 3, 2, 3}));
}

// Rows of an int8 table times their scales; indices of any rank, negative
// ones from the end; and the refusals.
TEST(GatherTest, GatherDequantize) {
  const std::vector<uint8_t> table = {1, 2, 3, 0xFF, 0x80, 0x7F, 0, 10, 0xF6, 5, 5, 5};  // [4, 3]
  const std::vector<float> scales = {0.5f, 0.25f, 2.f, -1.f};
  OpTester tester("GatherDequantize", RegisterGather);
  tester.QuantizedWeight("table", DT_INT8, {4, 3}, table, QuantParams())
      .Input("indices", {2, 2}, {1, -2, 0, 3})
      .Weight("scales", {4}, scales)
      .Output("out");
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("out"), (std::vector<int64_t>{2, 2, 3}));
  testing::ExpectNear(tester.OutputData("out"),
                      {-0.25f, -32.f, 31.75f, 0.f, 20.f, -20.f, 0.5f, 1.f, 1.5f, -5.f, -5.f, -5.f});

  OpTester out_of_range("GatherDequantize", RegisterGather);
  out_of_range.QuantizedWeight("table", DT_INT8, {4, 3}, table, QuantParams())
      .Input("indices", {1}, {4})
      .Weight("scales", {4}, scales)
      .Output("out");
  ExpectInvalid(&out_of_range, "GatherDequantize", "index 4 at position 0 is out of range");
  OpTester bad_scales("GatherDequantize", RegisterGather);
  bad_scales.QuantizedWeight("table", DT_INT8, {4, 3}, table, QuantParams())
      .Input("indices", {1}, {0})
      .Weight("scales", {3}, {1, 1, 1})
      .Output("out");
  ExpectInvalid(&bad_scales, "GatherDequantize", "row scales have shape [3] but need [4]");
  OpTester float_table("GatherDequantize", RegisterGather);
  float_table.Weight("table", {4, 3}, Iota(12))
      .Input("indices", {1}, {0})
      .Weight("scales", {4}, scales)
      .Output("out");
  ExpectInvalid(&float_table, "GatherDequantize", "int8");
  OpTester axis("GatherDequantize", RegisterGather);
  axis.QuantizedWeight("table", DT_INT8, {4, 3}, table, QuantParams())
      .Input("indices", {1}, {0})
      .Weight("scales", {4}, scales)
      .Output("out")
      .Arg("axis", 1);
  ExpectInvalid(&axis, "GatherDequantize", "takes axis 0 only, got 1");
}

TEST(GatherTest, HandComputedElementsAndNd) {
  {
    // ONNX's example: data [[1, 2], [3, 4]], axis 1, indices [[0, 0], [1, 0]]
    // gives [[1, 1], [4, 3]].
    OpTester tester("GatherElements", RegisterGather);
    tester.Input("d", {2, 2}, {1, 2, 3, 4}).Input("i", {2, 2}, {0, 0, 1, 0}).Output("y");
    tester.Arg("axis", 1);
    ASSERT_TRUE(tester.Run().ok());
    EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{1, 1, 4, 3}));
  }
  {
    // data [[[0, 1], [2, 3]], [[4, 5], [6, 7]]], indices [[[0, 1]], [[1, 0]]]
    // address rows [2, 3] and [4, 5].
    OpTester tester("GatherND", RegisterGather);
    tester.Input("d", {2, 2, 2}, Iota(8)).Input("i", {2, 1, 2}, {0, 1, 1, 0}).Output("y");
    ASSERT_TRUE(tester.Run().ok());
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 1, 2}));
    EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{2, 3, 4, 5}));
  }
  {
    // batch_dims 1: batch 0 takes row 1 ([2, 3]), batch 1 row 0 ([4, 5]).
    OpTester tester("GatherND", RegisterGather);
    tester.Input("d", {2, 2, 2}, Iota(8)).Input("i", {2, 1}, {1, 0}).Output("y");
    tester.Arg("batch_dims", 1);
    ASSERT_TRUE(tester.Run().ok());
    EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{2, 3, 4, 5}));
  }
}

TEST(GatherTest, HandComputedScatter) {
  // data [1, 2, 3, 4, 5] (as [1, 5]), indices [1, 1], updates [10, 20].
  const struct {
    const char* reduction;
    std::vector<float> want;
  } cases[] = {
      {"none", {1, 20, 3, 4, 5}}, {"add", {1, 32, 3, 4, 5}}, {"mul", {1, 400, 3, 4, 5}},
      {"max", {1, 20, 3, 4, 5}},  {"min", {1, 2, 3, 4, 5}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.reduction);
    OpTester tester("ScatterElements", RegisterGather);
    tester.Input("d", {1, 5}, {1, 2, 3, 4, 5}).Input("i", {1, 2}, {1, -4});
    tester.Input("u", {1, 2}, {10, 20}).Output("y").Arg("axis", 1).Arg("reduction", c.reduction);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    EXPECT_EQ(tester.OutputData("y"), c.want);
  }
  // ScatterND: rows 2 and 0 of a [3, 2] zero matrix get [1, 2] and [3, 4].
  OpTester tester("ScatterND", RegisterGather);
  tester.Input("d", {3, 2}, std::vector<float>(6, 0.f)).Input("i", {2, 1}, {2, 0});
  tester.Input("u", {2, 2}, {1, 2, 3, 4}).Output("y");
  ASSERT_TRUE(tester.Run().ok());
  EXPECT_EQ(tester.OutputData("y"), (std::vector<float>{3, 4, 0, 0, 1, 2}));
}

// Row-major coordinates of flat index i in shape.
std::vector<int64_t> Coords(int64_t i, const std::vector<int64_t>& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
  return c;
}

int64_t Flat(const std::vector<int64_t>& c, const std::vector<int64_t>& shape) {
  int64_t f = 0;
  for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + c[d];
  return f;
}

std::vector<float> RandomIndices(int64_t count, int64_t bound, uint32_t seed) {
  std::vector<float> v = RandomFloats(count, seed, 0.f, 1.f);
  // Both signs: [-bound, bound).
  for (float& x : v) x = static_cast<float>(static_cast<int64_t>(x * 2 * bound * 0.999f) - bound);
  return v;
}

TEST(GatherTest, MatchesNaiveGather) {
  const struct {
    std::vector<int64_t> data, indices;
    int axis;
  } cases[] = {{{1}, {1}, 0},
               {{5}, {3}, 0},
               {{5, 4, 3, 2}, {3}, 1},
               {{3, 3}, {1, 2}, -1},
               {{2, 3, 4}, {2, 2, 2}, 2},
               {{7, 1}, {9}, 0}};
  uint32_t seed = 5100;
  for (const auto& c : cases) {
    const int rank = static_cast<int>(c.data.size());
    const int axis = c.axis < 0 ? c.axis + rank : c.axis;
    const std::vector<float> data = RandomFloats(NumElements(c.data), seed++);
    const std::vector<float> idx = RandomIndices(NumElements(c.indices), c.data[axis], seed++);
    OpTester tester("Gather", RegisterGather);
    tester.Input("d", c.data, data).Input("i", c.indices, idx).Output("y").Arg("axis", c.axis);
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    const std::vector<int64_t> out_shape = tester.OutputShape("y");
    const std::vector<float> got = tester.OutputData("y");
    const int q = static_cast<int>(c.indices.size());
    for (int64_t i = 0; i < static_cast<int64_t>(got.size()); ++i) {
      const std::vector<int64_t> oc = Coords(i, out_shape);
      std::vector<int64_t> ic(oc.begin() + axis, oc.begin() + axis + q);
      int64_t index = static_cast<int64_t>(idx[Flat(ic, c.indices)]);
      if (index < 0) index += c.data[axis];
      std::vector<int64_t> dc(oc.begin(), oc.begin() + axis);
      dc.push_back(index);
      dc.insert(dc.end(), oc.begin() + axis + q, oc.end());
      ASSERT_EQ(got[i], data[Flat(dc, c.data)]) << "element " << i;
    }
  }
}

TEST(GatherTest, MatchesNaiveElements) {
  const struct {
    std::vector<int64_t> data, indices;
    int axis;
  } cases[] = {{{1}, {1}, 0}, {{3, 3}, {2, 3}, 0}, {{2, 3, 4}, {2, 3, 6}, 2}, {{4, 5}, {3, 2}, 1}};
  uint32_t seed = 5200;
  for (const auto& c : cases) {
    const std::vector<float> data = RandomFloats(NumElements(c.data), seed++);
    const std::vector<float> idx = RandomIndices(NumElements(c.indices), c.data[c.axis], seed++);
    const std::vector<float> updates = RandomFloats(NumElements(c.indices), seed++);
    OpTester gather("GatherElements", RegisterGather);
    gather.Input("d", c.data, data).Input("i", c.indices, idx).Output("y").Arg("axis", c.axis);
    ASSERT_TRUE(gather.Run().ok());
    OpTester scatter("ScatterElements", RegisterGather);
    scatter.Input("d", c.data, data).Input("i", c.indices, idx).Input("u", c.indices, updates);
    scatter.Output("y").Arg("axis", c.axis).Arg("reduction", "add");
    ASSERT_TRUE(scatter.Run().ok());
    const std::vector<float> got = gather.OutputData("y");
    std::vector<float> want_scatter = data;
    for (int64_t i = 0; i < NumElements(c.indices); ++i) {
      std::vector<int64_t> dc = Coords(i, c.indices);
      int64_t index = static_cast<int64_t>(idx[i]);
      dc[c.axis] = index < 0 ? index + c.data[c.axis] : index;
      ASSERT_EQ(got[i], data[Flat(dc, c.data)]) << "element " << i;
      want_scatter[Flat(dc, c.data)] += updates[i];
    }
    testing::ExpectNear(scatter.OutputData("y"), want_scatter, 1e-6f, 1e-6f);
  }
}

TEST(GatherTest, RejectsBadInput) {
  {
    OpTester tester("Gather", RegisterGather);
    tester.Input("d", {3}, Iota(3)).Input("i", {2}, {0, 3}).Output("y");
    ExpectInvalid(&tester, "Gather", "index 3 at position 1 is out of range [-3, 3)");
  }
  {
    OpTester tester("Gather", RegisterGather);
    tester.Input("d", {3}, Iota(3)).Input("i", {1}, {0.5f}).Output("y");
    ExpectInvalid(&tester, "Gather", "is not a whole number");
  }
  {
    OpTester tester("Gather", RegisterGather);
    tester.Input("d", {3}, Iota(3)).Input("i", {1}, {0}).Output("y").Arg("axis", 1);
    ExpectInvalid(&tester, "Gather", "axis 1 is out of range for data shape [3]");
  }
  {
    OpTester tester("GatherElements", RegisterGather);
    tester.Input("d", {3, 2}, Iota(6)).Input("i", {3}, {0, 0, 0}).Output("y");
    ExpectInvalid(&tester, "GatherElements", "need the rank of data");
  }
  {
    OpTester tester("GatherND", RegisterGather);
    tester.Input("d", {3, 2}, Iota(6)).Input("i", {1, 3}, {0, 0, 0}).Output("y");
    ExpectInvalid(&tester, "GatherND", "the last dimension of indices [1,3] must be 1 to 2");
  }
  {
    OpTester tester("ScatterND", RegisterGather);
    tester.Input("d", {3, 2}, Iota(6)).Input("i", {1, 1}, {0}).Input("u", {2}, {1, 2});
    tester.Output("y");
    ExpectInvalid(&tester, "ScatterND", "updates have shape [2] but indices [1,1]");
  }
  {
    OpTester tester("ScatterElements", RegisterGather);
    tester.Input("d", {2}, Iota(2)).Input("i", {1}, {0}).Input("u", {1}, {1}).Output("y");
    tester.Arg("reduction", "avg");
    ExpectInvalid(&tester, "ScatterElements", "unknown reduction 'avg'");
  }
}

TEST(GatherTest, EmptyIndicesGiveAnEmptyOutput) {
  OpTester tester("Gather", RegisterGather);
  tester.Input("d", {2, 3}, Iota(6)).Input("i", {0}, {}).Output("y").Arg("axis", 0);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{0, 3}));
}

}  // namespace
}  // namespace ops
}  // namespace mace
