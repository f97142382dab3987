// Output size and source coordinates shared by ResizeBilinear and
// ResizeNearestNeighbor (NCHW).
//
// Arguments:
//   size                            ints [out_h, out_w]
//   height_scale, width_scale       floats > 0; out = floor(in * scale) in float32
//   coordinate_transformation_mode  string: half_pixel, pytorch_half_pixel,
//                                   align_corners, asymmetric; each op has its
//                                   own default
//   align_corners                   legacy int 0/1; 1 selects align_corners
// Optional input 1: a constant int32 tensor [2] holding [out_h, out_w], or
// ONNX's sizes computed at run time: int32 or float32 holding whole numbers,
// [out_h, out_w] or [N, C, out_h, out_w] (N and C unchanged).
// Optional input 2: ONNX's scales, float32 [h, w] or [1, 1, h, w], a weight
// or computed at run time.
// Exactly one of input 1, input 2, `size` and the scale pair gives the
// output size. With an input computed at run time the output is planned for
// the shape the model declares (common/runtime_ints.h), and every run reads
// the values and checks they give it.
#ifndef MACE_OPS_COMMON_RESIZE_GEOMETRY_H_
#define MACE_OPS_COMMON_RESIZE_GEOMETRY_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mace/core/operation.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/runtime_ints.h"

