// Conv2D as GEMM per group: output[oc, pixel] = filter[oc, (ic, kh, kw)] x
// columns[(ic, kh, kw), pixel]. NCHW makes this the natural orientation: the
// packed filter is the left operand and output rows are channel planes.
// The columns are never materialized: the GEMM packs them block by block
// straight from the image (im2col inside packing), so there is no
// K x pixels buffer; a 1x1 stride-1 unpadded conv reads the input as is,
// and at a larger stride reads a subsampled copy.
#ifndef MACE_OPS_CPU_CONV_2D_GEMM_H_
#define MACE_OPS_CPU_CONV_2D_GEMM_H_

#include <vector>

#include "mace/ops/cpu/conv_2d_kernel.h"
#include "mace/ops/cpu/conv_2d_padded_image.h"
#include "mace/ops/cpu/gemm.h"
#include "mace/ops/cpu/gemm_fp16.h"

namespace mace {
namespace ops {

// Where im2col packing reads from: one group's input channels of one image.
struct Im2colSource {
  const float* input = nullptr;  // first channel plane of the group
  int64_t in_h = 0, in_w = 0, out_w = 0;
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  // Horizontal stride 2 reads a copy of the input with each row split into
  // its even then its odd columns, half_w = ceil(in_w / 2) each, so every
  // tap's run is a contiguous copy instead of a strided gather.
  bool split_columns = false;
  int64_t half_w = 0;
};

// A PanelPacker over the columns matrix: rows are output pixels, depth is
// (channel, kh, kw); taps in the padding read as zero.
void PackIm2col(const void* source, int64_t pixel0, int64_t pixels, int64_t depth0, int64_t depth,
                int width, float* dst);

// The same columns read from a PaddedImage copy of the input: every tap's
// run is a plain copy, with no padding or stride cases.
struct PaddedColumnsSource {
  const float* padded = nullptr;
  const PaddedImage* image = nullptr;
  int64_t out_w = 0;
  // The same padded image in half precision (PackPaddedIm2colHalf).
  const uint16_t* half_padded = nullptr;
};
void PackPaddedIm2col(const void* source, int64_t pixel0, int64_t pixels, int64_t depth0,
                      int64_t depth, int width, float* dst);
// The same from half_padded into panels of halves (an Fp16HalfPacker).
void PackPaddedIm2colHalf(const void* source, int64_t pixel0, int64_t pixels, int64_t depth0,
                          int64_t depth, int width, uint16_t* dst);

class Conv2dGemm : public Conv2dKernel {
 public:
  // A 1x1 conv at stride > 1 whose taps all lie inside the input (no
  // padding on any side that an output reads): it runs as a plain 1x1 GEMM
  // over a subsampled copy of the input, a quarter of the image at stride 2.
  static bool IsStridedPointwise(const ref::Conv2DParams& params);

  // The packed filter goes to `arena` when one is given.
  Conv2dGemm(const KernelTable& table, const ref::Conv2DParams& params, const float* filter,
             PersistentArena* arena = nullptr);
  const char* name() const override {
    if (!fp16_filters_.empty()) {
      return source_ == Source::kInput        ? "gemm_1x1_fp16"
             : source_ == Source::kSubsampled ? "gemm_1x1_strided_fp16"
                                              : "gemm_im2col_fp16";
    }
    return source_ == Source::kInput        ? "gemm_1x1"
           : source_ == Source::kSubsampled ? "gemm_1x1_strided"
                                            : "gemm_im2col";
  }
  int64_t ScratchBytes(int threads) const override;
  void Run(const float* input, const float* bias, float* output, ThreadPool* pool,
           float* scratch) const override;
  // Half tensors: an ungrouped conv whose activation the tile applies, with
  // the table's half-tensor kernels: a 1x1 unpadded one (at a stride, on a
  // subsampled half copy), or im2col from a half padded image (HalfColumns).
  bool SupportsHalf() const override;
  void RunHalf(const uint16_t* input, const float* bias, uint16_t* output, ThreadPool* pool,
               float* scratch) const override;

 private:
  // Where B (the columns) comes from.
  enum class Source {
    kInput,       // 1x1, stride 1, no padding: the input itself
    kSubsampled,  // IsStridedPointwise: a subsampled copy, read as is
    kPadded,      // im2col from a PaddedImage copy (undilated, stride_w 1 or 2)
    kSplit,       // im2col from a column-split copy (stride_w 2, dilated rows)
    kImage,       // im2col from the input itself
  };

  GemmOperand Columns(const float* group_input, Im2colSource* source,
                      PaddedColumnsSource* padded_source) const;
  // Scratch floats: the GEMM's per thread, and a copy of one group's input
  // (padded, column-split or subsampled; 0 for none), which follows all
  // threads' GEMM scratch.
  int64_t GemmFloatsPerThread() const;
  int64_t CopyFloats() const;
  // With fp16 kernels, a padded image is also copied to half precision
  // after the float one, and the half tiles' panels are packed from it
  // (one pixel runs the matrix-vector kernel instead, on float columns).
  bool HalfColumns() const {
    return !fp16_filters_.empty() && source_ == Source::kPadded && n_ > 1;
  }

  const KernelTable& table_;
  ref::Conv2DParams params_;
  int64_t m_ = 0, n_ = 0, k_ = 0;  // per group: out channels, pixels, depth
  Source source_ = Source::kImage;
  bool fused_activation_ = false;
  TileEpilogue epilogue_;
  std::vector<PackedPanels> filters_;  // one per group
  // The same in half precision, instead, when the table has fp16 kernels.
  std::vector<Fp16Panels> fp16_filters_;
  PaddedImage padded_image_;           // one group's channels, for kPadded
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_GEMM_H_
