// The fast eltwise kernels against ref::Eltwise: every type but POW, every
// broadcast form (equal shapes, per channel either way round, scalar tensors
// and scalar arguments on either side, rows, planes, both operands
// broadcast), widths around the vector widths, every activation, in place on
// either operand, IEEE special values, and 1 to 3 threads on tensors large
// enough to be split.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/eltwise_kernel.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using ref::EltwiseType;
using testing::NumElements;
using testing::RandomFloats;

constexpr EltwiseType kTypes[] = {EltwiseType::SUM, EltwiseType::SUB, EltwiseType::PROD,
                                  EltwiseType::DIV, EltwiseType::MIN, EltwiseType::MAX,
                                  EltwiseType::NEG, EltwiseType::ABS, EltwiseType::SQR_DIFF};
constexpr int kTypeCount = sizeof(kTypes) / sizeof(kTypes[0]);

constexpr ActivationType kActivations[] = {ActivationType::NOOP,      ActivationType::RELU,
                                           ActivationType::RELUX,     ActivationType::HARDSWISH,
                                           ActivationType::LEAKYRELU, ActivationType::SIGMOID,
                                           ActivationType::TANH,      ActivationType::HARDSIGMOID};
constexpr int kActivationCount = sizeof(kActivations) / sizeof(kActivations[0]);

// A scalar operand passed as the op's scalar_input argument, not a tensor.
const std::vector<int64_t> kScalarArg = {-1};

// What to compute: a op b, with b (or a) possibly the scalar argument.
struct Case {
  EltwiseType type = EltwiseType::SUM;
  std::vector<int64_t> a_shape, b_shape;
  ActivationType activation = ActivationType::NOOP;
  bool weighted = false;  // SUM with coefficients
};

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

// The op's broadcasting: shapes right-aligned, strides 0 where an operand
// has size 1 (or is the scalar argument).
ref::EltwiseParams Params(const Case& c) {
  ref::EltwiseParams p;
  p.type = c.type;
  if (c.weighted) {
    p.coeff_a = 0.75f;
    p.coeff_b = -1.5f;
  }
  p.activation.type = c.activation;
  p.activation.max_limit = 0.5f;
  p.activation.alpha = 0.2f;
  p.activation.beta = 0.5f;
  const bool a_scalar = c.a_shape == kScalarArg;
  const bool b_scalar = c.b_shape == kScalarArg || ref::IsUnary(c.type);
  const std::vector<int64_t> a_shape = a_scalar ? std::vector<int64_t>{} : c.a_shape;
  const std::vector<int64_t> b_shape = b_scalar ? std::vector<int64_t>{} : c.b_shape;
  const size_t rank = std::max(a_shape.size(), b_shape.size());
  std::vector<int64_t> a_full(rank - a_shape.size(), 1), b_full(rank - b_shape.size(), 1);
  a_full.insert(a_full.end(), a_shape.begin(), a_shape.end());
  b_full.insert(b_full.end(), b_shape.begin(), b_shape.end());
  const std::vector<int64_t> a_strides = RowMajorStrides(a_full);
  const std::vector<int64_t> b_strides = RowMajorStrides(b_full);
  for (size_t d = 0; d < rank; ++d) {
    p.shape.push_back(std::max(a_full[d], b_full[d]));
    p.a_strides.push_back(a_full[d] == 1 ? 0 : a_strides[d]);
    p.b_strides.push_back(b_full[d] == 1 ? 0 : b_strides[d]);
  }
  return p;
}

int64_t Elements(const std::vector<int64_t>& shape) {
  return shape == kScalarArg ? 1 : NumElements(shape);
}

// Equal, or both NaN, or within a few ulps (the weighted sum, squared
// difference and hard-swish round differently from the double reference).
void ExpectClose(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i])) {
      ASSERT_TRUE(std::isnan(actual[i])) << "element " << i << ": got " << actual[i];
      continue;
    }
    if (actual[i] == expected[i]) continue;  // infinities too
    ASSERT_LE(std::fabs(actual[i] - expected[i]), 1e-6f + 1e-6f * std::fabs(expected[i]))
        << "element " << i << ": got " << actual[i] << ", want " << expected[i];
  }
}

const std::vector<std::shared_ptr<ThreadPool>>& Pools() {
  static const std::vector<std::shared_ptr<ThreadPool>> pools = testing::PoolsUnderTest();
  return pools;
}

