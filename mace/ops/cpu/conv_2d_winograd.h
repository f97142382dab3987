// Winograd convolution F(2x2, 3x3) and F(4x4, 3x3) (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2016) for ungrouped 3x3
// stride-1 convolutions.
//
// An output tile of t x t pixels comes from an alpha x alpha input tile
// (alpha = t + 2): V = B^T d B per input channel, M = sum over channels of
// U * V element-wise with U = G g G^T precomputed per filter, and
// Y = A^T M A. The channel sums at each of the alpha^2 positions form alpha^2
// independent GEMMs, U[xi] (out x in) times V[xi] (in x tiles), which run on
// the packed GEMM. F(4x4) does 36 multiplies per 16 outputs instead of 144;
// it is less accurate than F(2x2), which is why the converter chooses.
//
// Tiles are processed in blocks, one block per thread at a time, so scratch
// stays bounded and threads never share a block.
#ifndef MACE_OPS_CPU_CONV_2D_WINOGRAD_H_
#define MACE_OPS_CPU_CONV_2D_WINOGRAD_H_

#include <vector>

#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/gemm.h"

namespace mace {
namespace ops {

class Conv2dWinograd : public Conv2dKernel {
 public:
  static bool Supports(const ref::Conv2DParams& params);

  // `tile` is 2 or 4. The transformed filter goes to `arena` when given.
  Conv2dWinograd(const KernelTable& table, const ref::Conv2DParams& params, const float* filter,
                 int tile, PersistentArena* arena = nullptr);
  const char* name() const override { return tile_ == 2 ? "winograd_2x2" : "winograd_4x4"; }
  int64_t ScratchBytes(int threads) const override;
  void Run(const float* input, const float* bias, float* output, ThreadPool* pool,
           float* scratch) const override;

 private:
  struct Layout {
    int64_t block_tiles = 0;  // tiles per block
    int64_t v_floats = 0, m_floats = 0, gemm_floats = 0, per_thread = 0;
  };
  Layout MakeLayout(int threads) const;
  void RunBlock(const float* image, const float* bias, float* out_image, int64_t first_tile,
                int64_t tiles, const Layout& layout, float* scratch) const;
  void TransformInput(const float* image, int64_t first_tile, int64_t tiles, int64_t block,
                      float* v) const;
  void TransformOutput(const float* m, const float* bias, int64_t first_tile, int64_t tiles,
                       int64_t block, float* out_image) const;

  const KernelTable& table_;
  ref::Conv2DParams params_;
  int tile_ = 0, alpha_ = 0;
  int64_t tiles_h_ = 0, tiles_w_ = 0;
  std::vector<PackedPanels> transformed_filter_;  // alpha^2 of [out, in]
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_WINOGRAD_H_
