#include "mace/ops/reduce.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/reduce_cpu.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {

MaceStatus ReduceBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  const int64_t type = GetInt("reduce_type", 0);
  OP_CHECK(type >= 0 && type <= 4,
           "reduce_type must be 0 (MEAN), 1 (MIN), 2 (MAX), 3 (PROD) or 4 (SUM), got ", type);
  params_.type = static_cast<ref::ReduceType>(type);
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "keepdims", &keepdims_));
  axes_ = GetInts("axis");
  return MaceStatus();
}

MaceStatus ReduceBase::InferShapes() {
  const Tensor* input = Input(0);
  OP_CHECK(input->dtype() == kernel_dtype(), "input is ", DataTypeName(input->dtype()),
           " but must be ", DataTypeName(kernel_dtype()));
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
  const int rank = input->dim_size();
  // Axes are checked here because their valid range depends on the rank.
  std::vector<bool> reduced(rank, axes_.empty());
  for (int64_t axis : axes_) {
    OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for input shape ",
             ShapeToString(input->shape()));
    const int64_t index = axis < 0 ? axis + rank : axis;
    OP_CHECK(!reduced[index], "axis ", axis, " is listed twice in ", ShapeToString(axes_));
    reduced[index] = true;
  }
  params_.kept_sizes.clear();
  params_.kept_strides.clear();
  params_.reduced_sizes.clear();
  params_.reduced_strides.clear();
  std::vector<int64_t> output_shape;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int64_t d = input->dim(i);
    if (reduced[i]) {
      params_.reduced_sizes.insert(params_.reduced_sizes.begin(), d);
      params_.reduced_strides.insert(params_.reduced_strides.begin(), stride);
      if (keepdims_) output_shape.insert(output_shape.begin(), 1);
    } else {
      params_.kept_sizes.insert(params_.kept_sizes.begin(), d);
      params_.kept_strides.insert(params_.kept_strides.begin(), stride);
      output_shape.insert(output_shape.begin(), d);
    }
    stride *= d;
  }
  // MACE tensors have rank 1 or more: a full reduction without keepdims is
  // [1], not a rank-0 scalar (the converter's shape rules agree).
  if (output_shape.empty()) output_shape.push_back(1);
  Output(0)->Reshape(output_shape);
  // Reduced axes all after the kept ones: each output is a contiguous run.
  trailing_ = true;
  for (int i = 1; i < rank; ++i) trailing_ = trailing_ && !(reduced[i - 1] && !reduced[i]);
  return MaceStatus();
}

MaceStatus RegisterReduce(OpRegistry* registry) {
  return registry->Register("Reduce", DeviceType::CPU, DT_FLOAT, NewReduceCpu);
}

}  // namespace ops
}  // namespace mace