std::string Describe(const Case& c, const KernelTable& table, const ThreadPool* pool) {
  const auto shape = [](const std::vector<int64_t>& s) {
    if (s == kScalarArg) return std::string("scalar");
    std::string text = "[";
    for (size_t i = 0; i < s.size(); ++i) text += (i ? "," : "") + std::to_string(s[i]);
    return text + "]";
  };
  return std::string(table.name) + " threads " + std::to_string(NumThreads(pool)) + " type " +
         std::to_string(static_cast<int>(c.type)) + (c.weighted ? " weighted" : "") + " " +
         shape(c.a_shape) + " op " + shape(c.b_shape) + " activation " +
         std::to_string(static_cast<int>(c.activation));
}

void Check(const Case& c, const std::vector<float>& a, const std::vector<float>& b) {
  const ref::EltwiseParams p = Params(c);
  const int64_t total = NumElements(p.shape);
  const float* b_data = ref::IsUnary(c.type) ? nullptr : b.data();
  std::vector<float> expected(total);
  ref::Eltwise(p, a.data(), b_data, expected.data());
  for (const KernelTable* table : testing::TablesUnderTest()) {
    const std::unique_ptr<EltwiseKernel> kernel = EltwiseKernel::Create(*table, p);
    ASSERT_NE(kernel, nullptr);
    for (const auto& pool : Pools()) {
      SCOPED_TRACE(Describe(c, *table, pool.get()));
      std::vector<float> output(total, std::nanf(""));
      kernel->Run(a.data(), b_data, output.data(), pool.get());
      ExpectClose(output, expected);
      // In place over whichever operand has the output's layout.
      if (static_cast<int64_t>(a.size()) == total) {
        std::vector<float> in_place = a;
        kernel->Run(in_place.data(), b_data, in_place.data(), pool.get());
        ExpectClose(in_place, expected);
      }
      if (b_data != nullptr && static_cast<int64_t>(b.size()) == total) {
        std::vector<float> in_place = b;
        kernel->Run(a.data(), in_place.data(), in_place.data(), pool.get());
        ExpectClose(in_place, expected);
      }
    }
  }
}

void Check(const Case& c, uint32_t seed) {
  const std::vector<float> a = RandomFloats(Elements(c.a_shape), seed);
  const std::vector<float> b = RandomFloats(Elements(c.b_shape), seed + 1);
  Check(c, a, b);
}

// The broadcast forms around an [n, c, h, w] output.
std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> Forms(int64_t n, int64_t c,
                                                                         int64_t h, int64_t w) {
  const std::vector<int64_t> full = {n, c, h, w};
  return {
      {full, full},                  // equal shapes
      {full, {1, c, 1, 1}},          // per channel
      {full, {c, 1, 1}},             // per channel, lower rank
      {{1, c, 1, 1}, full},          // per channel, first operand
      {full, {n, c, 1, 1}},          // per plane
      {full, {1, 1, h, w}},          // one plane for every channel
      {full, {w}},                   // per column
      {full, {1}},                   // scalar tensor
      {{1}, full},                   // scalar tensor, first operand
      {full, kScalarArg},            // scalar_input
      {kScalarArg, full},            // scalar_input with scalar_input_index 0
      {{n, 1, h, 1}, {1, c, 1, w}},  // both broadcast
  };
}

// Every width from 1 to 17 and 31 to 33 and every height from 1 to 5 in
// every broadcast form; types, activations, channels and batch rotate.
TEST(EltwiseKernelTest, EveryBroadcastFormAndWidth) {
  const int64_t channel_counts[] = {1, 2, 3, 17};
  int index = 0;
  for (int64_t h = 1; h <= 5; ++h) {
    for (int64_t w = 1; w <= 33; w = w == 17 ? 31 : w + 1) {
      ++index;
      const int64_t n = 1 + index % 2, c = channel_counts[index / 2 % 4];
      int form_index = 0;
      for (const auto& [a_shape, b_shape] : Forms(n, c, h, w)) {
        ++form_index;
        Case test;
        test.type = kTypes[(index + form_index) % kTypeCount];
        test.activation = kActivations[(index + 3 * form_index) % kActivationCount];
        test.a_shape = a_shape;
        test.b_shape = ref::IsUnary(test.type) ? a_shape : b_shape;
        if (ref::IsUnary(test.type) && a_shape == kScalarArg) test.a_shape = b_shape;
        test.weighted = test.type == EltwiseType::SUM && index % 2 == 0;
        Check(test, 1000 + index);
      }
    }
  }
}

TEST(EltwiseKernelTest, EveryTypeAndActivationInEveryForm) {
  for (const auto& [a_shape, b_shape] : Forms(2, 3, 3, 7)) {
    for (EltwiseType type : kTypes) {
      if (ref::IsUnary(type) && (a_shape != b_shape)) continue;
      for (ActivationType activation : kActivations) {
        for (bool weighted : {false, true}) {
          if (weighted && type != EltwiseType::SUM) continue;
          Case test;
          test.type = type;
          test.a_shape = a_shape;
          test.b_shape = b_shape;
          test.activation = activation;
          test.weighted = weighted;
          Check(test, 2000);
        }
      }
    }
  }
}

