// FullyConnected and MatMul on the GEMM, through the ops on runtimes with
// 1 to 3 threads, against the reference kernels.
#include "mace/ops/ref/fully_connected.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/ref/mat_mul.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::ExpectNear;
using testing::RandomFloats;

TEST(FullyConnectedFastTest, BatchesFeaturesAndActivations) {
  for (int64_t batch : {1, 2, 7}) {
    for (int64_t in_features : {1, 15, 16, 17, 63, 64, 65, 300}) {
      for (int64_t out_features : {1, 11, 16, 33}) {
        for (const char* activation : {"NOOP", "RELU6", "TANH"}) {
          ref::FullyConnectedParams p;
          p.batch = batch;
          p.in_features = in_features;
          p.out_features = out_features;
          Activation act;
          act.type = std::string(activation) == "RELU6"
                         ? ActivationType::RELUX
                         : (std::string(activation) == "TANH" ? ActivationType::TANH
                                                              : ActivationType::NOOP);
          p.activation = act;
          const auto input = RandomFloats(batch * in_features, 61);
          const auto weight = RandomFloats(out_features * in_features, 62);
          const auto bias = RandomFloats(out_features, 63);
          std::vector<float> expected(batch * out_features);
          ref::FullyConnected(p, input.data(), weight.data(), bias.data(), expected.data());
          for (int threads : {1, 2, 3}) {
            SCOPED_TRACE(::testing::Message() << batch << " " << in_features << " " << out_features
                                              << " " << activation << " threads " << threads);
            testing::TestCpuRuntime runtime(threads);
            testing::OpTester tester("FullyConnected", RegisterFullyConnected);
            tester.WithRuntime(&runtime)
                .Input("input", {batch, in_features}, input)
                .Weight("weight", {out_features, in_features}, weight)
                .Weight("bias", {out_features}, bias)
                .Output("output")
                .Arg("activation", activation);
            ASSERT_TRUE(tester.Run().ok());
            const float tolerance = 1e-5f + 2e-6f * in_features;
            ExpectNear(tester.OutputData("output"), expected, tolerance, 1e-5f);
          }
        }
      }
    }
  }
}

// Around the active table's tile (the weight is packed in panels of nr
// output features; the batch is the GEMM's rows) and its kc block.
TEST(FullyConnectedFastTest, AroundTheActiveTile) {
  const KernelTable* table = ActiveKernelTable();
  if (table == nullptr) GTEST_SKIP() << "reference kernels only";
  const int64_t mr = table->mr, nr = table->nr, kc = table->kc;
  for (int64_t batch : {int64_t{1}, mr - 1, mr, mr + 1}) {
    for (int64_t out_features : {nr - 1, nr, nr + 1}) {
      for (int64_t in_features : {int64_t{9}, kc, kc + 1}) {
        ref::FullyConnectedParams p;
        p.batch = batch;
        p.in_features = in_features;
        p.out_features = out_features;
        p.activation.type = ActivationType::RELUX;
        p.activation.max_limit = 6.f;
        const auto input = RandomFloats(batch * in_features, 64);
        const auto weight = RandomFloats(out_features * in_features, 65);
        const auto bias = RandomFloats(out_features, 66);
        std::vector<float> expected(batch * out_features);
        ref::FullyConnected(p, input.data(), weight.data(), bias.data(), expected.data());
        for (int threads : {1, 2}) {
          SCOPED_TRACE(::testing::Message()
                       << table->name << " batch " << batch << " in " << in_features << " out "
                       << out_features << " threads " << threads);
          testing::TestCpuRuntime runtime(threads);
          testing::OpTester tester("FullyConnected", RegisterFullyConnected);
          tester.WithRuntime(&runtime)
              .Input("input", {batch, in_features}, input)
              .Weight("weight", {out_features, in_features}, weight)
              .Weight("bias", {out_features}, bias)
              .Output("output")
              .Arg("activation", "RELU6");
          ASSERT_TRUE(tester.Run().ok());
          const float tolerance = 1e-5f + 2e-6f * in_features;
          ExpectNear(tester.OutputData("output"), expected, tolerance, 1e-5f);
        }
      }
    }
  }
}

void CheckMatMul(std::vector<int64_t> a_shape, std::vector<int64_t> b_shape, bool transpose_a,
                 bool transpose_b, bool b_is_weight) {
  const auto a = RandomFloats(testing::NumElements(a_shape), 71);
  const auto b = RandomFloats(testing::NumElements(b_shape), 72);
  // The reference through the op with fast kernels off would need the
  // environment; the broadcast is simple enough to compute here.
  const int64_t m = transpose_a ? a_shape.back() : a_shape[a_shape.size() - 2];
  const int64_t k = transpose_a ? a_shape[a_shape.size() - 2] : a_shape.back();
  const int64_t n = transpose_b ? b_shape[b_shape.size() - 2] : b_shape.back();
  const int64_t a_count = testing::NumElements(a_shape) / (m * k);
  const int64_t b_count = testing::NumElements(b_shape) / (k * n);
  ref::MatMulParams p;
  p.m = m;
  p.k = k;
  p.n = n;
  p.transpose_a = transpose_a;
  p.transpose_b = transpose_b;
  const int64_t batches = std::max(a_count, b_count);
  p.batch_shape = {batches};
  p.a_batch_strides = {a_count == 1 ? 0 : 1};
  p.b_batch_strides = {b_count == 1 ? 0 : 1};
  std::vector<float> expected(batches * m * n);
  ref::MatMul(p, a.data(), b.data(), nullptr, expected.data());
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message()
                 << "m " << m << " k " << k << " n " << n << " ta " << transpose_a << " tb "
                 << transpose_b << " weight " << b_is_weight << " threads " << threads);
    testing::TestCpuRuntime runtime(threads);
    testing::OpTester tester("MatMul", RegisterMatMul);
    tester.WithRuntime(&runtime).Input("a", a_shape, a);
    if (b_is_weight) {
      tester.Weight("b", b_shape, b);
    } else {
      tester.Input("b", b_shape, b);
    }
    tester.Output("output")
        .Arg("transpose_a", transpose_a ? 1 : 0)
        .Arg("transpose_b", transpose_b ? 1 : 0);
    ASSERT_TRUE(tester.Run().ok());
    ExpectNear(tester.OutputData("output"), expected, 1e-4f, 1e-5f);
  }
}

TEST(MatMulFastTest, LayoutsBroadcastAndWeights) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (bool weight : {false, true}) {
        CheckMatMul({3, ta ? 19 : 7, ta ? 7 : 19}, {tb ? 17 : 19, tb ? 19 : 17}, ta, tb, weight);
        CheckMatMul({ta ? 33 : 1, ta ? 1 : 33}, {tb ? 5 : 33, tb ? 33 : 5}, ta, tb, weight);
        CheckMatMul({2, ta ? 3 : 13, ta ? 13 : 3}, {2, tb ? 16 : 3, tb ? 3 : 16}, ta, tb, false);
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
