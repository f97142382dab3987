// Attention's CPU kernel against the reference kernel (ref/attention.cc):
// one head at the edge sequence lengths and depths, every mask kind (with
// fully masked rows), several heads in every layout with broadcast masks,
// Q, K and V packed in one tensor, on no pool and pools of 2 and 3
// threads; fake-quantized scores and probabilities; and the op's argument
// checks.
#include "mace/ops/ref/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/attention_exp_panels.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::NumElements;
using testing::OpTester;
using testing::RandomFloats;
using testing::TestCpuRuntime;

constexpr float kInf = std::numeric_limits<float>::infinity();

// One case: B, H, Sq, Sk, D, Dv and the layouts of q, k, v and the output.
struct Case {
  int64_t batch, heads, q_len, kv_len, depth, v_depth;
  int64_t layouts[4];
  std::string mask;  // "", "add", "keep_nonzero" or "keep_zero"
  std::vector<int64_t> mask_shape;
  float fill;
};

std::vector<int64_t> Shape(const Case& c, int64_t layout, int64_t rows, int64_t depth) {
  if (layout == 1) return {c.batch, rows, c.heads * depth};
  if (layout == 2) return {c.batch, c.heads, depth, rows};
  return {c.batch, c.heads, rows, depth};
}

ref::AttentionStrides Strides(const Case& c, int64_t layout, int64_t rows, int64_t depth) {
  if (layout == 1) return {rows * c.heads * depth, depth, c.heads * depth, 1};
  if (layout == 2) return {c.heads * depth * rows, depth * rows, 1, rows};
  return {c.heads * rows * depth, rows * depth, depth, 1};
}

// The reference's parameters for `c`, with the op's default scale.
ref::AttentionParams ParamsOf(const Case& c) {
  ref::AttentionParams p;
  p.batch = c.batch;
  p.heads = c.heads;
  p.q_len = c.q_len;
  p.kv_len = c.kv_len;
  p.depth = c.depth;
  p.v_depth = c.v_depth;
  p.q = Strides(c, c.layouts[0], c.q_len, c.depth);
  p.k = Strides(c, c.layouts[1], c.kv_len, c.depth);
  p.v = Strides(c, c.layouts[2], c.kv_len, c.v_depth);
  p.out = Strides(c, c.layouts[3], c.q_len, c.v_depth);
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.depth)));
  p.fill = c.fill;
  if (!c.mask.empty()) {
    p.mask_kind = c.mask == "add"            ? ref::AttentionMask::ADD
                  : c.mask == "keep_nonzero" ? ref::AttentionMask::KEEP_NONZERO
                                             : ref::AttentionMask::KEEP_ZERO;
    const int64_t full[4] = {c.batch, c.heads, c.q_len, c.kv_len};
    int64_t strides[4] = {0, 0, 0, 0}, stride = 1;
    const int offset = 4 - static_cast<int>(c.mask_shape.size());
    for (int i = 3; i >= offset; --i) {
      strides[i] = c.mask_shape[i - offset] == 1 && full[i] != 1 ? 0 : stride;
      stride *= c.mask_shape[i - offset];
    }
    p.mask = {strides[0], strides[1], strides[2], strides[3]};
  }
  return p;
}

// The reference output of `p` on the given data.
std::vector<float> Expected(const ref::AttentionParams& p, const std::vector<float>& q,
                            const std::vector<float>& k, const std::vector<float>& v,
                            const std::vector<float>& mask) {
  std::vector<float> out(p.batch * p.heads * p.q_len * p.v_depth);
  ref::Attention(p, q.data(), k.data(), v.data(), mask.empty() ? nullptr : mask.data(), out.data());
  return out;
}

// The reference output for `c` on the given data.
std::vector<float> Expected(const Case& c, const std::vector<float>& q, const std::vector<float>& k,
                            const std::vector<float>& v, const std::vector<float>& mask) {
  return Expected(ParamsOf(c), q, k, v, mask);
}

