// DynamicQuantizedFullyConnected: the uint8-GEMM driver of every kernel
// family against the reference kernel at edge shapes (depths that do not
// fill a word, feature counts that do not fill a tile, batches past a
// column block, the deepest reduction), with rows of zeros, of one sign,
// and with a NaN, per row and per tensor, with int8 and uint8 weights and
// their zero points, on no pool and pools of 2 and 3 threads; the
// quantizers against a plain scalar one; the op against a float product;
// and the op's input checks.
#include "mace/ops/ref/dynamic_quantized_fully_connected.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/dynamic_quantized_fully_connected_gemm.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::OpTester;
using testing::PoolsUnderTest;
using testing::RandomFloats;
using testing::TablesUnderTest;
using testing::TestCpuRuntime;

// Per-feature symmetric int8 weights of `w` [units][depth] and their scales.
void QuantizeWeights(const std::vector<float>& w, int64_t units, int64_t depth,
                     std::vector<int8_t>* q, std::vector<float>* scales) {
  q->assign(units * depth, 0);
  scales->assign(units, 1.f);
  for (int64_t u = 0; u < units; ++u) {
    float largest = 0.f;
    for (int64_t k = 0; k < depth; ++k) largest = std::max(largest, std::fabs(w[u * depth + k]));
    if (largest == 0.f) continue;
    (*scales)[u] = largest / 127.f;
    for (int64_t k = 0; k < depth; ++k) {
      (*q)[u * depth + k] = static_cast<int8_t>(std::nearbyint(w[u * depth + k] / (*scales)[u]));
    }
  }
}

// Random inputs with some special rows: row 1 all zeros, row 2 positive
// only, row 3 negative only, row 5 one NaN (when the batch has them).
std::vector<float> MakeInput(int64_t batch, int64_t depth, uint32_t seed) {
  std::vector<float> x = RandomFloats(batch * depth, seed, -3.f, 2.f);
  for (int64_t k = 0; k < depth; ++k) {
    if (batch > 1) x[depth + k] = 0.f;
    if (batch > 2) x[2 * depth + k] = std::fabs(x[2 * depth + k]) + 0.25f;
    if (batch > 3) x[3 * depth + k] = -std::fabs(x[3 * depth + k]);
  }
  if (batch > 5) x[5 * depth + depth / 2] = std::numeric_limits<float>::quiet_NaN();
  return x;
}

// Equal, NaN where the other is NaN, else within float rounding of the
// last step.
void ExpectSameOutputs(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
      continue;
    }
    EXPECT_NEAR(got[i], want[i], 1e-6f * (1.f + std::fabs(want[i]))) << "at " << i;
  }
}

// A weight of one of the forms the op takes, as bytes and zero points.
struct TestWeight {
  bool uint8 = false;
  std::vector<uint8_t> bytes;
  std::vector<int32_t> zero_points;  // empty: all 0
  ref::DynamicWeight View() const {
    ref::DynamicWeight w;
    if (uint8) {
      w.uint8 = bytes.data();
    } else {
      w.int8 = reinterpret_cast<const int8_t*>(bytes.data());
    }
    w.zero_points = zero_points.empty() ? nullptr : zero_points.data();
    return w;
  }
};

// Form 0: symmetric int8; 1: uint8 with a zero point per unit; 2: int8
// with one zero point (-128, as many units as asked); 3: uint8 with one
// zero point 255. The first unit holds each type's extremes.
TestWeight MakeWeight(int form, int64_t units, int64_t depth, uint32_t seed) {
  TestWeight t;
  t.uint8 = form == 1 || form == 3;
  std::vector<float> scales;
  std::vector<int8_t> q;
  QuantizeWeights(RandomFloats(units * depth, seed, -0.5f, 0.5f), units, depth, &q, &scales);
  t.bytes.resize(units * depth);
  const std::vector<float> noise = RandomFloats(units * depth, seed + 5, 0.f, 255.99f);
  for (int64_t i = 0; i < units * depth; ++i) {
    t.bytes[i] = form == 0 ? static_cast<uint8_t>(q[i]) : static_cast<uint8_t>(noise[i]);
  }
  const uint8_t low = t.uint8 ? 0 : 0x80, high = t.uint8 ? 255 : 0x7F;
  for (int64_t k = 0; k < depth; ++k) t.bytes[k] = k % 2 == 0 ? high : low;
  if (form == 1) {
    for (int64_t u = 0; u < units; ++u) t.zero_points.push_back(static_cast<int32_t>(u * 37 % 256));
  } else if (form == 2) {
    t.zero_points.assign(units, -128);
  } else if (form == 3) {
    t.zero_points.assign(units, 255);
  }
  return t;
}

