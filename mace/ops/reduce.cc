#include "mace/ops/reduce.h"

#include <utility>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/runtime_ints.h"
#include "mace/ops/cpu/reduce_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus ReduceBase::Init() {
  OP_CHECK((InputSize() == 1 || InputSize() == 2) && OutputSize() == 1,
           "needs inputs [data, optional axes] and one output, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  const int64_t type = GetInt("reduce_type", 0);
  OP_CHECK(type >= 0 && type <= 4,
           "reduce_type must be 0 (MEAN), 1 (MIN), 2 (MAX), 3 (PROD) or 4 (SUM), got ", type);
  params_.type = static_cast<ref::ReduceType>(type);
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "keepdims", &keepdims_));
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "noop_with_empty_axes", &noop_with_empty_axes_));
  // A weight is read once; computed axes on every run (ReadComputedAxes).
  if (InputSize() == 2 && Input(1) != nullptr) return ReadAxesInput(*this, &computed_, &axes_);
  axes_ = GetInts("axis");
  return MaceStatus();
}

MaceStatus ReduceBase::InferShapes() {
  const Tensor* input = Input(0);
  OP_CHECK(input->dtype() == kernel_dtype(), "input is ", DataTypeName(input->dtype()),
           " but must be ", DataTypeName(kernel_dtype()));
  // An input without elements reduces to each type's empty value (ref/reduce.h).
  if (input->size() == 0) {
    MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, input, kernel_dtype()));
  } else {
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
  }
  if (computed_) {
    // The axes are known on every run only: plan the declared shape, which
    // ReadComputedAxes checks them against.
    std::vector<int64_t> planned;
    MACE_RETURN_IF_ERROR(PlannedOutputShape(*this, 0, &planned));
    OP_CHECK(!keepdims_ || static_cast<int>(planned.size()) == input->dim_size(),
             "planned output shape ", ShapeToString(planned), " does not have the rank of input shape ",
             ShapeToString(input->shape()), " although keepdims is 1");
    OP_CHECK(input->size() == 0 ||
                 BoundedElementCount(planned) <= BoundedElementCount(input->shape()),
             "planned output shape ", ShapeToString(planned), " has more elements than input shape ",
             ShapeToString(input->shape()));
    Output(0)->Reshape(planned);
    return MaceStatus();
  }
  std::vector<int64_t> output_shape;
  MACE_RETURN_IF_ERROR(ComputeParams(axes_, &params_, &output_shape, &trailing_));
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

MaceStatus ReduceBase::ReadComputedAxes() {
  if (!computed_) return MaceStatus();
  std::vector<int64_t> axes;
  MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "axes", &axes));
  ref::ReduceParams params;
  params.type = params_.type;
  std::vector<int64_t> output_shape;
  bool trailing = false;
  MACE_RETURN_IF_ERROR(ComputeParams(axes, &params, &output_shape, &trailing));
  OP_CHECK(output_shape == Output(0)->shape(), "axes ", ShapeToString(axes), " give shape ",
           ShapeToString(output_shape), " in this run but the output was planned as ",
           ShapeToString(Output(0)->shape()),
           "; axes computed at run time must give the shape the model declares");
  params_ = std::move(params);
  trailing_ = trailing;
  return MaceStatus();
}

MaceStatus ReduceBase::ComputeParams(const std::vector<int64_t>& axes, ref::ReduceParams* params,
                                     std::vector<int64_t>* output_shape, bool* trailing) const {
  const Tensor* input = Input(0);
  const int rank = input->dim_size();
  // Axes are checked here because their valid range depends on the rank. No
  // axes reduce every one, or none with noop_with_empty_axes (each output
  // then "reduces" one element: a copy).
  std::vector<bool> reduced(rank, axes.empty() && !noop_with_empty_axes_);
  for (int64_t axis : axes) {
    OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for input shape ",
             ShapeToString(input->shape()));
    const int64_t index = axis < 0 ? axis + rank : axis;
    OP_CHECK(!reduced[index], "axis ", axis, " is listed twice in ", ShapeToString(axes));
    reduced[index] = true;
  }
  params->kept_sizes.clear();
  params->kept_strides.clear();
  params->reduced_sizes.clear();
  params->reduced_strides.clear();
  output_shape->clear();
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int64_t d = input->dim(i);
    if (reduced[i]) {
      params->reduced_sizes.insert(params->reduced_sizes.begin(), d);
      params->reduced_strides.insert(params->reduced_strides.begin(), stride);
      if (keepdims_) output_shape->insert(output_shape->begin(), 1);
    } else {
      params->kept_sizes.insert(params->kept_sizes.begin(), d);
      params->kept_strides.insert(params->kept_strides.begin(), stride);
      output_shape->insert(output_shape->begin(), d);
    }
    stride *= d;
  }
  // A full reduction without keepdims is a rank-0 scalar, as in ONNX and
  // numpy (the converter's shape rules agree).
  // Reduced axes all after the kept ones: each output is a contiguous run.
  *trailing = true;
  for (int i = 1; i < rank; ++i) *trailing = *trailing && !(reduced[i - 1] && !reduced[i]);
  return MaceStatus();
}

MaceStatus RegisterReduce(OpRegistry* registry) {
  return registry->Register("Reduce", DeviceType::CPU, DT_FLOAT, NewReduceCpu);
}

}  // namespace ops
}  // namespace mace
