#include "mace/ops/layer_norm.h"

#include <cmath>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/layer_norm_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus LayerNormBase::Init() {
  OP_CHECK(InputSize() >= 1 && InputSize() <= 3 && OutputSize() >= 1 && OutputSize() <= 3,
           "needs 1 to 3 inputs (x, scale, bias) and 1 to 3 outputs (y, mean, inv_std_dev), "
           "got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  axis_ = GetInt("axis", -1);
  params_.epsilon = GetFloat("epsilon", 1e-5f);
  OP_CHECK(std::isfinite(params_.epsilon) && params_.epsilon >= 0.f,
           "epsilon must be a finite number >= 0, got ", params_.epsilon);
  return MaceStatus();
}

MaceStatus LayerNormBase::InferShapes() {
  MACE_RETURN_IF_ERROR(CheckInputsTypeAndShape(*this, kernel_dtype()));
  const std::vector<int64_t>& shape = Input(0)->shape();
  const int rank = static_cast<int>(shape.size());
  OP_CHECK(rank >= 1, "input has shape ", ShapeToString(shape), " but needs rank 1 or more");
  OP_CHECK(axis_ >= -rank && axis_ < rank, "axis ", axis_, " is out of range for input shape ",
           ShapeToString(shape));
  const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
  params_.outer = params_.inner = 1;
  std::vector<int64_t> stats_shape;
  for (int i = 0; i < rank; ++i) {
    (i < axis ? params_.outer : params_.inner) *= shape[i];
    stats_shape.push_back(i < axis ? shape[i] : 1);
  }
  for (int i = 1; i < InputSize(); ++i) {
    if (Input(i) == nullptr) continue;
    OP_CHECK(Input(i)->size() == params_.inner, i == 1 ? "scale" : "bias", " has shape ",
             ShapeToString(Input(i)->shape()), " but the normalized axes of ", ShapeToString(shape),
             " hold ", params_.inner, " values");
  }
  Output(0)->Reshape(shape);
  for (int i = 1; i < OutputSize(); ++i) Output(i)->Reshape(stats_shape);
  return MaceStatus();
}

MaceStatus RegisterLayerNorm(OpRegistry* registry) {
  return registry->Register("LayerNorm", DeviceType::CPU, DT_FLOAT, NewLayerNormCpu);
}

}  // namespace ops
}  // namespace mace