TEST(DynamicQuantizedFullyConnectedTest, GemmMatchesReference) {
  const auto tables = TablesUnderTest();
  if (tables.empty()) GTEST_SKIP() << "no kernel family on this CPU";
  struct Shape {
    int64_t batch, depth, units;
  };
  const std::vector<Shape> shapes = {{1, 1, 1},    {1, 7, 5},     {3, 33, 9},   {6, 64, 31},
                                     {33, 130, 67}, {70, 2, 40},  {40, 1001, 6}, {600, 96, 5}};
  uint32_t seed = 9100;
  for (const KernelTable* table : tables) {
    // Which word format this CPU gave the table (pairs 0, quads 1 and 2).
    std::printf("%s: uint8 GEMM word format %d\n", table->name,
                static_cast<int>(table->quantized_format));
    for (const auto& pool : PoolsUnderTest()) {
      for (const Shape& s : shapes) {
        for (int form = 0; form < 4; ++form) {
          // Forms 0 and 3 per row, 1 and 2 per tensor.
          const bool per_tensor = form == 1 || form == 2;
          SCOPED_TRACE(std::string(table->name) + " batch " + std::to_string(s.batch) + " depth " +
                       std::to_string(s.depth) + " units " + std::to_string(s.units) + " threads " +
                       std::to_string(NumThreads(pool.get())) + " form " + std::to_string(form) +
                       " seed " + std::to_string(seed));
          const TestWeight w = MakeWeight(form, s.units, s.depth, seed);
          const std::vector<float> scales = RandomFloats(s.units, seed + 4, 0.001f, 0.01f);
          const std::vector<float> x = MakeInput(s.batch, s.depth, seed + 1);
          const std::vector<float> bias = RandomFloats(s.units, seed + 2);
          ref::FullyConnectedParams p;
          p.batch = s.batch;
          p.in_features = s.depth;
          p.out_features = s.units;
          if (seed % 3 == 0) p.activation.type = ActivationType::RELU;
          std::vector<float> want(s.batch * s.units), got(s.batch * s.units, -7.f);
          ref::DynamicQuantizedFullyConnected(p, x.data(), w.View(), per_tensor, scales.data(),
                                              bias.data(), want.data());
          auto gemm = DynamicInt8Gemm::Create(*table, s.units, s.depth, w.View());
          ASSERT_NE(gemm, nullptr);
          gemm->Run(p, x.data(), per_tensor, scales.data(), bias.data(), got.data(), pool.get());
          ExpectSameOutputs(got, want);
          // Again with another batch on the same packed weight, no bias, no
          // NaN (which would make every output of a per-tensor run NaN).
          p.batch = s.batch + 3;
          std::vector<float> more = MakeInput(p.batch, s.depth, seed + 3);
          for (float& v : more) v = std::isnan(v) ? 0.5f : v;
          want.assign(p.batch * s.units, 0.f);
          got.assign(p.batch * s.units, -7.f);
          ref::DynamicQuantizedFullyConnected(p, more.data(), w.View(), per_tensor, scales.data(),
                                              nullptr, want.data());
          gemm->Run(p, more.data(), per_tensor, scales.data(), nullptr, got.data(), pool.get());
          ExpectSameOutputs(got, want);
          seed += 10;
        }
      }
    }
  }
}

