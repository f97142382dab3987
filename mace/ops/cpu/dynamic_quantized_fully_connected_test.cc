// DynamicQuantizedFullyConnected: the uint8-GEMM driver of every kernel
// family against the reference kernel at edge shapes (depths that do not
// fill a word, feature counts that do not fill a tile, batches past a
// column block), with rows of zeros, of one sign, and with a NaN, on no
// pool and pools of 2 and 3 threads; the op against a float product; and
// the op's input checks.
#include "mace/ops/ref/dynamic_quantized_fully_connected.h"

#include <cmath>
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
    for (const auto& pool : PoolsUnderTest()) {
      for (const Shape& s : shapes) {
        SCOPED_TRACE(std::string(table->name) + " batch " + std::to_string(s.batch) + " depth " +
                     std::to_string(s.depth) + " units " + std::to_string(s.units) + " threads " +
                     std::to_string(NumThreads(pool.get())) + " seed " + std::to_string(seed));
        std::vector<int8_t> w;
        std::vector<float> scales;
        QuantizeWeights(RandomFloats(s.units * s.depth, seed, -0.5f, 0.5f), s.units, s.depth, &w,
                        &scales);
        // A weight row at the int8 extremes.
        for (int64_t k = 0; k < s.depth; ++k) w[k] = k % 2 == 0 ? 127 : -127;
        const std::vector<float> x = MakeInput(s.batch, s.depth, seed + 1);
        const std::vector<float> bias = RandomFloats(s.units, seed + 2);
        ref::FullyConnectedParams p;
        p.batch = s.batch;
        p.in_features = s.depth;
        p.out_features = s.units;
        if (seed % 3 == 0) p.activation.type = ActivationType::RELU;
        std::vector<float> want(s.batch * s.units), got(s.batch * s.units, -7.f);
        ref::DynamicQuantizedFullyConnected(p, x.data(), w.data(), scales.data(), bias.data(),
                                            want.data());
        auto gemm = DynamicInt8Gemm::Create(*table, s.units, s.depth, w.data());
        ASSERT_NE(gemm, nullptr);
        gemm->Run(p, x.data(), scales.data(), bias.data(), got.data(), pool.get());
        ExpectSameOutputs(got, want);
        // Again with another batch on the same packed weight, no bias.
        p.batch = s.batch + 3;
        const std::vector<float> more = MakeInput(p.batch, s.depth, seed + 3);
        want.assign(p.batch * s.units, 0.f);
        got.assign(p.batch * s.units, -7.f);
        ref::DynamicQuantizedFullyConnected(p, more.data(), w.data(), scales.data(), nullptr,
                                            want.data());
        gemm->Run(p, more.data(), scales.data(), nullptr, got.data(), pool.get());
        ExpectSameOutputs(got, want);
        seed += 10;
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
}

}  // namespace
}  // namespace ops
}  // namespace mace
