// The CPU kernels of Conv3D (mace/ops/conv_3d.h).
//
// Conv3dGemm runs each (batch, group) as one GEMM on the engine's sgemm
// (cpu/gemm.h): output[oc, voxel] = filter[oc, (ic, kd, kh, kw)] x
// columns[(ic, kd, kh, kw), voxel]. The filter is packed once; the columns
// (vol2col) are never stored whole: the GEMM's packer fills each B panel
// from the input as it needs it, so the scratch stays a few panels per
// thread. A 1x1x1 stride-1 unpadded convolution reads the input as B
// directly. The GEMM splits its tiles over the thread pool.
#ifndef MACE_OPS_CPU_CONV_3D_CPU_H_
#define MACE_OPS_CPU_CONV_3D_CPU_H_

#include <memory>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/ref/conv_3d.h"
#include "mace/runtimes/cpu/persistent_arena.h"
#include "mace/runtimes/cpu/thread_pool.h"

namespace mace {
namespace ops {

std::unique_ptr<Operation> NewConv3DCpu();

class Conv3dGemm {
 public:
  // Packs `filter` (OIDHW) for `table`'s GEMM, into `arena` when given.
  Conv3dGemm(const KernelTable& table, const ref::Conv3DParams& params, const float* filter,
             PersistentArena* arena);

  // Scratch bytes Run needs with `threads` threads.
  int64_t ScratchBytes(int threads) const;
  // output = conv(input) + bias, then the activation; pool may be null.
  void Run(const float* input, const float* bias, float* output, ThreadPool* pool,
           float* scratch) const;

  // Whether the input itself is the GEMM's B (1x1x1, stride 1, no padding).
  bool pointwise() const { return pointwise_; }

 private:
  GemmOperand Columns(const float* group_input, const void* source) const;

  const KernelTable& table_;
  ref::Conv3DParams params_;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  bool pointwise_ = false;
  bool fused_activation_ = false;
  TileEpilogue epilogue_;
  std::vector<PackedPanels> filters_;  // one per group
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_3D_CPU_H_