// The deepest reduction the GEMM takes, at the largest sums: every product
// (q - z)(w - w_zero) is 255 x 255 or -255 x 255. The reference sums in
// int64; the kernels must agree exactly.
TEST(DynamicQuantizedFullyConnectedTest, DeepestReductionIsExact) {
  const auto tables = TablesUnderTest();
  if (tables.empty()) GTEST_SKIP() << "no kernel family on this CPU";
  const int64_t depth = 16384, units = 33, batch = 2;
  // Row 0 positive only (q 255, z 0); row 1 negative only (q 0, z 255).
  std::vector<float> x(batch * depth);
  for (int64_t k = 0; k < depth; ++k) {
    x[k] = 1.f;
    x[depth + k] = -1.f;
  }
  for (int form : {1, 2, 3}) {
    TestWeight w;
    w.uint8 = form != 2;
    w.bytes.assign(units * depth, w.uint8 ? 255 : 0x7F);
    for (int64_t u = 0; u < units; u += 2) {
      for (int64_t k = 0; k < depth; ++k) w.bytes[u * depth + k] = w.uint8 ? 0 : 0x80;
    }
    // Units of 255 with zero point 0 and of 0 with zero point 255, or int8
    // 127 and -128 with zero point -128 (values 255 and 0).
    for (int64_t u = 0; u < units; ++u) {
      w.zero_points.push_back(form == 2 ? -128 : (u % 2 == 0 ? 255 : 0));
    }
    const std::vector<float> scales(units, 1.f);
    ref::FullyConnectedParams p;
    p.batch = batch;
    p.in_features = depth;
    p.out_features = units;
    for (bool per_tensor : {false, true}) {
      std::vector<float> want(batch * units), got(batch * units, -7.f);
      ref::DynamicQuantizedFullyConnected(p, x.data(), w.View(), per_tensor, scales.data(), nullptr,
                                          want.data());
      if (!per_tensor) {
        // Row 0, unit 1: 255 x 255 x depth (past 2^29) times the scale 1 / 255.
        EXPECT_NEAR(want[1], 255.f * depth, 1.f);
      }
      for (const KernelTable* table : tables) {
        SCOPED_TRACE(std::string(table->name) + " form " + std::to_string(form) +
                     (per_tensor ? " per tensor" : " per row"));
        auto gemm = DynamicInt8Gemm::Create(*table, units, depth, w.View());
        ASSERT_NE(gemm, nullptr);
        gemm->Run(p, x.data(), per_tensor, scales.data(), nullptr, got.data(), nullptr);
        EXPECT_EQ(got, want);
      }
    }
  }
}

TEST(DynamicQuantizedFullyConnectedTest, QuantizeRow) {
  std::vector<uint8_t> q(4);
  // [-1, 0.5, 2, 0]: range [-1, 2], scale 3/255, zero point 85; 0.5 is
  // 42.5 steps, rounded half to even.
  const float x[] = {-1.f, 0.5f, 2.f, 0.f};
  const ref::DynamicRow row = ref::QuantizeRowDynamic(x, 4, q.data());
  EXPECT_TRUE(row.finite);
  EXPECT_FLOAT_EQ(row.scale, 3.f / 255.f);
  EXPECT_EQ(row.zero_point, 85);
  EXPECT_EQ(q, (std::vector<uint8_t>{0, 127, 255, 85}));
  // Positive only: the range still holds 0, so 0 is exact.
  const float positive[] = {1.f, 2.f};
  const ref::DynamicRow p = ref::QuantizeRowDynamic(positive, 2, q.data());
  EXPECT_EQ(p.zero_point, 0);
  EXPECT_EQ(q[1], 255);
  const float zeros[] = {0.f, 0.f, -0.f};
  const ref::DynamicRow z = ref::QuantizeRowDynamic(zeros, 3, q.data());
  EXPECT_TRUE(z.finite);
  EXPECT_EQ(z.zero_point, 0);
  EXPECT_EQ(z.scale, 1.f);
  const float bad[] = {1.f, std::numeric_limits<float>::infinity()};
  EXPECT_FALSE(ref::QuantizeRowDynamic(bad, 2, q.data()).finite);
}

