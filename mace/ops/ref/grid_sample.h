// Reference GridSample on NCHW (ONNX GridSample, opset 16 and 20, 2-D) and
// on NCDHW (opset 20's volumetric form, linear and nearest):
// each output pixel samples its input channel at the location the grid
// gives, in normalized coordinates (-1 is the first pixel's left or top
// edge, or its center with align_corners; 1 the last one's).
#ifndef MACE_OPS_REF_GRID_SAMPLE_H_
#define MACE_OPS_REF_GRID_SAMPLE_H_

#include <cstdint>

namespace mace {
namespace ops {
namespace ref {

enum class GridSampleMode { LINEAR, NEAREST, CUBIC };
// Where a sample outside the image reads: 0, the nearest border pixel, or
// the image reflected at its borders.
enum class GridSamplePadding { ZEROS, BORDER, REFLECTION };

struct GridSampleParams {
  int64_t batch = 0, channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  // Volumetric sampling (rank-5 input, grid points (x, y, z)): the depths.
  bool volumetric = false;
  int64_t in_d = 1, out_d = 1;
  GridSampleMode mode = GridSampleMode::LINEAR;
  GridSamplePadding padding = GridSamplePadding::ZEROS;
  bool align_corners = false;
};

// input [batch, channels, in_h, in_w]; grid [batch, out_h, out_w, 2] holding
// (x, y) pairs, x along the width; output [batch, channels, out_h, out_w].
// Bilinear and bicubic (Keys, a = -0.75) read a 2x2 or 4x4 neighbourhood;
// nearest rounds half to even. For bilinear and nearest a coordinate outside
// the image is clamped (BORDER) or reflected (REFLECTION) first; for every
// mode each neighbour outside the image reads 0 (ZEROS) or is clamped or
// reflected the same way.
// Volumetric: input [batch, channels, in_d, in_h, in_w]; grid [batch, out_d,
// out_h, out_w, 3] holding (x, y, z); trilinear over a 2x2x2 neighbourhood
// or nearest, with the same padding rules per axis.
void GridSample(const GridSampleParams& params, const float* input, const float* grid,
                float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_GRID_SAMPLE_H_
