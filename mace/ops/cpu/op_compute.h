// What a fast kernel takes from an op's context: the runtime's thread pool
// and scratch memory. Ops also run without a CPU runtime (unit tests, other
// devices' fallbacks); they then run single-threaded with scratch of their own.
#ifndef MACE_OPS_CPU_OP_COMPUTE_H_
#define MACE_OPS_CPU_OP_COMPUTE_H_

#include <cstdint>

#include "mace/core/operation.h"
#include "mace/core/runtime.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/scratch_buffer.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

inline ThreadPool* ContextPool(const OpContext* context) {
  return context != nullptr && context->runtime != nullptr ? context->runtime->thread_pool()
                                                           : nullptr;
}

// Where Prepare puts packed weights; null means the kernel keeps its own.
inline PersistentArena* ContextArena(const OpContext* context) {
  return context != nullptr && context->runtime != nullptr ? context->runtime->persistent_arena()
                                                           : nullptr;
}

// Scratch memory for one op: reserved in Prepare, used in Run.
class OpScratch {
 public:
  MaceStatus Reserve(OpContext* context, int64_t bytes) {
    if (!Buffer(context)->Reserve(bytes)) {
      return MaceStatus(MaceStatus::MACE_OUT_OF_RESOURCES,
                        "cannot allocate " + std::to_string(bytes) + " bytes of kernel scratch");
    }
    return MaceStatus();
  }
  float* Get(OpContext* context) { return static_cast<float*>(Buffer(context)->data()); }

 private:
  ScratchBuffer* Buffer(OpContext* context) {
    ScratchBuffer* shared =
        context != nullptr && context->runtime != nullptr ? context->runtime->scratch() : nullptr;
    return shared != nullptr ? shared : &own_;
  }

  ScratchBuffer own_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_OP_COMPUTE_H_