// A mask for `c`: additive values in [-4, 0) with every third key at -inf,
// or 0/1 selections; query rows 2, 5, 8, ... of the mask select nothing
// (all -inf, or none kept), so their outputs are zero with a -inf fill.
std::vector<float> MakeMask(const Case& c, uint32_t seed) {
  const int64_t count = NumElements(c.mask_shape);
  const int64_t keys = c.mask_shape.back();
  const int64_t rows = c.mask_shape.size() >= 2 ? c.mask_shape[c.mask_shape.size() - 2] : 1;
  std::vector<float> mask = RandomFloats(count, seed, -4.f, 0.f);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t key = i % keys, row = (i / keys) % rows;
    const bool dropped = (row % 3 == 2 && rows > 1) || key % 3 == 1;
    if (c.mask == "add") {
      if (dropped) mask[i] = -kInf;
    } else {
      const bool keep = !dropped;
      mask[i] = (c.mask == "keep_nonzero") == keep ? 1.f : 0.f;
    }
  }
  return mask;
}

void RunCase(const Case& c, uint32_t seed, const std::shared_ptr<TestCpuRuntime>& runtime) {
  const std::vector<int64_t> q_shape = Shape(c, c.layouts[0], c.q_len, c.depth);
  const std::vector<int64_t> k_shape = Shape(c, c.layouts[1], c.kv_len, c.depth);
  const std::vector<int64_t> v_shape = Shape(c, c.layouts[2], c.kv_len, c.v_depth);
  const std::vector<float> q = RandomFloats(NumElements(q_shape), seed, -2.f, 2.f);
  const std::vector<float> k = RandomFloats(NumElements(k_shape), seed + 1, -2.f, 2.f);
  const std::vector<float> v = RandomFloats(NumElements(v_shape), seed + 2);
  const std::vector<float> mask = c.mask.empty() ? std::vector<float>() : MakeMask(c, seed + 3);
  OpTester tester("Attention", RegisterAttention);
  tester.Input("q", q_shape, q).Input("k", k_shape, k).Input("v", v_shape, v);
  if (!c.mask.empty()) {
    tester.Input("mask", c.mask_shape, mask).Arg("mask", c.mask).Arg("fill", c.fill);
  }
  tester.Output("out")
      .Arg("heads", c.heads)
      .Args("layouts",
            std::vector<int64_t>{c.layouts[0], c.layouts[1], c.layouts[2], c.layouts[3]});
  if (runtime != nullptr) tester.WithRuntime(runtime.get());
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("out"), Shape(c, c.layouts[3], c.q_len, c.v_depth));
  ExpectNear(tester.OutputData("out"), Expected(c, q, k, v, mask), 2e-5f, 1e-4f);
}

std::vector<std::shared_ptr<TestCpuRuntime>> Runtimes() { return testing::RuntimesUnderTest(); }

TEST(AttentionCpuTest, OneHeadEdgeShapes) {
  uint32_t seed = 7100;
  const auto runtimes = Runtimes();
  for (int64_t len : {1, 7, 64, 65, 128, 1500}) {
    for (int64_t depth : {1, 32, 64}) {
      if (len == 1500 && depth == 32) continue;  // the long rows once per depth kind
      for (const std::string mask : {"", "add", "keep_nonzero"}) {
        // Long deep rows with one mask kind: the reference's 1500 x 1500
        // products dominate the test under qemu, and every mask kind is
        // covered at the other lengths.
        if (len == 1500 && depth == 64 && mask != "add") continue;
        // A mask per query and key (the kernel's rows of scores) and, but
        // for the long rows, one per key (its transposed scores).
        for (const bool per_key : {false, true}) {
          if (per_key && (mask.empty() || len == 1500)) continue;
          const std::vector<int64_t> mask_shape =
              per_key ? std::vector<int64_t>{1, 1, 1, len} : std::vector<int64_t>{1, 1, len, len};
          Case c{1, 1, len, len, depth, depth, {0, 0, 0, 0}, mask, mask_shape, -kInf};
          SCOPED_TRACE("S " + std::to_string(len) + " D " + std::to_string(depth) + " mask '" +
                       mask + (per_key ? "' per key" : "'") + " seed " + std::to_string(seed));
          RunCase(c, seed, runtimes[seed % runtimes.size()]);
          seed += 10;
        }
      }
    }
  }
}

