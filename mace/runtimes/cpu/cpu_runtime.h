// The CPU runtime: host memory, the kernels' thread pool, their shared
// scratch buffer, the arena of weights they repack, and the kernel family
// (ISA) this engine's kernels use.
#ifndef MACE_RUNTIMES_CPU_CPU_RUNTIME_H_
#define MACE_RUNTIMES_CPU_CPU_RUNTIME_H_

#include <memory>
#include <string>

#include "mace/core/runtime.h"
#include "mace/runtimes/cpu/cpu_features.h"
#include "mace/runtimes/cpu/cpu_tunables.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/scratch_buffer.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {

class CpuRuntime : public Runtime {
 public:
  // num_threads <= 0 means one thread per core the policy allows. `isa` is
  // the kernel family every op of this engine uses.
  CpuRuntime(int num_threads, CPUAffinityPolicy policy, KernelIsa isa = ActiveKernelIsa())
      : num_threads_(num_threads), policy_(policy), isa_(isa) {}
  // With a pool of its own making (an exact thread count, for tests).
  CpuRuntime(std::unique_ptr<ThreadPool> pool, KernelIsa isa = ActiveKernelIsa())
      : num_threads_(pool->num_threads()),
        policy_(CPUAffinityPolicy::AFFINITY_NONE),
        isa_(isa),
        pool_(std::move(pool)) {}
  // With a pool other runtimes share (MaceContext), made for `policy`.
  CpuRuntime(std::shared_ptr<ThreadPool> pool, CPUAffinityPolicy policy, KernelIsa isa)
      : num_threads_(pool->num_threads()), policy_(policy), isa_(isa), pool_(std::move(pool)) {}

  DeviceType device_type() const override { return DeviceType::CPU; }
  std::string name() const override { return "CPU"; }
  MemoryType default_memory_type() const override { return MemoryType::CPU_BUFFER; }
  // Starts the thread pool.
  MaceStatus Init() override;
  MaceStatus Allocate(const MemoryExtent& extent, std::unique_ptr<Memory>* memory) override;
  // Binds the calling thread to the policy's cores, since it runs a share of
  // every parallel loop, and (at the first run) asks for huge pages for the
  // packed weights.
  MaceStatus BeforeRun() override;
  void ReportMemory(MemoryReport* report) const override {
    report->persistent_bytes = persistent_.reserved_bytes();
    report->scratch_bytes = scratch_.size();
  }

  ThreadPool* thread_pool() { return pool_.get(); }
  ScratchBuffer* scratch() { return &scratch_; }
  // Engine-lifetime memory for what ops derive from weights in Prepare
  // (packed panels, transformed filters).
  PersistentArena* persistent_arena() { return &persistent_; }
  KernelIsa kernel_isa() const { return isa_; }
  // Whether ops run their half-precision kernels (CPUPrecision::FP16 on a
  // CPU that has them; the provider decides before Init).
  bool fp16() const { return fp16_; }
  void set_fp16(bool fp16) { fp16_ = fp16; }
  // The engine's layout and fusion choices (MaceEngineConfig, with the
  // environment's overrides applied); current while the engine runs.
  const CpuTunables& tunables() const { return tunables_; }
  void set_tunables(const CpuTunables& tunables) { tunables_ = tunables; }
  int num_threads() const { return pool_ != nullptr ? pool_->num_threads() : num_threads_; }
  CPUAffinityPolicy affinity_policy() const { return policy_; }

 private:
  int num_threads_;
  CPUAffinityPolicy policy_;
  KernelIsa isa_;
  bool fp16_ = false;
  CpuTunables tunables_ = WithDebugOverrides(CpuTunables());
  std::shared_ptr<ThreadPool> pool_;
  ScratchBuffer scratch_;
  PersistentArena persistent_;
};

// The CPU runtime behind an op's runtime, or null (no runtime, or another
// device's).
inline CpuRuntime* AsCpuRuntime(Runtime* runtime) {
  return runtime != nullptr && runtime->device_type() == DeviceType::CPU
             ? dynamic_cast<CpuRuntime*>(runtime)
             : nullptr;
}

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_CPU_RUNTIME_H_
