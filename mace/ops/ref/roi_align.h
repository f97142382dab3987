// Reference RoiAlign (ONNX RoiAlign, opsets 10 and 16), as onnxruntime
// computes it in float: each region of interest is cut into
// output_h x output_w bins, each bin sampled on a grid of bilinear points
// (sampling_ratio per side, or ceil(bin size) when it is 0), and the bin is
// the mean of its samples (AVG) or the largest single weighted tap (MAX).
#ifndef MACE_OPS_REF_ROI_ALIGN_H_
#define MACE_OPS_REF_ROI_ALIGN_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

enum class RoiAlignMode { AVG, MAX };

struct RoiAlignParams {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t rois = 0, output_h = 1, output_w = 1;
  int64_t sampling_ratio = 0;
  float spatial_scale = 1.f;
  // half_pixel shifts ROI corners by -0.5 pixel; output_half_pixel does not
  // and makes each ROI at least 1 pixel on a side.
  bool half_pixel = true;
  RoiAlignMode mode = RoiAlignMode::AVG;
};

// Sampling points along one side of one bin, for a ROI side of `extent`
// pixels cut into `bins` (at most 2^30; 0 for a negative or NaN extent).
int64_t RoiAlignGrid(const RoiAlignParams& params, float extent, int64_t bins);

// input [batch, channels, height, width]; rois [rois, 4] as (x1, y1, x2, y2)
// in input coordinates before spatial_scale; batch_indices [rois], whole
// numbers in [0, batch) (checked by the caller, like the grid sizes);
// output [rois, channels, output_h, output_w].
void RoiAlign(const RoiAlignParams& params, const float* input, const float* rois,
              const float* batch_indices, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_ROI_ALIGN_H_
