// GridSample (ONNX GridSample, 2-D): output[n, c, i, j] samples input
// channel c at grid[n, i, j] = (x, y) in normalized coordinates.
// Arguments: mode ("bilinear" or "linear", "nearest", "bicubic" or
// "cubic"), padding_mode ("zeros", "border", "reflection"), align_corners
// (0 or 1). Inputs [X of NCHW, grid of [N, H_out, W_out, 2]], or, for
// volumetric sampling (linear or nearest), [X of NCDHW, grid of
// [N, D_out, H_out, W_out, 3]].
//
// GridSampleBase is the device-neutral part; the CPU kernel is
// mace/ops/cpu/grid_sample_cpu.cc over the reference kernel.
#ifndef MACE_OPS_GRID_SAMPLE_H_
#define MACE_OPS_GRID_SAMPLE_H_

#include "mace/core/operation.h"
#include "mace/ops/ref/grid_sample.h"

namespace mace {
namespace ops {

class GridSampleBase : public Operation {
 public:
  MaceStatus Init() override;

 protected:
  // Checks both inputs against each other, fills params() and sets the
  // output's shape.
  MaceStatus InferShapes();
  const ref::GridSampleParams& params() const { return params_; }

 private:
  ref::GridSampleParams params_;
};

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_GRID_SAMPLE_H_
