// Fast Eltwise: every operation but POW, for any broadcast the op accepts.
//
// Prepare drops the size-1 dimensions of the output and merges neighbours
// that both operands walk contiguously, so that the innermost dimension is a
// row in which each operand is either contiguous or one repeated value:
// equal shapes become one row, [N, C, H, W] op [1, C, 1, 1] becomes N x C
// rows of H x W against one value each, a scalar one row against one value.
// The ISA row kernel computes each row with whole vectors and the fused
// clamp or hard-swish; other activations run on each block while it is still
// in L1. Elements are split over threads in equal, vector-aligned ranges.
//
// In place: the output may be an operand that it shares its layout with,
// since every element's operands are read before it is written and no other
// element reads it.
#ifndef MACE_OPS_CPU_ELTWISE_KERNEL_H_
#define MACE_OPS_CPU_ELTWISE_KERNEL_H_

#include <cstdint>
#include <memory>

#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/eltwise.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

class EltwiseKernel {
 public:
  // Null when the table has no eltwise kernel or the case needs the
  // reference kernel (POW, or more than kMaxOuterDims dimensions left).
  static std::unique_ptr<EltwiseKernel> Create(const KernelTable& table,
                                               const ref::EltwiseParams& params);

  // Arguments as in ref::Eltwise.
  void Run(const float* a, const float* b, float* output, ThreadPool* pool) const;

 private:
  static constexpr int kMaxOuterDims = 6;
  struct Dim {
    int64_t size = 1, a_stride = 0, b_stride = 0;
  };

  EltwiseKernel() = default;
  // Output elements [begin, end).
  void RunRange(const float* a, const float* b, float* output, int64_t begin, int64_t end) const;

  Dim outer_[kMaxOuterDims];  // the dimensions around the rows, outermost first
  int outer_count_ = 0;
  int64_t row_size_ = 1;
  int64_t total_ = 1;
  EltwiseRowKernel kernel_ = nullptr;
  EltwiseRow row_;  // operation, broadcast form, coefficients and epilogue
  Activation activation_;
  bool fused_activation_ = true;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_ELTWISE_KERNEL_H_
