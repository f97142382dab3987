// What a MaceContext holds, for the runtime providers that use it.
#ifndef MACE_LIBMACE_CONTEXT_IMPL_H_
#define MACE_LIBMACE_CONTEXT_IMPL_H_

#include <memory>

#include "mace/core/shared_arena.h"
#include "mace/public/mace.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {

class MaceContext::Impl {
 public:
  std::shared_ptr<ThreadPool> thread_pool;
  std::shared_ptr<SharedArena> arena = std::make_shared<SharedArena>();
  CPUAffinityPolicy policy = CPUAffinityPolicy::AFFINITY_NONE;
};

}  // namespace mace

#endif  // MACE_LIBMACE_CONTEXT_IMPL_H_