TEST(AttentionCpuTest, HeadsLayoutsAndBroadcastMasks) {
  const std::vector<Case> cases = {
      {2, 3, 5, 9, 8, 4, {1, 2, 1, 1}, "", {}, 0.f},
      {2, 3, 33, 33, 16, 16, {0, 2, 0, 1}, "add", {2, 1, 1, 33}, 0.f},
      {1, 4, 70, 40, 8, 8, {1, 1, 1, 0}, "add", {70, 40}, 0.f},
      {2, 2, 12, 12, 4, 6, {1, 0, 1, 1}, "keep_zero", {2, 2, 12, 12}, -1e9f},
      {2, 3, 40, 17, 8, 8, {0, 0, 0, 0}, "keep_nonzero", {1, 1, 40, 1}, -kInf},
      {1, 2, 3, 5, 2, 2, {0, 0, 0, 0}, "keep_nonzero", {5}, -kInf},
      // Several blocks of query rows per head, the last one short.
      {1, 2, 300, 200, 8, 8, {1, 2, 1, 1}, "add", {1, 1, 300, 200}, 0.f},
      // Keys over several reduction blocks of the second product: one
      // query row (a product with a vector), and a last block of one row.
      {1, 2, 1, 1500, 16, 16, {1, 1, 1, 1}, "add", {1, 1, 1, 1500}, 0.f},
      {1, 2, 33, 1000, 8, 8, {1, 1, 1, 1}, "keep_nonzero", {1, 1, 33, 1000}, -kInf},
  };
  uint32_t seed = 7300;
  for (const auto& runtime : Runtimes()) {
    for (size_t n = 0; n < cases.size(); ++n) {
      SCOPED_TRACE("case " + std::to_string(n) + " seed " + std::to_string(seed));
      RunCase(cases[n], seed, runtime);
      seed += 10;
    }
  }
}

// A mask per key that drops every key of one batch: zero rows with a -inf
// fill (and an additive -inf mask), the mean of V with a finite fill; the
// other batch's keys are all kept.
TEST(AttentionCpuTest, KeyMasksDroppingEveryKey) {
  const auto runtimes = Runtimes();
  uint32_t seed = 7400;
  for (const std::string mask : {"add", "keep_nonzero", "keep_zero"}) {
    for (const float fill : {-kInf, -1e4f}) {
      if (mask == "add" && fill != -kInf) continue;
      for (int64_t q_len : {1, 40}) {
        const Case c{2, 2, q_len, 19, 8, 8, {1, 1, 1, 1}, mask, {2, 1, 1, 19}, fill};
        SCOPED_TRACE("mask " + mask + " fill " + std::to_string(fill) + " Sq " +
                     std::to_string(q_len) + " seed " + std::to_string(seed));
        std::vector<float> values(2 * 19);
        for (int64_t k = 0; k < 19; ++k) {
          const bool dropped = true, kept = false;
          values[k] = mask == "add" ? -kInf : (mask == "keep_nonzero") == dropped ? 0.f : 1.f;
          values[19 + k] = mask == "add" ? 0.f : (mask == "keep_nonzero") == kept ? 0.f : 1.f;
        }
        const std::vector<int64_t> q_shape = Shape(c, 1, q_len, 8);
        const std::vector<int64_t> kv_shape = Shape(c, 1, 19, 8);
        const std::vector<float> q = RandomFloats(NumElements(q_shape), seed, -2.f, 2.f);
        const std::vector<float> k = RandomFloats(NumElements(kv_shape), seed + 1, -2.f, 2.f);
        const std::vector<float> v = RandomFloats(NumElements(kv_shape), seed + 2);
        OpTester tester("Attention", RegisterAttention);
        tester.Input("q", q_shape, q).Input("k", kv_shape, k).Input("v", kv_shape, v);
        tester.Input("mask", c.mask_shape, values).Arg("mask", mask).Arg("fill", fill);
        tester.Output("out")
            .Arg("heads", c.heads)
            .Args("layouts", std::vector<int64_t>{1, 1, 1, 1});
        tester.WithRuntime(runtimes[seed % runtimes.size()].get());
        const MaceStatus status = tester.Run();
        ASSERT_TRUE(status.ok()) << status.information();
        const std::vector<float>& out = tester.OutputData("out");
        const std::vector<float> expected = Expected(c, q, k, v, values);
        ExpectNear(out, expected, 2e-5f, 1e-4f);
        // Batch 0: zeros, or each head's mean of V.
        for (int64_t i = 0; i < q_len; ++i) {
          for (int64_t d = 0; d < 16; ++d) {
            double mean = 0.0;
            for (int64_t key = 0; key < 19; ++key) mean += v[key * 16 + d] / 19.0;
            const double want = fill == -kInf ? 0.0 : mean;
            ASSERT_NEAR(out[i * 16 + d], want, 1e-5) << "query " << i << " column " << d;
          }
        }
        seed += 10;
      }
    }
  }
}

