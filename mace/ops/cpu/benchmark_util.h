// What the kernel benchmarks share: the kernel table this CPU would use, a
// thread pool of the size a benchmark asks for, and kernel scratch as the
// runtime allocates it.
#ifndef MACE_OPS_CPU_BENCHMARK_UTIL_H_
#define MACE_OPS_CPU_BENCHMARK_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/testing/op_tester.h"
#include "mace/runtimes/cpu/cpu_features.h"
#include "mace/runtimes/cpu/scratch_buffer.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// The table the ops would use: the best this CPU has, or the family named by
// MACE_CPU_KERNELS (e.g. MACE_CPU_KERNELS=avx2 on an AVX-512 host).
inline const KernelTable* BestTable() { return ActiveKernelTable(); }

// The table of one kernel family, or null after skipping the benchmark on a
// CPU without it.
inline const KernelTable* TableOrSkip(benchmark::State& state, KernelIsa isa) {
  const KernelTable* table = KernelTableFor(isa);
  if (table == nullptr) state.SkipWithError("this CPU lacks these kernels");
  return table;
}

// Registers fn(state, isa) as `name`/<label> for every kernel family with a
// table on this build and CPU (KernelTableFor), labelled avx2, avx512 and
// neon; returns the registrations, for their arguments.
template <typename Fn>
std::vector<benchmark::internal::Benchmark*> RegisterPerIsa(const std::string& name, Fn fn) {
  struct Family {
    const char* label;
    KernelIsa isa;
  };
  static const Family kFamilies[] = {
      {"avx2", KernelIsa::kAvx2Fma}, {"avx512", KernelIsa::kAvx512}, {"neon", KernelIsa::kNeon}};
  std::vector<benchmark::internal::Benchmark*> registered;
  for (const Family& family : kFamilies) {
    if (KernelTableFor(family.isa) == nullptr) continue;
    registered.push_back(
        benchmark::RegisterBenchmark((name + "/" + family.label).c_str(), fn, family.isa));
  }
  return registered;
}

// One thread runs on the caller alone, with no pool.
inline std::unique_ptr<ThreadPool> BenchmarkPool(int threads) {
  return threads > 1 ? std::make_unique<ThreadPool>(threads) : nullptr;
}

// `bytes` of scratch in `buffer`, aligned as the runtime's so that per-thread
// regions start on boundaries of their own (see kThreadRegionBytes: a
// misaligned buffer lets two threads' regions share a pair of cache lines);
// null after skipping the benchmark when memory ran out.
inline float* ScratchOrSkip(benchmark::State& state, ScratchBuffer* buffer, int64_t bytes) {
  if (buffer->Reserve(bytes)) return static_cast<float*>(buffer->data());
  state.SkipWithError("out of memory");
  return nullptr;
}

// Allocates on 64-byte boundaries, as the runtime's arenas do. A large
// std::vector<float> starts 16 bytes into its page, so each 64-byte load
// and store of a blocked kernel would span two cache lines and the
// benchmark would time a layout the engine never runs.
template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{64};
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}  // NOLINT: rebinding
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const CacheLineAllocator<U>&) const {
    return false;
  }
};

using AlignedFloats = std::vector<float, CacheLineAllocator<float>>;

// testing::RandomFloats, in an aligned buffer.
inline AlignedFloats AlignedRandomFloats(int64_t count, uint32_t seed) {
  const std::vector<float> values = testing::RandomFloats(count, seed);
  return AlignedFloats(values.begin(), values.end());
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_BENCHMARK_UTIL_H_
