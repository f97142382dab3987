#include "mace/ops/resize_nd.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/runtime_ints.h"
#include "mace/ops/cpu/resize_nd_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

constexpr int64_t kMaxRank = 8;

bool ParseMode(const std::string& name, ref::ResizeMode* mode) {
  if (name == "nearest") {
    *mode = ref::ResizeMode::NEAREST;
  } else if (name == "linear") {
    *mode = ref::ResizeMode::LINEAR;
  } else if (name == "cubic") {
    *mode = ref::ResizeMode::CUBIC;
  } else {
    return false;
  }
  return true;
}

bool ParseCoordinates(const std::string& name, ref::ResizeCoordinates* mode) {
  using C = ref::ResizeCoordinates;
  if (name == "half_pixel") {
    *mode = C::HALF_PIXEL;
  } else if (name == "half_pixel_symmetric") {
    *mode = C::HALF_PIXEL_SYMMETRIC;
  } else if (name == "pytorch_half_pixel") {
    *mode = C::PYTORCH_HALF_PIXEL;
  } else if (name == "align_corners") {
    *mode = C::ALIGN_CORNERS;
  } else if (name == "asymmetric") {
    *mode = C::ASYMMETRIC;
  } else if (name == "tf_crop_and_resize") {
    *mode = C::TF_CROP_AND_RESIZE;
  } else {
    return false;
  }
  return true;
}

bool ParseNearest(const std::string& name, ref::ResizeNearest* mode) {
  using N = ref::ResizeNearest;
  if (name == "round_prefer_floor") {
    *mode = N::ROUND_PREFER_FLOOR;
  } else if (name == "round_prefer_ceil") {
    *mode = N::ROUND_PREFER_CEIL;
  } else if (name == "floor") {
    *mode = N::FLOOR;
  } else if (name == "ceil") {
    *mode = N::CEIL;
  } else {
    return false;
  }
  return true;
}

}  // namespace

MaceStatus ResizeBase::Init() {
  OP_CHECK(InputSize() >= 1 && InputSize() <= 4 && OutputSize() == 1,
           "needs inputs [input, optional roi, optional scales, optional sizes] and one output, "
           "got ", InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  const std::string mode = GetString("mode", "nearest");
  OP_CHECK(ParseMode(mode, &options_.mode), "unknown mode '", mode,
           "' (expected nearest, linear or cubic)");
  const std::string coordinates = GetString("coordinate_transformation_mode", "half_pixel");
  OP_CHECK(ParseCoordinates(coordinates, &options_.coordinates),
           "unknown coordinate_transformation_mode '", coordinates, "'");
  const std::string nearest = GetString("nearest_mode", "round_prefer_floor");
  OP_CHECK(ParseNearest(nearest, &options_.nearest), "unknown nearest_mode '", nearest, "'");
  options_.cubic_coeff_a = GetFloat("cubic_coeff_a", -0.75f);
  OP_CHECK(std::isfinite(options_.cubic_coeff_a), "cubic_coeff_a must be finite");
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "exclude_outside", &options_.exclude_outside));
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "antialias", &options_.antialias));
  OP_CHECK(!options_.antialias || options_.mode != ref::ResizeMode::NEAREST,
           "antialias applies to linear and cubic modes only");
  params_.extrapolation_value = GetFloat("extrapolation_value", 0.f);
  const std::string policy = GetString("keep_aspect_ratio_policy", "stretch");
  if (policy == "not_larger") {
    keep_aspect_ = -1;
  } else if (policy == "not_smaller") {
    keep_aspect_ = 1;
  } else {
    OP_CHECK(policy == "stretch", "unknown keep_aspect_ratio_policy '", policy, "'");
  }
  axes_ = GetInts("axes");
  scales_ = GetFloats("scales");
  sizes_ = GetInts("sizes");
  roi_ = GetFloats("roi");
  const char* names[] = {"roi", "scales", "sizes"};
  const bool has_arg[] = {HasArg("roi"), HasArg("scales"), HasArg("sizes")};
  bool given[] = {has_arg[0], has_arg[1], has_arg[2]};
  for (int i = 1; i < InputSize(); ++i) {
    const Tensor* t = Input(i);
    if (t == nullptr) continue;
    OP_CHECK(!has_arg[i - 1], names[i - 1], " is given both as an argument and as input ", i);
    OP_CHECK(t->dim_size() == 1 && t->dim(0) >= 1 && t->dim(0) <= 2 * kMaxRank,
             names[i - 1], " input '", t->name(), "' has shape ", ShapeToString(t->shape()),
             " but must be 1-D with 1 to ", 2 * kMaxRank, " values");
    OP_CHECK(t->dtype() == DT_FLOAT || (i == 3 && t->dtype() == DT_INT32), names[i - 1],
             " input '", t->name(), "' is ", DataTypeName(t->dtype()), ", not ",
             i == 3 ? "int32 or float32" : "float32");
    given[i - 1] = true;
    computed_ = computed_ || IsComputed(t);
  }
  OP_CHECK(given[1] != given[2], "needs exactly one of scales and sizes");
  OP_CHECK(keep_aspect_ == 0 || given[2],
           "keep_aspect_ratio_policy other than stretch needs sizes");
  const bool crop = options_.coordinates == ref::ResizeCoordinates::TF_CROP_AND_RESIZE;
  OP_CHECK(crop || !given[0], "roi applies to tf_crop_and_resize only");
  OP_CHECK(!crop || given[0], "tf_crop_and_resize needs roi");
  return MaceStatus();
}

