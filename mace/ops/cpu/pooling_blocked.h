// Pooling on channel-blocked tensors (cpu/blocked_layout.h).
#ifndef MACE_OPS_CPU_POOLING_BLOCKED_H_
#define MACE_OPS_CPU_POOLING_BLOCKED_H_

#include <cstdint>
#include <vector>

#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/pooling.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// Max or average pooling, windowed or global, blocked input and output.
class BlockedPooling {
 public:
  static bool Supports(const KernelTable& table, const ref::PoolingParams& params, bool global);
  BlockedPooling(const KernelTable& table, const ref::PoolingParams& params, bool global);
  void Run(const float* input, float* output, ThreadPool* pool) const;

 private:
  const KernelTable& table_;
  ref::PoolingParams params_;
  BlockedWindow window_;
  WindowPlan plan_;  // windowed only
  bool global_;
  int block_;
  std::vector<int64_t> plane_offsets_;  // global: every position
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_BLOCKED_H_