namespace mace {
namespace ops {

// How an output pixel index maps back onto the input axis (ONNX names).
enum class CoordinateMode { HALF_PIXEL, PYTORCH_HALF_PIXEL, ALIGN_CORNERS, ASYMMETRIC };

struct ResizeArgs {
  CoordinateMode mode = CoordinateMode::HALF_PIXEL;
  bool has_size_input = false;
  bool has_scales_input = false;
  bool computed = false;  // input 1 or 2 is read on every run
  std::vector<int64_t> size;  // [out_h, out_w] from `size`, or empty
  bool has_scales = false;
  float height_scale = 0.f, width_scale = 0.f;
};

struct ResizeGeometry {
  int64_t out_h = 0, out_w = 0;
  // The given scales when the size came from them, which the half_pixel and
  // asymmetric transforms then divide by (as ONNX Runtime and PyTorch do).
  // 0 when the size was given directly: the transforms then use in/out as an
  // exact ratio, so exact ties stay ties for nearest rounding.
  double scale_h = 0.0, scale_w = 0.0;
};

namespace resize_internal {

inline MaceStatus Fail(const Operation& op, const std::string& message) {
  return MaceStatus(MaceStatus::MACE_INVALID_ARGS, StrCat(op.Describe(), ": ", message));
}

inline bool ParseMode(const std::string& name, CoordinateMode* mode) {
  if (name == "half_pixel") {
    *mode = CoordinateMode::HALF_PIXEL;
  } else if (name == "pytorch_half_pixel") {
    *mode = CoordinateMode::PYTORCH_HALF_PIXEL;
  } else if (name == "align_corners") {
    *mode = CoordinateMode::ALIGN_CORNERS;
  } else if (name == "asymmetric") {
    *mode = CoordinateMode::ASYMMETRIC;
  } else {
    return false;
  }
  return true;
}

}  // namespace resize_internal

// Parses the shared arguments. `has_size_input` says whether input 1 is
// present (args->has_scales_input whether input 2 is); `default_mode` applies
// when neither coordinate argument is given.
inline MaceStatus ParseResizeArgs(const Operation& op, bool has_size_input,
                                  CoordinateMode default_mode, ResizeArgs* args) {
  using resize_internal::Fail;
  args->mode = default_mode;
  const std::string mode_name = op.GetString("coordinate_transformation_mode", "");
  if (!mode_name.empty() && !resize_internal::ParseMode(mode_name, &args->mode)) {
    return Fail(op, StrCat("unknown coordinate_transformation_mode '", mode_name,
                           "' (expected half_pixel, pytorch_half_pixel, align_corners or "
                           "asymmetric)"));
  }
  const int64_t align_corners = op.GetInt("align_corners", 0);
  if (align_corners != 0 && align_corners != 1) {
    return Fail(op, StrCat("align_corners must be 0 or 1, got ", align_corners));
  }
  if (align_corners == 1) {
    // The legacy flag must not silently override an explicit, different mode.
    if (!mode_name.empty() && args->mode != CoordinateMode::ALIGN_CORNERS) {
      return Fail(op, StrCat("align_corners=1 conflicts with coordinate_transformation_mode '",
                             mode_name, "'"));
    }
    args->mode = CoordinateMode::ALIGN_CORNERS;
  }

  args->has_size_input = has_size_input;
  args->size = op.GetInts("size");
  if (!args->size.empty()) {
    if (args->size.size() != 2 || args->size[0] < 1 || args->size[1] < 1 ||
        args->size[0] > kMaxElements || args->size[1] > kMaxElements) {
      return Fail(op, StrCat("size must be [out_h, out_w] with both in [1, 2^31], got ",
                             ShapeToString(args->size)));
    }
  }
  const bool has_h = op.HasArg("height_scale"), has_w = op.HasArg("width_scale");
  if (has_h != has_w) return Fail(op, "height_scale and width_scale must be given together");
  args->has_scales = has_h;
  if (args->has_scales) {
    args->height_scale = op.GetFloat("height_scale", 0.f);
    args->width_scale = op.GetFloat("width_scale", 0.f);
    // Written so that NaN fails too.
    if (!(args->height_scale > 0.f && std::isfinite(args->height_scale) &&
          args->width_scale > 0.f && std::isfinite(args->width_scale))) {
      return Fail(op, StrCat("height_scale and width_scale must be positive and finite, got ",
                             args->height_scale, " and ", args->width_scale));
    }
  }
  const int sources = (has_size_input ? 1 : 0) + (args->has_scales_input ? 1 : 0) +
                      (args->size.empty() ? 0 : 1) + (args->has_scales ? 1 : 0);
  if (sources == 0) {
    return Fail(op,
                "needs the output size: a size or scales input, the size argument, or "
                "height_scale and width_scale");
  }
  if (sources > 1) {
    return Fail(op,
                "gives the output size more than once (size input, scales input, size "
                "argument, scales); give exactly one");
  }
  return MaceStatus();
}

// The ops' Init: checks the input counts and inputs 1 (size) and 2 (scales),
// either of which may be absent, and parses the arguments.
inline MaceStatus ParseResizeInputs(const Operation& op, CoordinateMode default_mode,
                                    ResizeArgs* args) {
  using resize_internal::Fail;
  if (op.InputSize() < 1 || op.InputSize() > 3 || op.OutputSize() != 1) {
    return Fail(op, StrCat("needs inputs [input, optional size, optional scales] and one output, "
                           "got ", op.InputSize(), " inputs and ", op.OutputSize(), " outputs"));
  }
  if (op.Input(0) == nullptr) return Fail(op, "input is missing");
  const Tensor* size_input = op.InputSize() > 1 ? op.Input(1) : nullptr;
  const Tensor* scales_input = op.InputSize() > 2 ? op.Input(2) : nullptr;
  args->has_scales_input = scales_input != nullptr;
  args->computed = IsComputed(size_input) || IsComputed(scales_input);
  if (IsComputed(size_input)) {
    MACE_RETURN_IF_ERROR(CheckComputedInts(op, *size_input, "size", 4));
    if (size_input->dim(0) != 2 && size_input->dim(0) != 4) {
      return Fail(op, StrCat("size input '", size_input->name(), "' has shape ",
                             ShapeToString(size_input->shape()), " but needs [2] or [4]"));
    }
  }
  if (scales_input != nullptr &&
      (scales_input->dtype() != DT_FLOAT || scales_input->dim_size() != 1 ||
       (scales_input->dim(0) != 2 && scales_input->dim(0) != 4))) {
    return Fail(op, StrCat("scales input '", scales_input->name(), "' is ",
                           DataTypeName(scales_input->dtype()), " of shape ",
                           ShapeToString(scales_input->shape()),
                           " but must be float32 [2] or [4]"));
  }
  return ParseResizeArgs(op, size_input != nullptr, default_mode, args);
}

namespace resize_internal {

// The output size floor(in * scale) of an in_h x in_w input, with the scales
// kept for the coordinate transforms.
inline MaceStatus GeometryFromScales(const Operation& op, float height_scale, float width_scale,
                                     int64_t in_h, int64_t in_w, ResizeGeometry* geometry) {
  // Written so that NaN fails too.
  if (!(height_scale > 0.f && std::isfinite(height_scale) && width_scale > 0.f &&
        std::isfinite(width_scale))) {
    return Fail(op, StrCat("height_scale and width_scale must be positive and finite, got ",
                           height_scale, " and ", width_scale));
  }
  // float32 products, as ONNX Runtime computes them: 10 * 0.7f is 7 there,
  // while in double it falls just short and floors to 6.
  const float out_h = std::floor(static_cast<float>(in_h) * height_scale);
  const float out_w = std::floor(static_cast<float>(in_w) * width_scale);
  if (!(out_h >= 1.f && out_w >= 1.f)) {
    return Fail(op, StrCat("scales ", height_scale, " x ", width_scale, " shrink the ", in_h, "x",
                           in_w, " input to nothing"));
  }
  if (!(out_h <= static_cast<float>(kMaxElements) && out_w <= static_cast<float>(kMaxElements))) {
    return Fail(op, StrCat("scales ", height_scale, " x ", width_scale,
                           " make the output larger than 2^31 per side"));
  }
  geometry->out_h = static_cast<int64_t>(out_h);
  geometry->out_w = static_cast<int64_t>(out_w);
  geometry->scale_h = height_scale;
  geometry->scale_w = width_scale;
  return MaceStatus();
}

// The output size from the values of input 2 (scales) when present, else
// of input 1 (sizes) read as ONNX gives them ([h, w] or [N, C, h, w]).
inline MaceStatus GeometryFromInputValues(const Operation& op, ResizeGeometry* geometry) {
  const Tensor& input = *op.Input(0);
  const Tensor* scales = op.InputSize() > 2 ? op.Input(2) : nullptr;
  geometry->scale_h = geometry->scale_w = 0.0;
  if (scales != nullptr) {
    if (scales->raw_data() == nullptr) {
      return Fail(op, StrCat("scales input '", scales->name(), "' has no data"));
    }
    const float* values = scales->data<float>();
    const int64_t count = scales->size();
    if (count == 4 && (values[0] != 1.f || values[1] != 1.f)) {
      return Fail(op, StrCat("scales input '", scales->name(), "' holds [", values[0], ",",
                             values[1], ",", values[2], ",", values[3],
                             "]; only H and W (the last two) can be resized"));
    }
    return GeometryFromScales(op, values[count - 2], values[count - 1], input.dim(2),
                              input.dim(3), geometry);
  }
  std::vector<int64_t> sizes;
  MACE_RETURN_IF_ERROR(ReadComputedInts(op, *op.Input(1), "size", &sizes));
  const size_t count = sizes.size();
  if (count == 4 && (sizes[0] != input.dim(0) || sizes[1] != input.dim(1))) {
    return Fail(op, StrCat("size input '", op.Input(1)->name(), "' holds ", ShapeToString(sizes),
                           " for input shape ", ShapeToString(input.shape()),
                           "; only H and W (the last two) can be resized"));
  }
  if (sizes[count - 2] < 1 || sizes[count - 1] < 1 || sizes[count - 2] > kMaxElements ||
      sizes[count - 1] > kMaxElements) {
    return Fail(op, StrCat("size input '", op.Input(1)->name(), "' holds ", ShapeToString(sizes),
                           " but sizes must be in [1, 2^31]"));
  }
  geometry->out_h = sizes[count - 2];
  geometry->out_w = sizes[count - 1];
  return MaceStatus();
}

}  // namespace resize_internal

// Resolves the output size of an in_h x in_w input. `size_input` is input 1
// (nullptr when absent) and must then be a constant int32 [2].
inline MaceStatus ComputeResizeGeometry(const Operation& op, const ResizeArgs& args,
                                        const Tensor* size_input, int64_t in_h, int64_t in_w,
                                        ResizeGeometry* geometry) {
  using resize_internal::Fail;
  geometry->scale_h = geometry->scale_w = 0.0;
  if (args.has_scales_input) return resize_internal::GeometryFromInputValues(op, geometry);
  if (args.has_size_input) {
    if (size_input->dtype() != DT_INT32) {
      return Fail(op, StrCat("size input '", size_input->name(), "' is ",
                             DataTypeName(size_input->dtype()), " but must be int32"));
    }
    if (size_input->dim_size() != 1 || size_input->dim(0) != 2) {
      return Fail(op, StrCat("size input '", size_input->name(), "' has shape ",
                             ShapeToString(size_input->shape()), " but needs [2]"));
    }
    // Prepare runs before any op computes, so only a weight has values yet.
    if (!size_input->is_weight() || size_input->raw_data() == nullptr) {
      return Fail(op, StrCat("size input '", size_input->name(), "' must be a constant"));
    }
    const int32_t* values = size_input->data<int32_t>();
    if (values[0] < 1 || values[1] < 1) {
      return Fail(op, StrCat("size input '", size_input->name(), "' holds [", values[0], ",",
                             values[1], "] but sizes must be positive"));
    }
    geometry->out_h = values[0];
    geometry->out_w = values[1];
    return MaceStatus();
  }
  if (!args.size.empty()) {
    geometry->out_h = args.size[0];
    geometry->out_w = args.size[1];
    return MaceStatus();
  }
  return resize_internal::GeometryFromScales(op, args.height_scale, args.width_scale, in_h, in_w,
                                             geometry);
}

// The shape inference both resizes share: checks input 0 (the kernel's type,
// NCHW), resolves the output size, fills the fields of `params` common to
// both ops' reference parameters and sets output 0's shape.
template <typename Params>
MaceStatus InferResizeShapes(Operation* op, const ResizeArgs& args, Params* params) {
  using resize_internal::Fail;
  const Tensor* input = op->Input(0);
  MACE_RETURN_IF_ERROR(CheckNchwInput(*op));
  const Tensor* size_input = op->InputSize() > 1 ? op->Input(1) : nullptr;
  ResizeGeometry geometry;
  if (args.computed) {
    // The size is known on every run only: plan the declared shape, which
    // ReadComputedResize checks the values against.
    if (op->kernel_dtype() != DT_FLOAT) {
      return Fail(*op, "a size or scales input computed at run time needs the float32 kernel");
    }
    std::vector<int64_t> planned;
    MACE_RETURN_IF_ERROR(PlannedOutputShape(*op, 0, &planned));
    if (planned.size() != 4 || planned[0] != input->dim(0) || planned[1] != input->dim(1)) {
      return Fail(*op, StrCat("planned output shape ", ShapeToString(planned),
                              " is not input shape ", ShapeToString(input->shape()),
                              " resized in H and W"));
    }
    geometry.out_h = planned[2];
    geometry.out_w = planned[3];
  } else {
    MACE_RETURN_IF_ERROR(
        ComputeResizeGeometry(*op, args, size_input, input->dim(2), input->dim(3), &geometry));
  }
  const std::vector<int64_t> output_shape = {input->dim(0), input->dim(1), geometry.out_h,
                                             geometry.out_w};
  MACE_RETURN_IF_ERROR(CheckElementCount(*op, "output", output_shape));
  params->batch = input->dim(0);
  params->channels = input->dim(1);
  params->in_h = input->dim(2);
  params->in_w = input->dim(3);
  params->out_h = geometry.out_h;
  params->out_w = geometry.out_w;
  params->mode = args.mode;
  params->scale_h = geometry.scale_h;
  params->scale_w = geometry.scale_w;
  op->Output(0)->Reshape(output_shape);
  return MaceStatus();
}

// With a size or scales input computed at run time: reads it, checks it gives
// the output size planned in Prepare and sets the scales of `params`.
// Kernels call it in Run.
template <typename Params>
MaceStatus ReadComputedResize(const Operation& op, const ResizeArgs& args, Params* params) {
  if (!args.computed) return MaceStatus();
  ResizeGeometry geometry;
  MACE_RETURN_IF_ERROR(resize_internal::GeometryFromInputValues(op, &geometry));
  if (geometry.out_h != params->out_h || geometry.out_w != params->out_w) {
    return resize_internal::Fail(
        op, StrCat("the ", op.InputSize() > 2 && op.Input(2) != nullptr ? "scales" : "size",
                   " input gives ", geometry.out_h, "x", geometry.out_w,
                   " in this run but the output was planned as ", params->out_h, "x",
                   params->out_w, "; a size computed at run time must give the shape the "
                   "model declares"));
  }
  params->scale_h = geometry.scale_h;
  params->scale_w = geometry.scale_w;
  return MaceStatus();
}

// The continuous input coordinate of output index `x` on an axis resized from
// in_len to out_len, before any clamping. `scale` is a ResizeGeometry scale:
// 0 means "exactly out_len / in_len".
inline double SourceCoordinate(CoordinateMode mode, int64_t x, int64_t in_len, int64_t out_len,
                               double scale) {
  const double xd = static_cast<double>(x);
  const double in = static_cast<double>(in_len), out = static_cast<double>(out_len);
  // Each exact-ratio form has one rounding step: the products of integers are
  // exact in double for any realistic size, so ties such as 1.5 stay exact.
  switch (mode) {
    case CoordinateMode::PYTORCH_HALF_PIXEL:
      if (out_len == 1) return 0.0;
      [[fallthrough]];
    case CoordinateMode::HALF_PIXEL:
      if (scale > 0.0) return (xd + 0.5) / scale - 0.5;
      return ((2.0 * xd + 1.0) * in - out) / (2.0 * out);
    case CoordinateMode::ALIGN_CORNERS:
      if (out_len == 1) return 0.0;
      return xd * (in - 1.0) / (out - 1.0);
    case CoordinateMode::ASYMMETRIC:
      if (scale > 0.0) return xd / scale;
      return xd * in / out;
  }
  return 0.0;
}

}  // namespace ops
}  // namespace mace

#endif  // MACE_OPS_COMMON_RESIZE_GEOMETRY_H_