TEST(AttentionCpuTest, MergedHeadsWithoutBatchAxis) {
  // [S, H*D] inputs are one batch: the same result as [1, S, H*D].
  const Case c{1, 3, 9, 11, 4, 4, {1, 1, 1, 1}, "", {}, 0.f};
  const std::vector<float> q = RandomFloats(9 * 12, 7500, -2.f, 2.f);
  const std::vector<float> k = RandomFloats(11 * 12, 7501, -2.f, 2.f);
  const std::vector<float> v = RandomFloats(11 * 12, 7502);
  OpTester tester("Attention", RegisterAttention);
  tester.Input("q", {9, 12}, q).Input("k", {11, 12}, k).Input("v", {1, 11, 12}, v);
  tester.Output("out").Arg("heads", 3).Args("layouts", std::vector<int64_t>{1, 1, 1, 1});
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  EXPECT_EQ(tester.OutputShape("out"), (std::vector<int64_t>{1, 9, 12}));
  ExpectNear(tester.OutputData("out"), Expected(c, q, k, v, {}), 2e-5f, 1e-4f);
}

// Layout 3: q, k and v as thirds of each row of one [B, S, 3*H*D] (or
// [S, 3*H*D]) tensor, against the reference on the three parts taken
// apart; every input is given the whole packed tensor.
TEST(AttentionCpuTest, PackedQkvThirds) {
  struct Packed {
    int64_t batch, heads, len, depth;
    bool batch_axis;
    int64_t out_layout;
    std::string mask;
  };
  const Packed cases[] = {{1, 3, 197, 64, true, 1, ""},
                          {2, 2, 9, 5, true, 0, "add"},
                          {1, 4, 33, 8, false, 1, "keep_nonzero"},
                          {1, 1, 1, 3, false, 1, ""}};
  uint32_t seed = 7600;
  for (const auto& runtime : Runtimes()) {
    for (const Packed& x : cases) {
      seed += 10;
      SCOPED_TRACE("B " + std::to_string(x.batch) + " H " + std::to_string(x.heads) + " S " +
                   std::to_string(x.len) + " D " + std::to_string(x.depth) + " seed " +
                   std::to_string(seed));
      const Case c{x.batch,
                   x.heads,
                   x.len,
                   x.len,
                   x.depth,
                   x.depth,
                   {1, 1, 1, x.out_layout},
                   x.mask,
                   {x.batch, 1, 1, x.len},
                   -kInf};
      const int64_t width = x.heads * x.depth, rows = x.batch * x.len;
      const std::vector<float> qkv = RandomFloats(rows * 3 * width, seed, -2.f, 2.f);
      std::vector<float> parts[3];
      for (int part = 0; part < 3; ++part) {
        for (int64_t r = 0; r < rows; ++r) {
          const auto row = qkv.begin() + (r * 3 + part) * width;
          parts[part].insert(parts[part].end(), row, row + width);
        }
      }
      const std::vector<float> mask = x.mask.empty() ? std::vector<float>() : MakeMask(c, seed + 3);
      const std::vector<int64_t> shape = x.batch_axis
                                             ? std::vector<int64_t>{x.batch, x.len, 3 * width}
                                             : std::vector<int64_t>{x.len, 3 * width};
      OpTester tester("Attention", RegisterAttention);
      tester.Input("q", shape, qkv).Input("k", shape, qkv).Input("v", shape, qkv);
      if (!x.mask.empty()) {
        tester.Input("mask", c.mask_shape, mask).Arg("mask", x.mask).Arg("fill", -kInf);
      }
      tester.Output("out")
          .Arg("heads", x.heads)
          .Args("layouts", std::vector<int64_t>{3, 3, 3, x.out_layout});
      if (runtime != nullptr) tester.WithRuntime(runtime.get());
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      EXPECT_EQ(tester.OutputShape("out"), Shape(c, x.out_layout, x.len, x.depth));
      ExpectNear(tester.OutputData("out"), Expected(c, parts[0], parts[1], parts[2], mask), 2e-5f,
                 1e-4f);
    }
  }
}

