// Activation's CPU kernel for SIGMOID and TANH (the transformer family's
// vector kernels, split over the pool) against the definitions in double,
// within the family's bounds (cpu/transformer_kernels.h): tails, runs that
// cross the kernel's parallel pieces, both tails of each function and the
// special values, on no pool and on pools of 2 and 3 threads (the kernels
// in place: transformer_kernels_test).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::OpTester;
using testing::RandomFloats;
using testing::TestCpuRuntime;

double Reference(const std::string& type, double x) {
  return type == "SIGMOID" ? 1.0 / (1.0 + std::exp(-x)) : std::tanh(x);
}

double Bound(const std::string& type, double x, double expected) {
  return (type == "SIGMOID" ? 1e-6 + 5e-8 * std::fmin(std::fabs(x), 100.0) : 2e-6) *
             std::fabs(expected) +
         std::numeric_limits<float>::min();
}

TEST(ActivationCpuTest, SigmoidAndTanhMatchTheDefinitions) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::shared_ptr<TestCpuRuntime>> runtimes = testing::RuntimesUnderTest();
  uint32_t seed = 5200;
  for (const std::string type : {"SIGMOID", "TANH"}) {
    for (int64_t count : {1, 7, 16, 17, 16385, 40003}) {
      for (size_t r = 0; r < runtimes.size(); ++r) {
        ++seed;
        SCOPED_TRACE(type + " count " + std::to_string(count) + " runtime " + std::to_string(r) +
                     " seed " + std::to_string(seed));
        std::vector<float> x = RandomFloats(count, seed, -12.f, 12.f);
        const float special[] = {0.f, -0.f, inf, -inf, 0.39f, -0.41f, 95.f, -95.f, 1e-30f, -87.f};
        for (int64_t i = 0; i < count; i += 97) x[i] = special[(i / 97) % std::size(special)];
        if (count > 5) x[5] = std::nanf("");
        OpTester tester("Activation", RegisterActivation);
        tester.Input("x", {count}, x).Output("y").Arg("activation", type);
        if (runtimes[r] != nullptr) tester.WithRuntime(runtimes[r].get());
        const MaceStatus status = tester.Run();
        ASSERT_TRUE(status.ok()) << status.information();
        const std::vector<float> y = tester.OutputData("y");
        ASSERT_EQ(static_cast<int64_t>(y.size()), count);
        for (int64_t i = 0; i < count; ++i) {
          const double want = Reference(type, x[i]);
          if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(y[i])) << "at " << i;
          } else {
            ASSERT_LE(std::fabs(y[i] - want), Bound(type, x[i], want))
                << "at " << i << ": " << type << "(" << x[i] << ") = " << y[i] << ", want " << want;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
