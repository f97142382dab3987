// Softmax's uint8 CPU kernel against ref::quantized::Softmax, bit for bit:
// the axis last (slices of 1 to 1500 values) and in the middle (strided
// slices), input scales that make the exponential table steep and flat,
// constant slices, on no pool and on pools of 2 and 3 threads.
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "mace/ops/cpu/kernel_test_util.h"
#include "mace/ops/ref/quantized/softmax.h"
#include "mace/ops/registry.h"
#include "mace/ops/testing/op_tester.h"

namespace mace {
namespace ops {
namespace {

using testing::OpTester;
using testing::TestCpuRuntime;

TEST(SoftmaxUint8CpuTest, MatchesReferenceBitForBit) {
  struct Shape {
    int64_t outer, axis_size, inner;
  };
  const Shape shapes[] = {{3, 1, 1},    {7, 10, 1}, {2, 300, 1}, {13, 400, 1},
                          {1, 1500, 1}, {2, 9, 3},  {3, 33, 7}};
  const std::vector<std::shared_ptr<TestCpuRuntime>> runtimes = testing::RuntimesUnderTest();
  uint32_t seed = 6100;
  for (const Shape& s : shapes) {
    for (float scale : {0.003f, 0.07f, 0.5f}) {
      for (bool constant : {false, true}) {
        ++seed;
        SCOPED_TRACE(std::to_string(s.outer) + "x" + std::to_string(s.axis_size) + "x" +
                     std::to_string(s.inner) + " scale " + std::to_string(scale) +
                     (constant ? " constant" : "") + " seed " + std::to_string(seed));
        const int64_t count = s.outer * s.axis_size * s.inner;
        std::mt19937 rng(seed);
        std::vector<uint8_t> input =
            testing::RandomValues<uint8_t>(count, constant ? 77 : 0, constant ? 77 : 255, &rng);
        ref::SoftmaxParams p;
        p.outer = s.outer;
        p.axis_size = s.axis_size;
        p.inner = s.inner;
        std::vector<uint8_t> expected(count);
        ref::quantized::Softmax(p, ref::quantized::MakeSoftmaxTable(scale), input.data(),
                                expected.data());
        for (size_t r = 0; r < runtimes.size(); ++r) {
          SCOPED_TRACE("runtime " + std::to_string(r) + " (none, 2 or 3 threads)");
          OpTester tester("Softmax", RegisterSoftmax);
          tester.KernelType(DT_UINT8)
              .QuantizedInput("x", {s.outer, s.axis_size, s.inner}, input, scale, 140)
              .Output("y", DT_UINT8)
              .Arg("axis", 1);
          if (runtimes[r] != nullptr) tester.WithRuntime(runtimes[r].get());
          const MaceStatus status = tester.Run();
          ASSERT_TRUE(status.ok()) << status.information();
          ASSERT_EQ(tester.OutputBytes("y"), expected);
        }
      }
    }
  }
}

}  // namespace
}  // namespace ops
}  // namespace mace