TEST(AttentionCpuTest, HandComputed) {
  // Two keys with equal scores average V; a fully masked row is zero.
  OpTester tester("Attention", RegisterAttention);
  tester.Input("q", {1, 1, 2, 1}, {1, 1})
      .Input("k", {1, 1, 2, 1}, {2, 2})
      .Input("v", {1, 1, 2, 2}, {1, 10, 3, 20})
      .Input("mask", {1, 1, 2, 2}, {1, 1, 0, 0})
      .Output("out")
      .Arg("mask", "keep_nonzero")
      .Arg("fill", -kInf);
  const MaceStatus status = tester.Run();
  ASSERT_TRUE(status.ok()) << status.information();
  ExpectNear(tester.OutputData("out"), {2, 15, 0, 0});
}

// Whole numbers in [-3, 3], so that with a power-of-two scale every score
// (and score plus float mask) is exact in float: the CPU kernel's scores
// then equal the reference's, and so do their fake quantizations.
std::vector<float> SmallIntegers(int64_t count, uint32_t seed) {
  std::vector<float> values = RandomFloats(count, seed, -3.5f, 3.5f);
  for (float& x : values) x = std::nearbyint(x);
  return values;
}

// Fake quantization of the scores (int8, scale 0.05: scores beyond +-6.35
// clamp), of the probabilities (uint8, scale 1/255) or of both, with an
// additive mask holding -inf, on no pool and 2 and 3 threads, against the
// reference. The scores are exact, so scores_quant alone must agree as
// plain attention does; a probability within rounding of a step boundary
// may land on either side, so with probs_quant each output may be off by
// up to two steps of one probability times |v| <= 1.
TEST(AttentionCpuTest, FakeQuantizedScoresAndProbabilities) {
  const std::vector<float> scores_quant = {0.05f, 3.f, -128.f, 127.f};
  const std::vector<float> probs_quant = {1.f / 255.f, 0.f, 0.f, 255.f};
  struct Shape {
    int64_t heads, q_len, kv_len, depth, v_depth;
  };
  const Shape shapes[] = {{2, 37, 45, 16, 24}, {1, 70, 300, 8, 17}, {3, 5, 1, 4, 3}};
  uint32_t seed = 7400;
  for (const Shape& shape : shapes) {
    for (int which = 1; which <= 3; ++which) {
      for (const auto& runtime : Runtimes()) {
        seed += 4;
        SCOPED_TRACE(::testing::Message()
                     << "kv " << shape.kv_len << " quantized " << which << " seed " << seed);
        const std::vector<int64_t> q_shape = {1, shape.heads, shape.q_len, shape.depth};
        const std::vector<int64_t> k_shape = {1, shape.heads, shape.kv_len, shape.depth};
        const std::vector<int64_t> v_shape = {1, shape.heads, shape.kv_len, shape.v_depth};
        const std::vector<int64_t> mask_shape = {shape.q_len, shape.kv_len};
        const std::vector<float> q = SmallIntegers(NumElements(q_shape), seed);
        const std::vector<float> k = SmallIntegers(NumElements(k_shape), seed + 1);
        const std::vector<float> v = RandomFloats(NumElements(v_shape), seed + 2);
        std::vector<float> mask = RandomFloats(NumElements(mask_shape), seed + 3, -4.f, 0.f);
        for (size_t i = 0; i < mask.size(); i += 7) mask[i] = -kInf;
        // A NaN in the mask's second row: quantized scores clamp it, else
        // its softmax row is NaN and the probabilities quantize to 0.
        if (shape.q_len > 1) mask[shape.kv_len] = NAN;
        OpTester tester("Attention", RegisterAttention);
        tester.Input("q", q_shape, q).Input("k", k_shape, k).Input("v", v_shape, v);
        tester.Input("mask", mask_shape, mask).Output("out").Arg("scale", 0.25f);
        if (which & 1) tester.Args("scores_quant", scores_quant);
        if (which & 2) tester.Args("probs_quant", probs_quant);
        if (runtime != nullptr) tester.WithRuntime(runtime.get());
        const MaceStatus status = tester.Run();
        ASSERT_TRUE(status.ok()) << status.information();
        const Case c = {
            1,     shape.heads, shape.q_len, shape.kv_len, shape.depth, shape.v_depth, {0, 0, 0, 0},
            "add", mask_shape,  0.f};
        ref::AttentionParams p = ParamsOf(c);
        p.scale = 0.25f;
        const auto fake_quant = [](const std::vector<float>& a) {
          ref::AttentionFakeQuant fq;
          fq.on = true;
          fq.scale = a[0];
          fq.zero_point = a[1];
          fq.low = a[2];
          fq.high = a[3];
          return fq;
        };
        if (which & 1) p.scores_quant = fake_quant(scores_quant);
        if (which & 2) p.probs_quant = fake_quant(probs_quant);
        const std::vector<float> expected = Expected(p, q, k, v, mask);
        const float absolute = which & 2 ? 2.f * probs_quant[0] : 2e-5f;
        ExpectNear(tester.OutputData("out"), expected, absolute, 1e-4f);
      }
    }
  }
}

