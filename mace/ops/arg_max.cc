#include "mace/ops/arg_max.h"

#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/arg_max_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus ArgMaxBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  axis_ = GetInt("axis", 0);
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "keepdims", &keepdims_));
  return ParseFlag(*this, "select_last_index", &params_.select_last_index);
}

MaceStatus ArgMaxBase::InferShapes() {
  const Tensor* input = Input(0);
  OP_CHECK(input->dtype() == kernel_dtype(), "input is ", DataTypeName(input->dtype()),
           " but must be ", DataTypeName(kernel_dtype()));
  const int rank = input->dim_size();
  OP_CHECK(rank >= 1, "input has shape ", ShapeToString(input->shape()),
           " but needs rank 1 or more");
  // The cap also keeps every index below 2^31, so it fits int32.
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
  OP_CHECK(axis_ >= -rank && axis_ < rank, "axis ", axis_, " is out of range for input shape ",
           ShapeToString(input->shape()));
  const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
  params_.outer = params_.inner = 1;
  std::vector<int64_t> output_shape;
  for (int i = 0; i < rank; ++i) {
    if (i < axis) params_.outer *= input->dim(i);
    if (i > axis) params_.inner *= input->dim(i);
    if (i != axis) output_shape.push_back(input->dim(i));
    if (i == axis && keepdims_) output_shape.push_back(1);
  }
  params_.axis_size = input->dim(axis);
  // A rank-1 input without keepdims gives a rank-0 scalar, as for Reduce.
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

MaceStatus RegisterArgMax(OpRegistry* registry) {
  return registry->Register("ArgMax", DeviceType::CPU, DT_FLOAT, NewArgMaxCpu);
}

}  // namespace ops
}  // namespace mace
