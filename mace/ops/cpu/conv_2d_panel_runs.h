// A port's own packing of 8-lane float B panels from a padded image, for
// the convolution GEMM's im2col (conv_2d_gemm.cc): none in
// conv_2d_panel_runs.cc, armv7's in arm/conv_2d_panel_runs_armv7.cc.
#ifndef MACE_OPS_CPU_CONV_2D_PANEL_RUNS_H_
#define MACE_OPS_CPU_CONV_2D_PANEL_RUNS_H_

#include <cstdint>

namespace mace {
namespace ops {

// The lanes [lane0, lane0 + lanes) of a panel that one output row holds: a
// tap's inputs for them are `lanes` values from origin + the tap's offset.
template <typename T>
struct PanelSegment {
  int lane0, lanes;
  const T* origin;
};

// Writes `depth` rows of 8 floats to dst: row d holds, in each segment's
// lanes, the values from its origin + offsets[d], and zeros in the lanes
// from `valid` on; returns true. Or returns false without writing, leaving
// the panel to the driver.
bool PackFloatPanel8(const PanelSegment<float>* segments, int count, int valid,
                     const int64_t* offsets, int64_t depth, float* dst);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_CPU_CONV_2D_PANEL_RUNS_H_