TEST(AttentionCpuTest, FakeQuantizeMatchesQuantizeLinear) {
  // Ties to even, the clamp at both ends, NaN to the zero point, against
  // values worked out by hand: scale 0.5, zero point 1, range [-2, 3].
  ref::AttentionFakeQuant fq;
  fq.on = true;
  fq.scale = 0.5f;
  fq.zero_point = 1.f;
  fq.low = -2.f;
  fq.high = 3.f;
  const float x[] = {0.25f, 0.75f, -0.25f, 5.f, -5.f, kInf, -kInf, NAN, 0.4f};
  const float y[] = {0.f, 1.f, -0.f, 1.f, -1.5f, 1.f, -1.5f, 0.f, 0.5f};
  for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); ++i) {
    EXPECT_EQ(ref::FakeQuantize(fq, x[i]), y[i]) << "x " << x[i];
  }
}

void ExpectInvalid(OpTester* tester, const std::string& fragment) {
  const MaceStatus status = tester->Run();
  EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  EXPECT_NE(status.information().find(fragment), std::string::npos) << status.information();
}

// Halves filling `shape`.
std::vector<float> Halves(const std::vector<int64_t>& shape) {
  return std::vector<float>(NumElements(shape), 0.5f);
}

TEST(AttentionCpuTest, RejectsBadArguments) {
  {
    OpTester t("Attention", RegisterAttention);
    t.Input("q", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("k", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("v", {2, 3, 4, 8}, Halves({2, 3, 4, 8}));
    t.Output("out").Args("layouts", std::vector<int64_t>{2, 0, 0, 0});
    ExpectInvalid(&t, "layout 2 of q");
  }
  {
    OpTester t("Attention", RegisterAttention);
    t.Input("q", {2, 4, 24}, Halves({2, 4, 24}))
        .Input("k", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("v", {2, 3, 4, 8}, Halves({2, 3, 4, 8}));
    t.Output("out").Args("layouts", std::vector<int64_t>{1, 0, 0, 0});
    ExpectInvalid(&t, "heads is 0");
  }
  {
    OpTester t("Attention", RegisterAttention);
    t.Input("q", {2, 4, 24}, Halves({2, 4, 24}))
        .Input("k", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("v", {2, 3, 4, 8}, Halves({2, 3, 4, 8}));
    t.Output("out").Arg("heads", 5).Args("layouts", std::vector<int64_t>{1, 0, 0, 0});
    ExpectInvalid(&t, "not a multiple of 5 heads");
  }
  {
    // A packed width that is not three parts of whole heads.
    OpTester t("Attention", RegisterAttention);
    t.Input("q", {1, 4, 24}, Halves({1, 4, 24}))
        .Input("k", {1, 4, 24}, Halves({1, 4, 24}))
        .Input("v", {1, 4, 24}, Halves({1, 4, 24}));
    t.Output("out").Arg("heads", 3).Args("layouts", std::vector<int64_t>{3, 3, 3, 1});
    ExpectInvalid(&t, "not a multiple of 3 x 3 heads");
  }
  {
    // The output cannot be packed.
    OpTester t("Attention", RegisterAttention);
    t.Input("q", {1, 4, 24}, Halves({1, 4, 24}))
        .Input("k", {1, 4, 24}, Halves({1, 4, 24}))
        .Input("v", {1, 4, 24}, Halves({1, 4, 24}));
    t.Output("out").Arg("heads", 2).Args("layouts", std::vector<int64_t>{3, 3, 3, 3});
    ExpectInvalid(&t, "layout 3 of output");
  }
  {
    OpTester t("Attention", RegisterAttention);
    t.Input("q", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("k", {2, 3, 8, 4}, Halves({2, 3, 8, 4}))
        .Input("v", {2, 3, 4, 8}, Halves({2, 3, 4, 8}));
    t.Output("out");
    ExpectInvalid(&t, "q has depth 8 but k 4");
  }
  {
    OpTester t("Attention", RegisterAttention);
    t.Input("q", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("k", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("v", {2, 3, 4, 8}, Halves({2, 3, 4, 8}));
    t.Input("mask", {5, 4}, Halves({5, 4})).Output("out");
    ExpectInvalid(&t, "does not broadcast");
  }
  {
    OpTester t("Attention", RegisterAttention);
    t.Input("q", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("k", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("v", {2, 3, 4, 8}, Halves({2, 3, 4, 8}));
    t.Input("mask", {4}, Halves({4})).Output("out").Arg("mask", "multiply");
    ExpectInvalid(&t, "mask must be");
  }
  const struct {
    const char* name;
    std::vector<float> values;
    const char* fragment;
  } bad_quant[] = {
      {"scores_quant", {0.1f, 0.f, 0.f}, "needs 4 values"},
      {"probs_quant", {0.f, 0.f, 0.f, 255.f}, "positive and finite"},
      {"scores_quant", {NAN, 0.f, 0.f, 255.f}, "positive and finite"},
      {"probs_quant", {0.1f, 0.5f, 0.f, 255.f}, "must be integers"},
      {"scores_quant", {0.1f, 0.f, -70000.f, 255.f}, "must be integers"},
      {"probs_quant", {0.1f, 300.f, 0.f, 255.f}, "low <= zero point <= high"},
  };
  for (const auto& bad : bad_quant) {
    OpTester t("Attention", RegisterAttention);
    t.Input("q", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("k", {2, 3, 4, 8}, Halves({2, 3, 4, 8}))
        .Input("v", {2, 3, 4, 8}, Halves({2, 3, 4, 8}));
    t.Output("out").Args(bad.name, bad.values);
    ExpectInvalid(&t, bad.fragment);
  }
}

// The second product's packer on its own, with every transformer kernel
// variant: 11 rows of 40 scores in reduction blocks of 16 keys (16, 16, 8).
// Each call's panels must hold e^(score - shift) in PackPanels' layout
// (rows past the end zero), whatever range the GEMM asks for; the sums of
// a call that is one reduction block or a whole row go to their slot, and
// any other range, or one larger than the buffer, reports a mismatch.
TEST(AttentionExpPanelsTest, PanelsSumsAndMismatches) {
  constexpr int64_t kRows = 11, kStride = 40, kDepth = 16, kBlocks = 3;
  const std::vector<float> scores = RandomFloats(kRows * kStride, 7700, -4.f, 4.f);
  std::vector<float> shift(kRows);
  for (int64_t i = 0; i < kRows; ++i) {
    shift[i] = *std::max_element(scores.begin() + i * kStride, scores.begin() + (i + 1) * kStride);
  }
  struct Call {
    int64_t row0, rows, depth0, depth;
    int width;
    int64_t capacity;
    bool mismatch;
    int64_t block;  // the sums' slot when not a mismatch
  };
  const Call calls[] = {
      {3, 5, 16, 16, 8, 11 * 16, false, 1},  // one reduction block
      {0, 11, 32, 8, 8, 11 * 16, false, 2},  // the last, shallower block
      {6, 1, 0, 40, 1, 11 * 16, false, 0},   // a whole row (a vector product)
      {2, 4, 8, 16, 8, 11 * 16, true, 0},    // off the blocks
      {1, 5, 16, 16, 8, kStride, true, 0},   // larger than the buffer
      {0, 11, 0, 40, 4, kStride, true, 0},   // whole rows, larger than the buffer
  };
  for (const TransformerKernels* kernels : AvailableTransformerKernels()) {
    for (const Call& call : calls) {
      SCOPED_TRACE(std::string(kernels->name) + " rows " + std::to_string(call.row0) + "+" +
                   std::to_string(call.rows) + " keys " + std::to_string(call.depth0) + "+" +
                   std::to_string(call.depth) + " width " + std::to_string(call.width) +
                   " capacity " + std::to_string(call.capacity));
      std::vector<float> buffer(call.capacity), row_sums(kRows), sums(kRows * kBlocks, -1.f);
      bool mismatch = false;
      ExpPanels panels;
      panels.exp = kernels->exp_shifted;
      panels.scores = scores.data();
      panels.stride = kStride;
      panels.depth = kDepth;
      panels.blocks = kBlocks;
      panels.shift = shift.data();
      panels.buffer = buffer.data();
      panels.capacity = call.capacity;
      panels.row_sums = row_sums.data();
      panels.sums = sums.data();
      panels.mismatch = &mismatch;
      const int64_t padded = (call.rows + call.width - 1) / call.width * call.width;
      std::vector<float> dst(padded * call.depth, 12345.f);
      PackExpPanels(&panels, call.row0, call.rows, call.depth0, call.depth, call.width, dst.data());
      EXPECT_EQ(mismatch, call.mismatch);
      for (int64_t i = 0; i < padded; ++i) {
        double sum = 0.0;
        for (int64_t d = 0; d < call.depth; ++d) {
          const int64_t row = call.row0 + i;
          const double want =
              i < call.rows
                  ? std::exp(static_cast<double>(scores[row * kStride + call.depth0 + d]) -
                             shift[row])
                  : 0.0;
          sum += want;
          const float got =
              dst[(i / call.width) * call.width * call.depth + d * call.width + i % call.width];
          ASSERT_NEAR(got, want, 2e-6 * want) << "row " << i << " key " << d;
        }
        if (i < call.rows && !call.mismatch) {
          EXPECT_NEAR(sums[(call.row0 + i) * kBlocks + call.block], sum, 1e-6 * sum) << "row " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
