#include "mace/ops/grid_sample.h"

#include <string>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/grid_sample_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus GridSampleBase::Init() {
  OP_CHECK(InputSize() == 2 && OutputSize() == 1,
           "needs inputs [X, grid] and one output, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  const std::string mode = GetString("mode", "bilinear");
  if (mode == "bilinear" || mode == "linear") {
    params_.mode = ref::GridSampleMode::LINEAR;
  } else if (mode == "nearest") {
    params_.mode = ref::GridSampleMode::NEAREST;
  } else if (mode == "bicubic" || mode == "cubic") {
    params_.mode = ref::GridSampleMode::CUBIC;
  } else {
    OP_CHECK(false, "mode '", mode, "' is not bilinear, nearest or bicubic");
  }
  const std::string padding = GetString("padding_mode", "zeros");
  if (padding == "zeros") {
    params_.padding = ref::GridSamplePadding::ZEROS;
  } else if (padding == "border") {
    params_.padding = ref::GridSamplePadding::BORDER;
  } else if (padding == "reflection") {
    params_.padding = ref::GridSamplePadding::REFLECTION;
  } else {
    OP_CHECK(false, "padding_mode '", padding, "' is not zeros, border or reflection");
  }
  const int64_t align = GetInt("align_corners", 0);
  OP_CHECK(align == 0 || align == 1, "align_corners must be 0 or 1, got ", align);
  params_.align_corners = align == 1;
  return MaceStatus();
}

MaceStatus GridSampleBase::InferShapes() {
  const Tensor* input = Input(0);
  const Tensor* grid = Input(1);
  const bool volumetric = input->dim_size() == 5;
  if (volumetric) {
    MACE_RETURN_IF_ERROR(CheckTensor(*this, input, DT_FLOAT));
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
    OP_CHECK(params_.mode != ref::GridSampleMode::CUBIC,
             "bicubic sampling takes rank-4 X only (ONNX defines no volumetric cubic)");
  } else {
    MACE_RETURN_IF_ERROR(CheckNchwInput(*this));
  }
  MACE_RETURN_IF_ERROR(CheckTensor(*this, grid, DT_FLOAT));
  const int rank = input->dim_size();
  OP_CHECK(grid->dim_size() == rank && grid->dim(rank - 1) == rank - 2, "grid has shape ",
           ShapeToString(grid->shape()), "; it must be ",
           volumetric ? "[N, D_out, H_out, W_out, 3]" : "[N, H_out, W_out, 2]");
  OP_CHECK(grid->dim(0) == input->dim(0), "grid has batch ", grid->dim(0), " but X has ",
           input->dim(0));
  // The reference kernel's coordinates are exact floats below 2^24.
  constexpr int64_t kMaxSide = int64_t{1} << 24;
  for (int i = 2; i < rank; ++i) {
    OP_CHECK(input->dim(i) >= 1 && input->dim(i) < kMaxSide, "X has shape ",
             ShapeToString(input->shape()), "; its ", volumetric ? "depth, height" : "height",
             " and width must be from 1 to 2^24 - 1");
  }
  params_.volumetric = volumetric;
  params_.batch = input->dim(0);
  params_.channels = input->dim(1);
  params_.in_d = volumetric ? input->dim(2) : 1;
  params_.in_h = input->dim(rank - 2);
  params_.in_w = input->dim(rank - 1);
  params_.out_d = volumetric ? grid->dim(1) : 1;
  params_.out_h = grid->dim(rank - 3);
  params_.out_w = grid->dim(rank - 2);
  std::vector<int64_t> shape = {params_.batch, params_.channels};
  if (volumetric) shape.push_back(params_.out_d);
  shape.insert(shape.end(), {params_.out_h, params_.out_w});
  Output(0)->Reshape(shape);
  return MaceStatus();
}

MaceStatus RegisterGridSample(OpRegistry* registry) {
  return registry->Register("GridSample", DeviceType::CPU, DT_FLOAT, NewGridSampleCpu);
}

}  // namespace ops
}  // namespace mace
