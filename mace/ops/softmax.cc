#include "mace/ops/softmax.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/softmax_cpu.h"
#include "mace/ops/cpu/softmax_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus SoftmaxBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  axis_ = GetInt("axis", -1);
  return ParseFlag(*this, "use_log", &params_.use_log);
}

MaceStatus SoftmaxBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckTensor(*this, input, kernel_dtype()));
  const std::vector<int64_t>& shape = input->shape();
  const int64_t rank = input->dim_size();
  OP_CHECK(rank >= 1, "input has shape ", ShapeToString(shape), " but needs rank 1 or more");
  // The rank is only known here, so a negative axis is resolved here too.
  OP_CHECK(axis_ >= -rank && axis_ < rank, "axis ", axis_, " is out of range for input shape ",
           ShapeToString(shape), " (rank ", rank, ")");
  const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
  params_.outer = BoundedElementCount({shape.begin(), shape.begin() + axis});
  params_.axis_size = shape[axis];
  params_.inner = BoundedElementCount({shape.begin() + axis + 1, shape.end()});
  Output(0)->Reshape(shape);
  return MaceStatus();
}

MaceStatus RegisterSoftmax(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Softmax", DeviceType::CPU, DT_UINT8, NewSoftmaxUint8Cpu));
  }
  return registry->Register("Softmax", DeviceType::CPU, DT_FLOAT, NewSoftmaxCpu);
}

}  // namespace ops
}  // namespace mace
