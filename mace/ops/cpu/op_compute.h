// What a fast kernel takes from an op's context: the CPU runtime's thread
// pool, scratch memory, persistent arena and kernel family. Ops also run
// without a CPU runtime (unit tests); they then run single-threaded with
// scratch of their own and the process's default kernel family.
#ifndef MACE_OPS_CPU_OP_COMPUTE_H_
#define MACE_OPS_CPU_OP_COMPUTE_H_

#include <algorithm>
#include <cstdint>

#include "mace/core/operation.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/runtimes/cpu/cpu_runtime.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/scratch_buffer.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

inline CpuRuntime* ContextCpu(const OpContext* context) {
  return context != nullptr ? AsCpuRuntime(context->runtime) : nullptr;
}

inline ThreadPool* ContextPool(const OpContext* context) {
  CpuRuntime* cpu = ContextCpu(context);
  return cpu != nullptr ? cpu->thread_pool() : nullptr;
}

// Where Prepare puts packed weights; null means the kernel keeps its own.
// (So does a re-plan for new input shapes: see OpContext::replanning.)
inline PersistentArena* ContextArena(const OpContext* context) {
  if (context != nullptr && context->replanning) return nullptr;
  CpuRuntime* cpu = ContextCpu(context);
  return cpu != nullptr ? cpu->persistent_arena() : nullptr;
}

// The kernel table of the engine's CPU runtime (chosen per engine in
// MaceEngineConfig), or the process default without one; null: reference.
inline const KernelTable* ContextKernelTable(const OpContext* context) {
  CpuRuntime* cpu = ContextCpu(context);
  if (cpu == nullptr) return ActiveKernelTable();
  if (cpu->fp16()) {
    const KernelTable* fp16 = Fp16KernelTableFor(cpu->kernel_isa());
    if (fp16 != nullptr) return fp16;
  }
  return KernelTableFor(cpu->kernel_isa());
}

// Runs map(first, last) over [0, count) in pieces of 16,384 values split
// across the context's pool (on the calling thread alone for one piece):
// element-wise kernels whose values are independent.
template <typename Map>
void RunInPieces(const OpContext* context, int64_t count, Map&& map) {
  constexpr int64_t kPieceValues = int64_t{1} << 14;
  const int64_t pieces = (count + kPieceValues - 1) / kPieceValues;
  ParallelFor(pieces > 1 ? ContextPool(context) : nullptr, pieces, [&](int64_t begin, int64_t end) {
    map(begin * kPieceValues, std::min(count, end * kPieceValues));
  });
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
    CpuRuntime* cpu = ContextCpu(context);
    ScratchBuffer* shared = cpu != nullptr ? cpu->scratch() : nullptr;
    return shared != nullptr ? shared : &own_;
  }

  ScratchBuffer own_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_OP_COMPUTE_H_
