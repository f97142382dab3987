#include "mace/ops/transpose.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/cpu/transpose_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus TransposeBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  // An empty list counts as absent, like a missing ONNX perm.
  dims_ = GetInts("dims");
  return MaceStatus();
}

MaceStatus TransposeBase::InferShapes() {
  const Tensor* input = Input(0);
  const DataType dtype = input->dtype();
  MACE_RETURN_IF_ERROR(CheckMovedType(*this, "input", dtype));
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
  const int rank = input->dim_size();
  std::vector<int64_t> perm;
  if (!dims_.empty()) {
    OP_CHECK(static_cast<int>(dims_.size()) == rank, "dims ", ShapeToString(dims_), " has ",
             dims_.size(), " entries but the input has shape ", ShapeToString(input->shape()));
    std::vector<bool> seen(rank, false);
    for (int64_t d : dims_) {
      OP_CHECK(d >= -rank && d < rank, "dims ", ShapeToString(dims_), " is not a permutation: ", d,
               " is out of range for rank ", rank);
      if (d < 0) d += rank;
      OP_CHECK(!seen[d], "dims ", ShapeToString(dims_), " is not a permutation: dimension ", d,
               " appears twice");
      seen[d] = true;
      perm.push_back(d);
    }
  } else {
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  std::vector<int64_t> output_shape;
  for (int64_t d : perm) output_shape.push_back(input->dim(static_cast<int>(d)));
  params_.element_size = DataTypeSize(dtype);
  params_.input_shape = input->shape();
  params_.perm = perm;
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

MaceStatus RegisterTranspose(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Transpose", DeviceType::CPU, DT_UINT8, NewTransposeUint8Cpu));
  }
  MACE_RETURN_IF_ERROR(registry->Register("Transpose", DeviceType::CPU, DT_FLOAT, NewTransposeCpu));
  // Shape subgraphs compute in int32.
  return registry->Register("Transpose", DeviceType::CPU, DT_INT32, NewTransposeCpu);
}

}  // namespace ops
}  // namespace mace