// The per-tensor quantizer against ONNX DynamicQuantizeLinear written out
// plainly, and a tensor where dividing by the scale and multiplying by its
// inverse round differently (onnxruntime gives 211).
TEST(DynamicQuantizedFullyConnectedTest, QuantizeTensorAsOnnx) {
  std::vector<uint8_t> q(3);
  const float x[] = {2.5660377f, 3.45283f, -1.6792452f};
  const ref::DynamicRow t = ref::QuantizeTensorDynamic(x, 3, q.data());
  EXPECT_EQ(t.zero_point, 83);
  EXPECT_EQ(q, (std::vector<uint8_t>{211, 255, 0}));
  for (uint32_t seed = 9700; seed < 9720; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const int64_t count = 1000 + seed % 7;
    std::vector<float> values = RandomFloats(count, seed, seed % 2 ? -0.1f : -30.f, 7.f);
    if (seed % 5 == 0) {
      for (float& v : values) v = std::fabs(v);
    }
    float low = 0.f, high = 0.f;
    for (float v : values) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
    const float scale = (high - low) / 255.f;
    const float zero = std::min(255.f, std::max(0.f, std::nearbyint(-low / scale)));
    q.assign(count, 0);
    const ref::DynamicRow row = ref::QuantizeTensorDynamic(values.data(), count, q.data());
    EXPECT_EQ(row.scale, scale);
    EXPECT_EQ(row.zero_point, static_cast<int32_t>(zero));
    for (int64_t i = 0; i < count; ++i) {
      const float want = std::min(255.f, std::max(0.f, std::nearbyint(values[i] / scale) + zero));
      ASSERT_EQ(q[i], static_cast<uint8_t>(want)) << "at " << i << " value " << values[i];
    }
    // In three pieces of uneven length, as the GEMM driver's threads do it.
    const int64_t cuts[] = {0, count / 3, count / 3 + 17, count};
    ref::DynamicRange range;
    for (int i = 0; i < 3; ++i) {
      range = ref::MergeRanges(range,
                               ref::RangeDynamic(values.data() + cuts[i], cuts[i + 1] - cuts[i]));
    }
    const ref::DynamicRow pieces = ref::TensorRowDynamic(range);
    EXPECT_EQ(pieces.scale, row.scale);
    EXPECT_EQ(pieces.zero_point, row.zero_point);
    std::vector<uint8_t> again(count, 0);
    for (int i = 0; i < 3; ++i) {
      ref::QuantizeWithRowDynamic(values.data() + cuts[i], cuts[i + 1] - cuts[i], pieces,
                                  again.data() + cuts[i]);
    }
    EXPECT_EQ(again, q);
  }
}

// The op against the float product it stands for and against the
// reference kernel, with and without a CPU runtime of its own.
TEST(DynamicQuantizedFullyConnectedTest, OpCloseToFloat) {
  const int64_t batch = 20, depth = 96, units = 50;
  const std::vector<float> w = RandomFloats(units * depth, 9500, -0.3f, 0.3f);
  const std::vector<float> x = RandomFloats(batch * depth, 9501, -2.f, 2.f);
  const std::vector<float> bias = RandomFloats(units, 9502);
  std::vector<int8_t> q;
  std::vector<float> scales;
  QuantizeWeights(w, units, depth, &q, &scales);
  std::vector<uint8_t> bytes(q.size());
  for (size_t i = 0; i < q.size(); ++i) bytes[i] = static_cast<uint8_t>(q[i]);
  std::vector<float> exact(batch * units);
  double energy = 0.0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t u = 0; u < units; ++u) {
      double sum = bias[u];
      for (int64_t k = 0; k < depth; ++k) sum += double{x[n * depth + k]} * w[u * depth + k];
      exact[n * units + u] = static_cast<float>(sum);
      energy += sum * sum;
    }
  }
  for (int threads : {0, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    auto runtime = threads > 0 ? std::make_shared<TestCpuRuntime>(threads) : nullptr;
    OpTester tester("DynamicQuantizedFullyConnected", RegisterDynamicQuantizedFullyConnected);
    tester.Input("x", {batch, depth}, x)
        .QuantizedWeight("w", DT_INT8, {units, depth}, bytes, QuantParams())
        .Weight("scale", {units}, scales)
        .Weight("bias", {units}, bias)
        .Output("y");
    if (runtime != nullptr) tester.WithRuntime(runtime.get());
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    ASSERT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{batch, units}));
    const std::vector<float> got = tester.OutputData("y");
    double noise = 0.0;
    for (int64_t i = 0; i < batch * units; ++i) {
      noise += (double{got[i]} - exact[i]) * (double{got[i]} - exact[i]);
    }
    // int8 weights and uint8 rows: about 40 dB of signal to noise.
    EXPECT_GT(10.0 * std::log10(energy / noise), 35.0);
    ref::FullyConnectedParams p;
    p.batch = batch;
    p.in_features = depth;
    p.out_features = units;
    std::vector<float> want(batch * units);
    ref::DynamicQuantizedFullyConnected(p, x.data(), q.data(), scales.data(), bias.data(),
                                        want.data());
    ExpectSameOutputs(got, want);
  }
}