MaceStatus ResizeBase::ReadValues(std::vector<float>* roi, std::vector<float>* scales,
                                  std::vector<int64_t>* sizes) const {
  *roi = roi_;
  *scales = scales_;
  *sizes = sizes_;
  for (int i = 1; i < InputSize(); ++i) {
    const Tensor* t = Input(i);
    if (t == nullptr) continue;
    if (i == 3) {
      MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *t, "sizes", sizes));
      continue;
    }
    OP_CHECK(t->raw_data() != nullptr, i == 1 ? "roi" : "scales", " input '", t->name(),
             "' has no data");
    const float* data = t->data<float>();
    (i == 1 ? roi : scales)->assign(data, data + t->size());
  }
  return MaceStatus();
}

MaceStatus ResizeBase::Geometry(const std::vector<float>& roi, const std::vector<float>& scales,
                                const std::vector<int64_t>& sizes,
                                std::vector<int64_t>* out_shape) {
  const Tensor* input = Input(0);
  const int64_t rank = input->dim_size();
  std::vector<int64_t> axes = axes_;
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  std::vector<bool> seen(rank, false);
  for (int64_t& a : axes) {
    OP_CHECK(a >= -rank && a < rank, "axis ", a, " is out of range for rank ", rank);
    if (a < 0) a += rank;
    OP_CHECK(!seen[a], "axis ", a, " is given twice");
    seen[a] = true;
  }
  const size_t count = scales.empty() ? sizes.size() : scales.size();
  OP_CHECK(count == axes.size(), "gives ", count, " scales or sizes for ", axes.size(), " axes");
  for (float s : scales) {
    OP_CHECK(s > 0.f && std::isfinite(s), "scales must be positive and finite, got ", s);
  }
  for (int64_t s : sizes) {
    OP_CHECK(s >= 1 && s <= kMaxElements, "sizes must be in [1, 2^31], got ", s);
  }
  const bool crop = options_.coordinates == ref::ResizeCoordinates::TF_CROP_AND_RESIZE;
  OP_CHECK(!crop || roi.size() == 2 * axes.size(), "tf_crop_and_resize needs roi of ",
           2 * axes.size(), " values (starts then ends of the axes), got ", roi.size());
  for (float r : roi) OP_CHECK(std::isfinite(r), "roi must be finite, got ", r);

  std::vector<ref::ResizeAxisSpec> specs(rank);
  for (int64_t d = 0; d < rank; ++d) {
    specs[d].in_len = specs[d].out_len = input->dim(d);
  }
  double common = 0.0;  // keep_aspect_ratio_policy's one scale
  for (size_t k = 0; k < axes.size() && !sizes.empty(); ++k) {
    const double ratio =
        static_cast<double>(sizes[k]) / static_cast<double>(input->dim(axes[k]));
    if (k == 0 || (keep_aspect_ < 0 ? ratio < common : ratio > common)) common = ratio;
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    ref::ResizeAxisSpec& s = specs[axes[k]];
    const double in = static_cast<double>(s.in_len);
    double out = 0.0;
    if (!scales.empty()) {
      s.scale = static_cast<double>(scales[k]);
      out = std::floor(s.scale * in);
    } else if (keep_aspect_ != 0) {
      s.scale = common;
      out = std::floor(common * in + 0.5);
    } else {
      out = static_cast<double>(sizes[k]);
      s.scale = out / in;
    }
    OP_CHECK(out >= 1.0 && out <= static_cast<double>(kMaxElements), "axis ", axes[k],
             " of length ", s.in_len, " would be resized to ", out);
    s.out_len = static_cast<int64_t>(out);
    if (crop) {
      s.roi_start = roi[k];
      s.roi_end = roi[axes.size() + k];
    }
  }
  out_shape->assign(rank, 0);
  for (int64_t d = 0; d < rank; ++d) (*out_shape)[d] = specs[d].out_len;
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", *out_shape));
  params_.in_shape = input->shape();
  params_.out_shape = *out_shape;
  params_.axes.clear();
  for (int64_t d = 0; d < rank; ++d) {
    // Antialias widens the taps to about 4 / scale: bound the table.
    const double reach = options_.antialias ? 4.0 / std::min(specs[d].scale, 1.0) + 2.0 : 4.0;
    OP_CHECK(reach * static_cast<double>(specs[d].out_len) <= static_cast<double>(kMaxElements),
             "axis ", d, " needs too many interpolation taps");
    params_.axes.push_back(ref::MakeResizeTaps(options_, specs[d]));
  }
  return MaceStatus();
}

