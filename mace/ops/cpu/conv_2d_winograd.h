// Winograd convolution F(2x2, 3x3), F(4x4, 3x3) and F(6x6, 3x3) (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2016) for ungrouped 3x3
// stride-1 convolutions.
//
// An output tile of t x t pixels comes from an alpha x alpha input tile
// (alpha = t + 2): V = B^T d B per input channel, M = sum over channels of
// U * V element-wise with U = G g G^T precomputed per filter, and
// Y = A^T M A. The channel sums at each of the alpha^2 positions form alpha^2
// independent GEMMs, U[xi] (out x in) times V[xi] (in x tiles), which run on
// the packed GEMM. F(4x4) does 36 multiplies per 16 outputs instead of 144,
// F(6x6) 64 per 36 instead of 324; each is less accurate than the smaller
// tile, which is why the converter sets the largest tile allowed.
//
// Tiles are processed in blocks sized to stay in L2, each by one thread in
// its own scratch: first the input transform, straight into the GEMM's
// packed B panels so nothing is repacked; then, for each micro-tile of
// output channels and each panel of tiles, the alpha^2 GEMM micro-tiles into
// a buffer that stays in L1 and the output transform from it, which also
// adds the bias and applies the activation. Threads share no data and never
// wait on each other inside a conv. The transforms are per-ISA kernels
// (KernelTable::winograd_input and winograd_output).
//
// With a table that has half-precision kernels (ARMv8.2 FP16) the GEMMs run
// in half precision: U is packed in half, V is transformed in single
// precision and converted to half per block. With at most fp16_kc input
// channels (one GEMM block) M is the GEMM's half sums and the output
// transform runs in half precision, eight tiles at a time
// (fp16_winograd_output); with more, each block adds its half sums to M in
// single precision and the output transform stays in single precision.
//
// Winograd trades FLOPs for transform work and a 4x (F(4x4)) larger filter,
// which only pays when there are enough tiles and channels; PickTile() is the
// rule CreateConv2dKernel uses.
#ifndef MACE_OPS_CPU_CONV_2D_WINOGRAD_H_
#define MACE_OPS_CPU_CONV_2D_WINOGRAD_H_

#include <vector>

#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/gemm_fp16.h"

namespace mace {
namespace ops {

// U = G g G^T for `lanes` (at most kWinogradFilterLanes) 3x3 filters at
// once, lane by lane so that it vectorizes: tap k (row-major) of filter l at
// g[k * lanes + l], position xi = r * alpha + c of its U at
// u[xi * lanes + l], alpha = tile + 2.
constexpr int kWinogradFilterLanes = 16;
static_assert(kWinogradFilterLanes == kWinogradChunk, "filter kernels take one chunk");
void WinogradTransformFilters(const float* g, int lanes, int tile, float* u);

// The same for exactly kWinogradFilterLanes filters, by `table`'s
// vectorized kernel where it has one.
void WinogradTransformChunk(const KernelTable& table, const float* g, int tile, float* u);

// U for every filter (out_channels x in_channels of 3x3, OIHW), a chunk of
// output channels at a time: position xi of filter (oc, ic) goes to
// u[(xi * out_channels + oc) * in_channels + ic].
void WinogradFilterTransform(const KernelTable& table, const float* filter, int64_t out_channels,
                             int64_t in_channels, int tile, float* u);

class Conv2dWinograd : public Conv2dKernel {
 public:
  // Whether the kernel can run `params`: ungrouped 3x3, stride 1, no dilation.
  static bool Supports(const ref::Conv2DParams& params);
  // The tile (2, 4 or 6, at most `requested` and the table's
  // winograd_max_tile) that beats im2col + GEMM for `params` on `table`, or
  // 0 when none does.
  static int PickTile(const KernelTable& table, const ref::Conv2DParams& params, int requested);

  // `tile` is 2, 4 or 6. The transformed filter goes to `arena` when given.
  Conv2dWinograd(const KernelTable& table, const ref::Conv2DParams& params, const float* filter,
                 int tile, PersistentArena* arena = nullptr);
  const char* name() const override {
    return tile_ == 2 ? "winograd_2x2" : tile_ == 4 ? "winograd_4x4" : "winograd_6x6";
  }
  int64_t ScratchBytes(int threads) const override;
  void Run(const float* input, const float* bias, float* output, ThreadPool* pool,
           float* scratch) const override;
  // Half tensors: with the table's half-tensor transforms and a fused
  // activation. Over more than one GEMM block of input channels M sums the
  // blocks in floats and is rounded to half for the output transform.
  bool SupportsHalf() const override;
  void RunHalf(const uint16_t* input, const float* bias, uint16_t* output, ThreadPool* pool,
               float* scratch) const override;

 private:
  struct Layout {
    int64_t v_halves = 0;     // V's half copy (half-precision GEMMs only)
    int64_t block_tiles = 0;  // tiles per block (the last block may have fewer)
    int64_t panels = 0;       // block_tiles / nr, rounded up
    int64_t oc_padded = 0;    // output channels rounded up to mr
    int64_t v_floats = 0, m_floats = 0, per_thread = 0;
  };
  Layout MakeLayout(int threads) const;
  // Calls block(image, first_tile, tiles, layout, own_scratch) for every
  // block of every image, threads taking whole blocks.
  template <typename Block>
  void ForEachBlock(ThreadPool* pool, float* scratch, const Block& block) const;
  // All three phases of one block, in `scratch` (Layout::per_thread floats).
  void RunBlock(const float* image, const float* bias, float* out_image, int64_t first_tile,
                int64_t tiles, const Layout& layout, float* scratch) const;
  // The output transform's run (no channel set) for `lanes` tiles from
  // tile (row, col), whose M has the pitch of a panel (nr).
  WinogradOutputRun OutputRunAt(int64_t row, int64_t col, int64_t lanes) const;
  // RunBlock on half tensors (SupportsHalf).
  void RunBlockHalf(const uint16_t* image, const float* bias, uint16_t* out_image,
                    int64_t first_tile, int64_t tiles, const Layout& layout,
                    float* scratch) const;

  const KernelTable& table_;
  ref::Conv2DParams params_;
  int tile_ = 0, alpha_ = 0;
  bool fp16_ = false;             // the GEMMs in half precision
  bool half_v_ = false;           // V transformed in half precision
  bool half_m_ = false;           // M in half precision (one block of channels)
  int mr_ = 0, nr_ = 0, kc_ = 0;  // the GEMM tile the transforms feed
  int64_t tiles_h_ = 0, tiles_w_ = 0;
  // Micro-tiles of output channels RunBlockHalf hands one GEMM call
  // (fp16_gemm_half_positions): 3 when every panel is at most 4 tiles.
  int64_t narrow_group_ = 1;
  TileEpilogue epilogue_;  // the fused activation, if any
  bool fused_activation_ = false;
  std::vector<PackedPanels> transformed_filter_;  // alpha^2 of [out, in]
  std::vector<Fp16Panels> fp16_filter_;           // the same in half precision
  // With a run kernel: the same as one packing, positions ([alpha^2][out
  // padded to mr][in]) one stride apart.
  PackedPanels run_filter_;
  // arm64's NEON table: each position's first filter panel, which its
  // position-loop kernel reads (empty otherwise).
  std::vector<const float*> position_filters_;
  // The same for RunBlockHalf's fp16_gemm_half_positions (empty without it).
  std::vector<const uint16_t*> fp16_position_filters_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_WINOGRAD_H_
