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

// A CPU op whose work may be a blocked windowed pooling that a convolution
// absorbs (the net's (Conv2D, Pooling) fusion; cpu/conv_2d_pool_blocked.h):
// Pooling's kernel (PoolingCpuReader).
class BlockedPoolingReader {
 public:
  virtual ~BlockedPoolingReader() = default;
  // Whether the op runs as a blocked windowed max or average pooling, and
  // if so its shapes. Valid after Prepare, before UseStorage.
  virtual bool BlockedWindowPooling(ref::PoolingParams* params) const = 0;
};

// Max or average pooling, windowed or global, blocked input and output.
class BlockedPooling {
 public:
  static bool Supports(const KernelTable& table, const ref::PoolingParams& params, bool global);
  BlockedPooling(const KernelTable& table, const ref::PoolingParams& params, bool global);
  void Run(const float* input, float* output, ThreadPool* pool) const;
  // Windowed: output rows [y0, y1) of one plane into `out_plane`, on the
  // calling thread, from input rows held from row r0 on at `in_rows` (the
  // plane's rows that those windows read, in_w positions each).
  void RunRows(const float* in_rows, int64_t r0, int64_t y0, int64_t y1, float* out_plane) const;
  const ref::PoolingParams& params() const { return params_; }

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