// The op in its per-tensor mode with a uint8 weight and per-unit zero
// points, against the reference kernel, on a [N, C, H, W] input.
TEST(DynamicQuantizedFullyConnectedTest, OpPerTensorUint8Weight) {
  const int64_t batch = 5, depth = 40, units = 19;
  const std::vector<float> x = RandomFloats(batch * depth, 9600, -1.f, 3.f);
  const TestWeight w = MakeWeight(1, units, depth, 9601);
  const std::vector<float> scales = RandomFloats(units, 9602, 0.001f, 0.01f);
  std::vector<int64_t> zeros(w.zero_points.begin(), w.zero_points.end());
  ref::FullyConnectedParams p;
  p.batch = batch;
  p.in_features = depth;
  p.out_features = units;
  std::vector<float> want(batch * units);
  ref::DynamicQuantizedFullyConnected(p, x.data(), w.View(), true, scales.data(), nullptr,
                                      want.data());
  for (int threads : {0, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    auto runtime = threads > 0 ? std::make_shared<TestCpuRuntime>(threads) : nullptr;
    OpTester tester("DynamicQuantizedFullyConnected", RegisterDynamicQuantizedFullyConnected);
    tester.Input("x", {batch, 10, 2, 2}, x)
        .QuantizedWeight("w", DT_UINT8, {units, depth}, w.bytes, QuantParams())
        .Weight("scale", {units}, scales)
        .Output("y")
        .Arg("per_tensor", 1)
        .Args("weight_zero_points", zeros);
    if (runtime != nullptr) tester.WithRuntime(runtime.get());
    const MaceStatus status = tester.Run();
    ASSERT_TRUE(status.ok()) << status.information();
    ASSERT_EQ(tester.OutputShape("y"), (std::vector<int64_t>{batch, units, 1, 1}));
    ExpectSameOutputs(tester.OutputData("y"), want);
  }
}

TEST(DynamicQuantizedFullyConnectedTest, RefusesBadInputs) {
  const std::vector<uint8_t> bytes(6, 1);
  {
    OpTester tester("DynamicQuantizedFullyConnected", RegisterDynamicQuantizedFullyConnected);
    tester.Input("x", {1, 3}, {1, 2, 3})
        .Weight("w", {2, 3}, {1, 2, 3, 4, 5, 6})
        .Weight("scale", {2}, {1, 1})
        .Output("y");
    const MaceStatus status = tester.Run();
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS) << status.information();
  }
  {
    OpTester tester("DynamicQuantizedFullyConnected", RegisterDynamicQuantizedFullyConnected);
    tester.Input("x", {1, 3}, {1, 2, 3})
        .QuantizedWeight("w", DT_INT8, {2, 3}, bytes, QuantParams())
        .Weight("scale", {3}, {1, 1, 1})
        .Output("y");
    const MaceStatus status = tester.Run();
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
    EXPECT_NE(status.information().find("weight_scale has shape [3] but needs [2]"),
              std::string::npos)
        << status.information();
  }
  {
    OpTester tester("DynamicQuantizedFullyConnected", RegisterDynamicQuantizedFullyConnected);
    tester.Input("x", {1, 4}, {1, 2, 3, 4})
        .QuantizedWeight("w", DT_INT8, {2, 3}, bytes, QuantParams())
        .Weight("scale", {2}, {1, 1})
        .Output("y");
    const MaceStatus status = tester.Run();
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
    EXPECT_NE(status.information().find("has 4 features per batch"), std::string::npos)
        << status.information();
  }
  {
    OpTester tester("DynamicQuantizedFullyConnected", RegisterDynamicQuantizedFullyConnected);
    tester.Input("x", {1, 3}, {1, 2, 3})
        .QuantizedWeight("w", DT_INT8, {2, 3}, bytes, QuantParams())
        .Weight("scale", {2}, {1, 1})
        .Output("y")
        .Args("weight_zero_points", std::vector<int64_t>{0, 200});
    const MaceStatus status = tester.Run();
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
    EXPECT_NE(status.information().find("weight zero point 200 is outside [-128, 127]"),
              std::string::npos)
        << status.information();
  }
  {
    OpTester tester("DynamicQuantizedFullyConnected", RegisterDynamicQuantizedFullyConnected);
    tester.Input("x", {1, 3}, {1, 2, 3})
        .QuantizedWeight("w", DT_UINT8, {2, 3}, bytes, QuantParams())
        .Weight("scale", {2}, {1, 1})
        .Output("y")
        .Args("weight_zero_points", std::vector<int64_t>{1, 2, 3});
    const MaceStatus status = tester.Run();
    EXPECT_EQ(status.code(), MaceStatus::MACE_INVALID_ARGS);
    EXPECT_NE(status.information().find("weight_zero_points has 3 values but needs none, 1 or 2"),
              std::string::npos)
        << status.information();
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
