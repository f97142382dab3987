// Helpers shared by the fast-kernel tests: the kernel tables to test, the
// thread pools to test them with, and reference math in double.
#ifndef MACE_OPS_CPU_KERNEL_TEST_UTIL_H_
#define MACE_OPS_CPU_KERNEL_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "mace/core/runtime.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/runtimes/cpu/cpu_runtime.h"
#include "mace/runtimes/cpu/scratch_buffer.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {
namespace testing {

// Every fast kernel family this build and CPU can run (empty on a CPU with
// no SIMD kernels: the tests then have nothing to compare).
inline std::vector<const KernelTable*> TablesUnderTest() {
  std::vector<const KernelTable*> tables;
  for (KernelIsa isa : {KernelIsa::kAvx2Fma, KernelIsa::kAvx512, KernelIsa::kNeon}) {
    if (const KernelTable* table = KernelTableFor(isa)) tables.push_back(table);
  }
  return tables;
}

// No pool (the single-thread path), and pools of 2 and 3 threads, so static
// splits with uneven chunks are covered too.
inline std::vector<std::shared_ptr<ThreadPool>> PoolsUnderTest() {
  return {nullptr, std::make_shared<ThreadPool>(2), std::make_shared<ThreadPool>(3)};
}

// A CPU runtime with an exact thread count (CpuRuntime clamps the counts it
// chooses to the cores present), for op-level tests.
class TestCpuRuntime : public CpuRuntime {
 public:
  explicit TestCpuRuntime(int threads) : CpuRuntime(std::make_unique<ThreadPool>(threads)) {}
};

}  // namespace testing
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_KERNEL_TEST_UTIL_H_
