#include "mace/ops/roi_align.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/roi_align_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus RoiAlignBase::Init() {
  OP_CHECK(InputSize() == 3 && OutputSize() == 1,
           "needs inputs [X, rois, batch_indices] and one output, got ", InputSize(),
           " inputs and ", OutputSize(), " outputs");
  const std::string mode = GetString("mode", "avg");
  OP_CHECK(mode == "avg" || mode == "max", "mode '", mode, "' is not avg or max");
  params_.mode = mode == "avg" ? ref::RoiAlignMode::AVG : ref::RoiAlignMode::MAX;
  const std::string transform = GetString("coordinate_transformation_mode", "half_pixel");
  OP_CHECK(transform == "half_pixel" || transform == "output_half_pixel",
           "coordinate_transformation_mode '", transform,
           "' is not half_pixel or output_half_pixel");
  params_.half_pixel = transform == "half_pixel";
  params_.output_h = GetInt("output_height", 1);
  params_.output_w = GetInt("output_width", 1);
  OP_CHECK(params_.output_h >= 1 && params_.output_w >= 1 &&
               params_.output_h < (int64_t{1} << 24) && params_.output_w < (int64_t{1} << 24),
           "output_height and output_width must be from 1 to 2^24 - 1, got ", params_.output_h,
           " and ", params_.output_w);
  params_.sampling_ratio = GetInt("sampling_ratio", 0);
  OP_CHECK(params_.sampling_ratio >= 0 && params_.sampling_ratio <= 4096,
           "sampling_ratio must be from 0 to 4096, got ", params_.sampling_ratio);
  params_.spatial_scale = GetFloat("spatial_scale", 1.f);
  OP_CHECK(std::isfinite(params_.spatial_scale), "spatial_scale must be finite");
  return MaceStatus();
}

MaceStatus RoiAlignBase::InferShapes() {
  const Tensor* input = Input(0);
  const Tensor* rois = Input(1);
  const Tensor* indices = Input(2);
  MACE_RETURN_IF_ERROR(CheckNchwInput(*this));
  MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, rois, DT_FLOAT));
  MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, indices, DT_FLOAT));
  OP_CHECK(rois->dim_size() == 2 && rois->dim(1) == 4, "rois have shape ",
           ShapeToString(rois->shape()), "; they must be [R, 4]");
  OP_CHECK(indices->dim_size() == 1 && indices->dim(0) == rois->dim(0), "batch_indices have shape ",
           ShapeToString(indices->shape()), " but rois ", ShapeToString(rois->shape()),
           "; they must be [R]");
  params_.batch = input->dim(0);
  params_.channels = input->dim(1);
  params_.height = input->dim(2);
  params_.width = input->dim(3);
  params_.rois = rois->dim(0);
  const std::vector<int64_t> shape = {params_.rois, params_.channels, params_.output_h,
                                      params_.output_w};
  OP_CHECK(CheckedElementCount(shape, kMaxElements) >= 0, "the output would have shape ",
           ShapeToString(shape), ", more than 2^31 elements");
  Output(0)->Reshape(shape);
  return MaceStatus();
}

MaceStatus RoiAlignBase::CheckRois() const {
  const float* rois = Input(1)->data<float>();
  const float* indices = Input(2)->data<float>();
  for (int64_t r = 0; r < params_.rois; ++r) {
    const float index = indices[r];
    OP_CHECK(
        index >= 0.f && index < static_cast<float>(params_.batch) && index == std::floor(index),
        "batch_indices[", r, "] is ", index, "; X has batch ", params_.batch);
    const float* roi = rois + r * 4;
    for (int k = 0; k < 4; ++k) {
      OP_CHECK(std::isfinite(roi[k] * params_.spatial_scale), "ROI ", r, " has coordinate ", roi[k],
               ", not finite after spatial_scale");
    }
    const float extent_w = (roi[2] - roi[0]) * params_.spatial_scale;
    const float extent_h = (roi[3] - roi[1]) * params_.spatial_scale;
    const int64_t grid = ref::RoiAlignGrid(params_, std::max(extent_h, 1.f), params_.output_h) *
                         ref::RoiAlignGrid(params_, std::max(extent_w, 1.f), params_.output_w);
    OP_CHECK(grid <= (int64_t{1} << 24), "ROI ", r, " (", roi[0], ", ", roi[1], ", ", roi[2], ", ",
             roi[3], ") needs ", grid, " samples per bin, more than 2^24");
  }
  return MaceStatus();
}

MaceStatus RegisterRoiAlign(OpRegistry* registry) {
  return registry->Register("RoiAlign", DeviceType::CPU, DT_FLOAT, NewRoiAlignCpu);
}

}  // namespace ops
}  // namespace mace
