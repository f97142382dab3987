// Helpers shared by the fast-kernel tests: the kernel tables to test, the
// thread pools to test them with, and reference math in double.
#ifndef MACE_OPS_CPU_KERNEL_TEST_UTIL_H_
#define MACE_OPS_CPU_KERNEL_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mace/core/runtime.h"
#include "mace/ops/common/quantize.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/runtimes/cpu/cpu_runtime.h"
#include "mace/runtimes/cpu/scratch_buffer.h"
#include "mace/runtimes/cpu/thread_pool.h"
#include "mace/utils/testing/test_threads.h"

namespace mace {
namespace ops {
namespace testing {

// A tile kernel's activation, in plain C++.
inline float ActivateReference(float v, const TileEpilogue& epilogue) {
  if (epilogue.activation == kTileActClamp) return std::min(std::max(v, epilogue.lo), epilogue.hi);
  if (epilogue.activation == kTileActHardSwish) {
    return v * std::min(std::max(v + 3.f, 0.f), 6.f) / 6.f;
  }
  return v;
}

// Every fast kernel family this build and CPU can run (empty on a CPU with
// no SIMD kernels: the tests then have nothing to compare).
inline std::vector<const KernelTable*> TablesUnderTest() {
  std::vector<const KernelTable*> tables;
  for (KernelIsa isa : {KernelIsa::kAvx2Fma, KernelIsa::kAvx512, KernelIsa::kNeon}) {
    if (const KernelTable* table = KernelTableFor(isa)) tables.push_back(table);
  }
  return tables;
}

// A pool per count of TestThreadCounts (mace/utils/testing/test_threads.h; by
// default no pool, the single-thread path, and pools of 2 and 3 threads, so
// static splits with uneven chunks are covered too).
inline std::vector<std::shared_ptr<ThreadPool>> PoolsUnderTest() {
  std::vector<std::shared_ptr<ThreadPool>> pools;
  for (int threads : mace::testing::TestThreadCounts()) {
    pools.push_back(threads == 1 ? nullptr : std::make_shared<ThreadPool>(threads));
  }
  return pools;
}

// A CPU runtime with an exact thread count (CpuRuntime clamps the counts it
// chooses to the cores present), for op-level tests.
class TestCpuRuntime : public CpuRuntime {
 public:
  explicit TestCpuRuntime(int threads) : CpuRuntime(std::make_unique<ThreadPool>(threads)) {}
};

// A runtime per count of TestThreadCounts, for op-level tests: none (the
// op's own single-thread path) for 1, else a runtime with that many threads.
inline std::vector<std::shared_ptr<TestCpuRuntime>> RuntimesUnderTest() {
  std::vector<std::shared_ptr<TestCpuRuntime>> runtimes;
  for (int threads : mace::testing::TestThreadCounts()) {
    runtimes.push_back(threads == 1 ? nullptr : std::make_shared<TestCpuRuntime>(threads));
  }
  return runtimes;
}

// Random data for the uint8 kernel tests: `count` values of T uniform in
// [lo, hi].
template <typename T>
std::vector<T> RandomValues(int64_t count, int32_t lo, int32_t hi, std::mt19937* rng) {
  std::uniform_int_distribution<int32_t> value(lo, hi);
  std::vector<T> values(count);
  for (T& v : values) v = static_cast<T>(value(*rng));
  return values;
}

// The zero points and random requantization multipliers in [low, high) of
// a uint8 kernel (a ref::quantized::ConvQuantization): one multiplier per
// channel for int8 weights (zero point 0), one for all for uint8 weights.
template <typename ConvQuantization>
bool RandomQuantization(int32_t input_zp, int32_t weight_zp, bool int8, int64_t channels,
                        double low, double high, std::mt19937* rng, ConvQuantization* quant) {
  std::uniform_real_distribution<double> real(low, high);
  quant->input_zero_point = input_zp;
  quant->filter_zero_point = int8 ? 0 : weight_zp;
  quant->multipliers.clear();
  for (int64_t i = 0; i < (int8 ? channels : 1); ++i) {
    QuantizedMultiplier m;
    if (!MakeQuantizedMultiplier(real(*rng), "test", &m).ok()) return false;
    quant->multipliers.push_back(m);
  }
  return true;
}

// The uint8 output rule written out independently of common/quantize.h,
// for the tests' naive computations: the exact total saturated to int32,
// |x| * multiplier divided by 2^right_shift and rounded half away from
// zero by comparing twice the remainder with the divisor, the zero point
// added and the clamp applied.
inline uint8_t NaiveRequantize(int64_t x, const QuantizedMultiplier& m, const OutputClamp& clamp) {
  x = std::min<int64_t>(INT32_MAX, std::max<int64_t>(INT32_MIN, x));
  const int64_t magnitude = (x < 0 ? -x : x) * int64_t{m.multiplier};
  const int64_t divisor = int64_t{1} << m.right_shift;
  int64_t q = magnitude / divisor;
  if (2 * (magnitude % divisor) >= divisor) ++q;
  const int64_t value = clamp.zero_point + (x < 0 ? -q : q);
  return static_cast<uint8_t>(std::min<int64_t>(clamp.max, std::max<int64_t>(clamp.min, value)));
}

// Runs `run(pool, out)` with every pool of PoolsUnderTest and returns the
// first where `out` differs from `expected` ("" when none does).
template <typename Run>
std::string FirstMismatch(const std::vector<uint8_t>& expected, Run&& run) {
  std::vector<uint8_t> got(expected.size());
  for (const auto& pool : PoolsUnderTest()) {
    std::fill(got.begin(), got.end(), 0);
    run(pool.get(), got.data());
    for (size_t i = 0; i < expected.size(); ++i) {
      if (got[i] != expected[i]) {
        return "threads " + std::to_string(NumThreads(pool.get())) + " at " + std::to_string(i) +
               ": got " + std::to_string(got[i]) + ", expected " + std::to_string(expected[i]);
      }
    }
  }
  return "";
}

}  // namespace testing
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_KERNEL_TEST_UTIL_H_
