// The CPU runtime: host memory, the kernels' thread pool and their shared
// scratch buffer.
#ifndef MACE_RUNTIMES_CPU_CPU_RUNTIME_H_
#define MACE_RUNTIMES_CPU_CPU_RUNTIME_H_

#include <memory>
#include <string>

#include "mace/core/runtime.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/scratch_buffer.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {

class CpuRuntime : public Runtime {
 public:
  // num_threads <= 0 means one thread per core the policy allows.
  CpuRuntime(int num_threads, CPUAffinityPolicy policy)
      : num_threads_(num_threads), policy_(policy) {}
  DeviceType device_type() const override { return DeviceType::CPU; }
  std::string name() const override { return "CPU"; }
  MemoryType default_memory_type() const override { return MemoryType::CPU_BUFFER; }
  // Starts the thread pool.
  MaceStatus Init() override;
  // Binds the calling thread to the policy's cores, since it runs a share of
  // every parallel loop.
  MaceStatus BeforeRun() override;
  ThreadPool* thread_pool() override { return pool_.get(); }
  ScratchBuffer* scratch() override { return &scratch_; }
  PersistentArena* persistent_arena() override { return &persistent_; }
  void ReportMemory(MemoryReport* report) const override {
    report->persistent_bytes = persistent_.reserved_bytes();
    report->scratch_bytes = scratch_.size();
  }

  int num_threads() const { return pool_ != nullptr ? pool_->num_threads() : num_threads_; }
  CPUAffinityPolicy affinity_policy() const { return policy_; }

 private:
  int num_threads_;
  CPUAffinityPolicy policy_;
  std::unique_ptr<ThreadPool> pool_;
  ScratchBuffer scratch_;
  PersistentArena persistent_;
};

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_CPU_RUNTIME_H_