// Big enough for 2 and 3 threads (8192 elements each at least), with
// thread ranges that start inside rows.
TEST(EltwiseKernelTest, TensorsSplitOverThreads) {
  int index = 0;
  for (const auto& [a_shape, b_shape] : Forms(2, 17, 31, 33)) {
    for (EltwiseType type : {EltwiseType::SUM, EltwiseType::SUB, EltwiseType::DIV}) {
      Case test;
      test.type = type;
      test.a_shape = a_shape;
      test.b_shape = b_shape;
      test.activation = kActivations[index++ % kActivationCount];
      Check(test, 3000 + index);
    }
  }
}

// NaN, infinities and signed zeros: MIN and MAX give NaN when either operand
// is NaN, and divisions by zero follow IEEE, as in the reference.
TEST(EltwiseKernelTest, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const std::vector<float> values = {nan, 1.f, -inf, 0.f, -0.f, inf, -2.5f, 3e38f, 1e-30f};
  std::vector<float> a, b;
  for (float x : values) {
    for (float y : values) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const int64_t count = static_cast<int64_t>(a.size());
  for (EltwiseType type : kTypes) {
    Case test;
    test.type = type;
    test.a_shape = test.b_shape = {count};
    SCOPED_TRACE(static_cast<int>(type));
    Check(test, a, b);
  }
}

// Through the op, on runtimes of 1 to 3 threads and with none: residual
// additions with a fused RELU, per-channel and scalar operands, and POW,
// which stays with the reference.
TEST(EltwiseKernelTest, OpMatchesTheReferenceWithAndWithoutARuntime) {
  const std::vector<int64_t> shape = {2, 17, 31, 33};
  const std::vector<float> x = RandomFloats(NumElements(shape), 81, 0.1f, 2.f);
  const std::vector<float> y = RandomFloats(NumElements(shape), 82);
  const std::vector<float> channel = RandomFloats(17, 83);
  for (int threads : {0, 1, 2, 3}) {
    std::unique_ptr<testing::TestCpuRuntime> runtime;
    if (threads > 0) runtime = std::make_unique<testing::TestCpuRuntime>(threads);
    for (int form = 0; form < 4; ++form) {
      SCOPED_TRACE(::testing::Message() << "threads " << threads << " form " << form);
      testing::OpTester tester("Eltwise", RegisterEltwise);
      tester.WithRuntime(runtime.get()).Input("x", shape, x).Output("z");
      Case c;
      c.a_shape = shape;
      if (form == 0) {
        tester.Input("y", shape, y).Arg("type", 0).Arg("activation", "RELU");
        c.b_shape = shape;
        c.activation = ActivationType::RELU;
      } else if (form == 1) {
        tester.Weight("c", {17, 1, 1}, channel).Arg("type", 2);
        c.type = EltwiseType::PROD;
        c.b_shape = {17, 1, 1};
      } else if (form == 2) {
        tester.Arg("type", 1).Arg("scalar_input", 0.5f).Arg("scalar_input_index", 0);
        c.type = EltwiseType::SUB;
        c.a_shape = kScalarArg;
        c.b_shape = shape;
      } else {
        tester.Input("y", shape, y).Arg("type", 9);
        c.type = EltwiseType::POW;
        c.b_shape = shape;
      }
      const MaceStatus status = tester.Run();
      ASSERT_TRUE(status.ok()) << status.information();
      const ref::EltwiseParams p = Params(c);
      const float half = 0.5f;
      const float* a = form == 2 ? &half : x.data();
      const float* b = form == 1 ? channel.data() : (form == 2 ? x.data() : y.data());
      std::vector<float> expected(NumElements(shape));
      ref::Eltwise(p, a, b, expected.data());
      if (form == 3) {
        testing::ExpectNear(tester.OutputData("z"), expected, 0.f, 0.f);
      } else {
        ExpectClose(tester.OutputData("z"), expected);
      }
      EXPECT_EQ(tester.op().InPlaceInput(), 0);
    }
  }
}

TEST(EltwiseKernelTest, PowStaysWithTheReference) {
  for (const KernelTable* table : testing::TablesUnderTest()) {
    Case c;
    c.type = EltwiseType::POW;
    c.a_shape = c.b_shape = {4};
    EXPECT_EQ(EltwiseKernel::Create(*table, Params(c)), nullptr);
    c.type = EltwiseType::SUM;
    EXPECT_NE(EltwiseKernel::Create(*table, Params(c)), nullptr);
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
