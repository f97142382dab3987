#include "mace/ops/concat.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/cpu/concat_cpu.h"
#include "mace/ops/cpu/concat_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus ConcatBase::Init() {
  OP_CHECK(InputSize() >= 1 && OutputSize() == 1, "needs one or more inputs and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  for (int i = 0; i < InputSize(); ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
  axis_arg_ = GetInt("axis", 1);
  return MaceStatus();
}

MaceStatus ConcatBase::InferShapes() {
  const Tensor* first = Input(0);
  const DataType dtype = first->dtype();
  MACE_RETURN_IF_ERROR(CheckMovedType(*this, StrCat("input '", first->name(), "'"), dtype));
  const int rank = first->dim_size();
  OP_CHECK(axis_arg_ >= -rank && axis_arg_ < rank, "axis ", axis_arg_,
           " is out of range for input '", first->name(), "' of shape ",
           ShapeToString(first->shape()));
  const int axis = static_cast<int>(axis_arg_ < 0 ? axis_arg_ + rank : axis_arg_);
  std::vector<int64_t> output_shape = first->shape();
  output_shape[axis] = 0;
  for (int i = 0; i < InputSize(); ++i) {
    const Tensor* input = Input(i);
    OP_CHECK(input->dtype() == dtype, "input '", input->name(), "' is ",
             DataTypeName(input->dtype()), " but input '", first->name(), "' is ",
             DataTypeName(dtype));
    MACE_RETURN_IF_ERROR(
        CheckElementCount(*this, StrCat("input '", input->name(), "'"), input->shape()));
    bool compatible = input->dim_size() == rank;
    for (int d = 0; compatible && d < rank; ++d) {
      compatible = d == axis || input->dim(d) == first->dim(d);
    }
    OP_CHECK(compatible, "input '", input->name(), "' has shape ", ShapeToString(input->shape()),
             " but input '", first->name(), "' has shape ", ShapeToString(first->shape()),
             "; they may differ only on axis ", axis);
    // Both terms are at most kMaxElements, so the sum cannot overflow.
    output_shape[axis] += input->dim(axis);
    OP_CHECK(output_shape[axis] <= kMaxElements, "output would have more than ", kMaxElements,
             " elements");
  }
  OP_CHECK(BoundedElementCount(output_shape) > 0, "output shape ", ShapeToString(output_shape),
           " has more than ", kMaxElements, " elements");
  axis_ = axis;
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

MaceStatus RegisterConcat(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(registry->Register("Concat", DeviceType::CPU, DT_FLOAT, NewConcatCpu));
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Concat", DeviceType::CPU, DT_UINT8, NewConcatUint8Cpu));
  }
  // Shape subgraphs (Shape -> Concat -> Reshape) compute in int32.
  return registry->Register("Concat", DeviceType::CPU, DT_INT32, NewConcatCpu);
}

}  // namespace ops
}  // namespace mace
