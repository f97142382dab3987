// Fast Pooling: max and average over 2x2 or 3x3 windows at stride 1 or 2 on
// each axis (undilated; any padding up to kMaxPoolingPad, ceil-mode output
// sizes and count_include_pad as in ref::Pooling), and global pooling.
//
// A window is separable, and so is everything that depends on where it
// lies: Prepare works out, for every output row, which input rows the window
// covers, and for average pooling a table of 1 / divisor for every output
// (the divisor is rows counted x columns counted, whether or not padding
// counts). Each thread then reduces input rows into a line whose padding
// cells hold the identity (-inf or 0), so the ISA kernel computes every
// output with whole vectors and no border cases. Work is split over
// (plane, output row) pairs.
//
// Global pooling reduces each plane with a vector sum or max; planes are
// split over threads.
#ifndef MACE_OPS_CPU_POOLING_KERNEL_H_
#define MACE_OPS_CPU_POOLING_KERNEL_H_

#include <cstdint>
#include <vector>

#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/pooling.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

// Wider padding only makes windows of padding alone; the reference handles it.
constexpr int64_t kMaxPoolingPad = 64;

class PoolingKernel {
 public:
  static bool Supports(const KernelTable& table, const ref::PoolingParams& params);

  PoolingKernel(const KernelTable& table, const ref::PoolingParams& params);
  // The row windows point into the scale table.
  PoolingKernel(const PoolingKernel&) = delete;
  PoolingKernel& operator=(const PoolingKernel&) = delete;

  // Scratch Run needs when the pool has `threads` threads.
  int64_t ScratchBytes(int threads) const;

  // Arguments as in ref::Pooling; output must not alias input. `scratch`
  // holds ScratchBytes(NumThreads(pool)) bytes.
  void Run(const float* input, float* output, ThreadPool* pool, float* scratch) const;

 private:
  // A window that is the whole plane.
  static bool IsGlobal(const ref::PoolingParams& params);
  void RunGlobal(const float* input, float* output, ThreadPool* pool) const;
  void ZeroEmptyColumns(float* out, int64_t rows) const;

  ref::PoolingParams params_;
  bool global_ = false;
  bool average_ = false;
  PoolingBandKernel band_kernel_ = nullptr;
  PlaneReduceKernel plane_kernel_ = nullptr;
  std::vector<PoolingRowWindow> windows_;  // one per output row
  // Average: for each count of window rows c (0..kernel_h), out_w factors
  // 1 / (c x columns counted) at c * out_w; 0 where nothing counts.
  std::vector<float> scales_;
  int64_t line_floats_ = 0;  // one thread's line, whole thread regions
  // Max: outputs outside columns [column_begin_, column_end_) cover only
  // padding and are 0 (average gets 0 from its zero scale).
  int64_t column_begin_ = 0, column_end_ = 0;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_POOLING_KERNEL_H_