MaceStatus ResizeBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckTensor(*this, input, kernel_dtype()));
  const int64_t rank = input->dim_size();
  OP_CHECK(rank >= 1 && rank <= kMaxRank, "input has rank ", rank, "; 1 to ", kMaxRank,
           " are supported");
  std::vector<int64_t> out_shape;
  if (computed_) {
    // Known on every run only: plan the declared shape, which each run's
    // values are checked against.
    MACE_RETURN_IF_ERROR(PlannedOutputShape(*this, 0, &out_shape));
    OP_CHECK(static_cast<int64_t>(out_shape.size()) == rank, "planned output shape ",
             ShapeToString(out_shape), " is not of the input's rank ", rank);
  } else {
    std::vector<float> roi, scales;
    std::vector<int64_t> sizes;
    MACE_RETURN_IF_ERROR(ReadValues(&roi, &scales, &sizes));
    MACE_RETURN_IF_ERROR(Geometry(roi, scales, sizes, &out_shape));
  }
  Output(0)->Reshape(out_shape);
  return MaceStatus();
}

MaceStatus ResizeBase::ReadRuntimeInputs() {
  if (!computed_) return MaceStatus();
  std::vector<float> roi, scales;
  std::vector<int64_t> sizes, out_shape;
  MACE_RETURN_IF_ERROR(ReadValues(&roi, &scales, &sizes));
  MACE_RETURN_IF_ERROR(Geometry(roi, scales, sizes, &out_shape));
  OP_CHECK(out_shape == Output(0)->shape(), "the inputs give the output shape ",
           ShapeToString(out_shape), " in this run but it was planned as ",
           ShapeToString(Output(0)->shape()),
           "; values computed at run time must give the shape the model declares");
  return MaceStatus();
}

MaceStatus RegisterResizeNd(OpRegistry* registry) {
  return registry->Register("Resize", DeviceType::CPU, DT_FLOAT, NewResizeCpu);
}

}  // namespace ops
}  // namespace mace
