#include "mace/ops/squeeze.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/cpu/squeeze_cpu.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {

MaceStatus SqueezeBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  axes_ = GetInts("axis");
  return MaceStatus();
}

MaceStatus SqueezeBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckMovedType(*this, "input", input->dtype()));
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
  const int rank = input->dim_size();
  // An empty list removes every size-1 dimension, as a missing ONNX axes does.
  std::vector<bool> drop(rank, axes_.empty());
  for (int d = 0; d < rank; ++d) drop[d] = drop[d] && input->dim(d) == 1;
  for (int64_t axis : axes_) {
    OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for input shape ",
             ShapeToString(input->shape()));
    if (axis < 0) axis += rank;
    OP_CHECK(!drop[axis], "axis lists dimension ", axis, " more than once");
    OP_CHECK(input->dim(static_cast<int>(axis)) == 1, "dimension ", axis, " of input shape ",
             ShapeToString(input->shape()), " has size ", input->dim(static_cast<int>(axis)),
             ", not 1");
    drop[axis] = true;
  }
  std::vector<int64_t> output_shape;
  for (int d = 0; d < rank; ++d) {
    if (!drop[d]) output_shape.push_back(input->dim(d));
  }
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

MaceStatus RegisterSqueeze(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(registry->Register("Squeeze", DeviceType::CPU, DT_FLOAT, NewSqueezeCpu));
  // Shape subgraphs compute in int32.
  return registry->Register("Squeeze", DeviceType::CPU, DT_INT32, NewSqueezeCpu);
}

}  // namespace ops
}  // namespace mace
