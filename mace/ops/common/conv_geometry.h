// Output size and padding of sliding-window ops (Conv2D, DepthwiseConv2d,
// Pooling, Deconv2D).
//
// Arguments:
//   strides    ints [stride_h, stride_w], default [1, 1]
//   dilations  ints [dilation_h, dilation_w], default [1, 1]
//   padding    int: 0 VALID, 1 SAME (TensorFlow/ONNX SAME_UPPER: the odd pixel
//              goes to the bottom/right), 2 SAME_LOWER; default VALID
//   pads       ints [top, left, bottom, right]: explicit padding, overrides
//              `padding` when present
#ifndef MACE_OPS_COMMON_CONV_GEOMETRY_H_
#define MACE_OPS_COMMON_CONV_GEOMETRY_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "mace/core/operation.h"

namespace mace {
namespace ops {

// The largest stride, dilation, pad or kernel a window op accepts: keeps
// index arithmetic far from int64 overflow on hostile models.
constexpr int64_t kMaxWindowArg = int64_t{1} << 20;

struct WindowArgs {
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int padding = 0;       // 0 VALID, 1 SAME, 2 SAME_LOWER, ignored if explicit
  bool explicit_pads = false;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

// Reads ints `name` of `count` values (all `fallback` when absent) into
// `values`, each in [low, kMaxWindowArg]: the window arguments of the 3-D
// ops (Conv3D, Deconv3D), whose order and defaults differ from 2-D's.
MaceStatus ReadWindowInts(const Operation& op, const std::string& name, size_t count,
                          int64_t fallback, int64_t low, int64_t* values);

// Ceil-mode length of one axis with a dilated window `extent` long, as ONNX
// and PyTorch define it: round the window count up, but drop a last window
// that would start in the end padding. Needs in + pads >= extent.
int64_t CeilModeSize(int64_t in, int64_t pad_begin, int64_t pad_end, int64_t extent,
                     int64_t stride);

// Parses strides/dilations/padding/pads, validating values.
MaceStatus ParseWindowArgs(const Operation& op, WindowArgs* args);

struct WindowGeometry {
  int64_t out_h = 0, out_w = 0;
  int64_t pad_top = 0, pad_left = 0;  // bottom/right follow from out size
};

// Computes output size and leading pads for an input of in_h x in_w and a
// kernel of k_h x k_w. Fails (naming the op) if the output would be empty.
MaceStatus ComputeWindow(const Operation& op, const WindowArgs& args, int64_t in_h,
                         int64_t in_w, int64_t k_h, int64_t k_w, WindowGeometry* geometry);

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_CONV_GEOMETRY_H_
