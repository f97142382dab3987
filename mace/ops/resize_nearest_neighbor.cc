#include "mace/ops/resize_nearest_neighbor.h"

#include <string>

#include "mace/ops/cpu/resize_nearest_neighbor_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus ResizeNearestNeighborBase::Init() {
  MACE_RETURN_IF_ERROR(ParseResizeInputs(*this, CoordinateMode::ASYMMETRIC, &args_));
  const std::string nearest_mode = GetString("nearest_mode", "round_prefer_floor");
  if (nearest_mode == "round_prefer_floor") {
    params_.nearest_mode = ref::NearestMode::ROUND_PREFER_FLOOR;
  } else if (nearest_mode == "round_prefer_ceil") {
    params_.nearest_mode = ref::NearestMode::ROUND_PREFER_CEIL;
  } else if (nearest_mode == "floor") {
    params_.nearest_mode = ref::NearestMode::FLOOR;
  } else if (nearest_mode == "ceil") {
    params_.nearest_mode = ref::NearestMode::CEIL;
  } else {
    return Invalid(StrCat("unknown nearest_mode '", nearest_mode,
                          "' (expected round_prefer_floor, round_prefer_ceil, floor or ceil)"));
  }
  return MaceStatus();
}

MaceStatus ResizeNearestNeighborBase::InferShapes() {
  return InferResizeShapes(this, args_, &params_);
}

MaceStatus RegisterResizeNearestNeighbor(OpRegistry* registry) {
  return registry->Register("ResizeNearestNeighbor", DeviceType::CPU, DT_FLOAT,
                            NewResizeNearestNeighborCpu);
}

}  // namespace ops
}  // namespace mace
