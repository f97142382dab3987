#ifndef MACE_RUNTIMES_CPU_CPU_RUNTIME_H_
#define MACE_RUNTIMES_CPU_CPU_RUNTIME_H_

#include <string>

#include "mace/core/runtime.h"

namespace mace {

class CpuRuntime : public Runtime {
 public:
  CpuRuntime(int num_threads, CPUAffinityPolicy policy)
      : num_threads_(num_threads), policy_(policy) {}
  DeviceType device_type() const override { return DeviceType::CPU; }
  std::string name() const override { return "CPU"; }
  MemoryType default_memory_type() const override { return MemoryType::CPU_BUFFER; }
  int num_threads() const { return num_threads_; }
  CPUAffinityPolicy affinity_policy() const { return policy_; }

 private:
  int num_threads_;
  CPUAffinityPolicy policy_;
};

}  // namespace mace

#endif  // MACE_RUNTIMES_CPU_CPU_RUNTIME_H_
