#include "mace/runtimes/cpu/cpu_runtime.h"

#include <sched.h>

#include "mace/runtimes/cpu/cpu_features.h"
#include "mace/utils/logging.h"
#include "mace/utils/status.h"

namespace mace {

MaceStatus CpuRuntime::Init() {
  if (pool_ == nullptr) pool_ = ThreadPool::Create(num_threads_, policy_);
  persistent_.set_populate_small_pages(pool_->num_threads() == 1);
  VLOG(1) << "CPU runtime: " << pool_->num_threads() << " thread(s), kernels "
          << KernelIsaName(isa_);
  return MaceStatus();
}

MaceStatus CpuRuntime::Allocate(const MemoryExtent& extent, std::unique_ptr<Memory>* memory) {
  MACE_UNSUPPORTED_IF(extent.type != MemoryType::CPU_BUFFER, "the CPU runtime has no ",
                      MemoryTypeName(extent.type), " memory");
  *memory = NewHostMemory(MemoryType::CPU_BUFFER, extent.bytes);
  if (*memory == nullptr) {
    return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                      StrCat("cannot allocate ", extent.bytes, " bytes of CPU memory"));
  }
  return MaceStatus();
}

MaceStatus CpuRuntime::BeforeRun() {
  // The weights are packed by now (see PersistentArena::AdviseHugePages).
  if (!persistent_.huge_pages_advised()) persistent_.AdviseHugePages();
  if (pool_ == nullptr || pool_->cores().empty()) return MaceStatus();
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int core : pool_->cores()) CPU_SET(core, &set);
  // Failure only costs speed (e.g. a cpuset that forbids the cores), so it
  // does not fail the run.
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    VLOG(1) << "could not bind the calling thread to the policy's cores";
  }
  return MaceStatus();
}

}  // namespace mace
