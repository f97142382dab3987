// Direct convolution of shallow reductions, such as a network's stem (3
// input channels, 3x3 or 7x7 taps): the GEMM's tiles read their B rows in
// place from a zero-padded copy of the input, one row per tap, instead of
// from im2col panels.
//
// For the stem's k = 27 the im2col copy (and, at stride 2, the column-split
// copy before it) took a third of the layer: nine to 49 copies of every
// input value, against one here. The padded copy (PaddedImage) holds the
// input once, with a tap's inputs for consecutive outputs consecutive.
// Each task is nr outputs of one output row, for every output channel: its
// B rows (k of them, nr floats each, 32 KiB at most) stay in L1 while all
// the channel tiles read them.
#ifndef MACE_OPS_CPU_CONV_2D_DIRECT_H_
#define MACE_OPS_CPU_CONV_2D_DIRECT_H_

#include <vector>

#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/conv_2d_padded_image.h"
#include "mace/ops/cpu/gemm.h"

namespace mace {
namespace ops {

class Conv2dDirect : public Conv2dKernel {
 public:
  // Ungrouped, undilated, horizontal stride 1 or 2, a reduction (in
  // channels x taps) of at most one kc block, and not an unpadded 1x1 (the
  // GEMM reads it in place, or from a subsampled copy at stride > 1: a
  // direct tile covers one output row, which wastes most of it on a 7x7
  // map); the table needs conv_rows.
  static bool Supports(const KernelTable& table, const ref::Conv2DParams& params);

  // The packed filter goes to `arena` when one is given.
  Conv2dDirect(const KernelTable& table, const ref::Conv2DParams& params, const float* filter,
               PersistentArena* arena = nullptr);
  const char* name() const override { return "direct_rows"; }
  int64_t ScratchBytes(int threads) const override;
  void Run(const float* input, const float* bias, float* output, ThreadPool* pool,
           float* scratch) const override;

 private:
  const KernelTable& table_;
  ref::Conv2DParams params_;
  PaddedImage padded_;
  int64_t k_ = 0;
  bool fused_activation_ = false;
  TileEpilogue epilogue_;
  PackedPanels filter_;
  // With the table's conv_rows_stepped: the B rows' steps (bytes) from
  // offsets()[0], computed once.
  std::vector<int64_t> steps_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_DIRECT_H_
