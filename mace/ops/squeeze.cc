#include "mace/ops/squeeze.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/runtime_ints.h"
#include "mace/ops/cpu/squeeze_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus SqueezeBase::Init() {
  OP_CHECK((InputSize() == 1 || InputSize() == 2) && OutputSize() == 1,
           "needs inputs [input, optional axes] and one output, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "unsqueeze", &unsqueeze_));
  // A weight is read once; computed axes on every run (ReadRuntimeInputs).
  if (InputSize() == 2 && Input(1) != nullptr) return ReadAxesInput(*this, &computed_, &axes_);
  axes_ = GetInts("axis");
  OP_CHECK(!unsqueeze_ || !axes_.empty(), "unsqueeze needs at least one axis");
  return MaceStatus();
}

MaceStatus SqueezeBase::ComputeShape(const std::vector<int64_t>& axes,
                                     std::vector<int64_t>* shape) const {
  const Tensor* input = Input(0);
  shape->clear();
  if (unsqueeze_) {
    // The axes index the output, which has one more dimension per axis.
    const int rank = input->dim_size() + static_cast<int>(axes.size());
    OP_CHECK(rank <= kMaxComputedRank, "unsqueezing ", ShapeToString(input->shape()), " by ",
             axes.size(), " axes gives rank ", rank, ", more than ", kMaxComputedRank);
    std::vector<bool> added(rank, false);
    for (int64_t axis : axes) {
      OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for output rank ",
               rank);
      if (axis < 0) axis += rank;
      OP_CHECK(!added[axis], "axis lists dimension ", axis, " more than once");
      added[axis] = true;
    }
    int next = 0;
    for (int d = 0; d < rank; ++d) shape->push_back(added[d] ? 1 : input->dim(next++));
    return MaceStatus();
  }
  const int rank = input->dim_size();
  // An empty list removes every size-1 dimension, as a missing ONNX axes does.
  std::vector<bool> drop(rank, axes.empty());
  for (int d = 0; d < rank; ++d) drop[d] = drop[d] && input->dim(d) == 1;
  for (int64_t axis : axes) {
    OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for input shape ",
             ShapeToString(input->shape()));
    if (axis < 0) axis += rank;
    OP_CHECK(!drop[axis], "axis lists dimension ", axis, " more than once");
    OP_CHECK(input->dim(static_cast<int>(axis)) == 1, "dimension ", axis, " of input shape ",
             ShapeToString(input->shape()), " has size ", input->dim(static_cast<int>(axis)),
             ", not 1");
    drop[axis] = true;
  }
  for (int d = 0; d < rank; ++d) {
    if (!drop[d]) shape->push_back(input->dim(d));
  }
  return MaceStatus();
}

MaceStatus SqueezeBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckMovedType(*this, "input", input->dtype()));
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
  std::vector<int64_t> output_shape;
  if (computed_) {
    // The axes are known on every run only: plan the declared shape, which
    // ReadRuntimeInputs checks them against.
    MACE_RETURN_IF_ERROR(PlannedOutputShape(*this, 0, &output_shape));
    OP_CHECK(BoundedElementCount(output_shape) == BoundedElementCount(input->shape()),
             "planned output shape ", ShapeToString(output_shape),
             " does not hold the elements of input shape ", ShapeToString(input->shape()));
  } else {
    MACE_RETURN_IF_ERROR(ComputeShape(axes_, &output_shape));
  }
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

MaceStatus SqueezeBase::ReadRuntimeInputs() {
  if (!computed_) return MaceStatus();
  std::vector<int64_t> axes, shape;
  MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "axes", &axes));
  MACE_RETURN_IF_ERROR(ComputeShape(axes, &shape));
  OP_CHECK(shape == Output(0)->shape(), "axes ", ShapeToString(axes), " give shape ",
           ShapeToString(shape), " in this run but the output was planned as ",
           ShapeToString(Output(0)->shape()),
           "; axes computed at run time must give the shape the model declares");
  return MaceStatus();
}

MaceStatus RegisterSqueeze(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Squeeze", DeviceType::CPU, DT_UINT8, NewSqueezeUint8Cpu));
  }
  MACE_RETURN_IF_ERROR(registry->Register("Squeeze", DeviceType::CPU, DT_FLOAT, NewSqueezeCpu));
  // Shape subgraphs compute in int32.
  return registry->Register("Squeeze", DeviceType::CPU, DT_INT32, NewSqueezeCpu);
}

}  // namespace ops
}  // namespace mace
