// Reference Resize of ONNX (opset 18 and later): nearest, linear or cubic
// interpolation of a float tensor of any rank, one axis at a time.
//
// Each resized axis gets a table of taps: for every output index, the input
// indices it reads and their weights, from ONNX's definition: the source
// coordinate x of the coordinate transformation mode; its whole part (taken
// as x - 1 with a fraction of 1 when x is whole); the neighbours nearest x
// (n = 2, 4, or more with antialias), shifted to stay within n / 2 of the
// input and then clamped onto it (edge padding); the interpolation
// coefficients of the fraction; with exclude_outside, taps outside the input
// get weight 0 and the rest are renormalized. tf_crop_and_resize gives the
// extrapolation value to output indices whose source lies outside the input.
#ifndef MACE_OPS_REF_RESIZE_ND_H_
#define MACE_OPS_REF_RESIZE_ND_H_

#include <cstdint>
#include <vector>

namespace mace {
namespace ops {
namespace ref {

enum class ResizeMode { NEAREST, LINEAR, CUBIC };
enum class ResizeCoordinates {
  HALF_PIXEL,
  HALF_PIXEL_SYMMETRIC,
  PYTORCH_HALF_PIXEL,
  ALIGN_CORNERS,
  ASYMMETRIC,
  TF_CROP_AND_RESIZE
};
enum class ResizeNearest { ROUND_PREFER_FLOOR, ROUND_PREFER_CEIL, FLOOR, CEIL };

// How one axis is resized.
struct ResizeAxisSpec {
  int64_t in_len = 1, out_len = 1;
  double scale = 1.0;  // ONNX's scale factor: out_len / in_len or the given one
  double roi_start = 0.0, roi_end = 1.0;  // tf_crop_and_resize only
};

struct ResizeOptions {
  ResizeMode mode = ResizeMode::NEAREST;
  ResizeCoordinates coordinates = ResizeCoordinates::HALF_PIXEL;
  ResizeNearest nearest = ResizeNearest::ROUND_PREFER_FLOOR;
  double cubic_coeff_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
};

// The taps of one axis: out_len rows of `taps` (index, weight) pairs.
struct ResizeAxisTaps {
  int64_t in_len = 1, out_len = 1, taps = 0;
  std::vector<int64_t> index;    // out_len * taps, each in [0, in_len)
  std::vector<double> weight;    // out_len * taps
  std::vector<uint8_t> outside;  // out_len: 1 gives the extrapolation value
  bool identity = false;         // output i is input i: the axis can be skipped
};

ResizeAxisTaps MakeResizeTaps(const ResizeOptions& options, const ResizeAxisSpec& spec);

struct ResizeParams {
  std::vector<int64_t> in_shape, out_shape;
  std::vector<ResizeAxisTaps> axes;  // one per dimension
  float extrapolation_value = 0.f;
};

// input of in_shape, output of out_shape (row-major).
void Resize(const ResizeParams& params, const float* input, float* output);

}  // namespace ref
}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_REF_RESIZE_ND_H_
