#include "mace/ops/mat_mul.h"

#include <algorithm>

#include "mace/ops/common/conv_inputs.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/cpu/mat_mul_cpu.h"
#include "mace/ops/cpu/mat_mul_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus MatMulBase::Init() {
  OP_CHECK(InputSize() >= 2 && InputSize() <= 3 && OutputSize() == 1,
           "needs inputs [A, B, optional bias] and one output, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input A is missing");
  OP_CHECK(Input(1) != nullptr, "input B is missing");
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "transpose_a", &params_.transpose_a));
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "transpose_b", &params_.transpose_b));
  return MaceStatus();
}

MaceStatus MatMulBase::InferShapes() {
  const Tensor* a = Input(0);
  const Tensor* b = Input(1);
  MACE_RETURN_IF_ERROR(kernel_dtype() == DT_UINT8 ? CheckQuantizedInputTypes(*this)
                                                  : CheckInputsTypeAndShape(*this, DT_FLOAT));
  OP_CHECK(a->dim_size() >= 2, "A has shape ", ShapeToString(a->shape()),
           " but needs rank 2 or more");
  OP_CHECK(b->dim_size() >= 2, "B has shape ", ShapeToString(b->shape()),
           " but needs rank 2 or more");
  params_.m = params_.transpose_a ? a->dim(-1) : a->dim(-2);
  params_.k = params_.transpose_a ? a->dim(-2) : a->dim(-1);
  params_.n = params_.transpose_b ? b->dim(-2) : b->dim(-1);
  const int64_t b_k = params_.transpose_b ? b->dim(-1) : b->dim(-2);
  OP_CHECK(b_k == params_.k, "A ", ShapeToString(a->shape()), " (transpose_a ", params_.transpose_a,
           ") has inner dimension ", params_.k, " but B ", ShapeToString(b->shape()),
           " (transpose_b ", params_.transpose_b, ") has ", b_k);
  MACE_RETURN_IF_ERROR(CheckBias(*this, params_.n));
  MACE_RETURN_IF_ERROR(BroadcastBatch(a->shape(), b->shape()));
  std::vector<int64_t> output_shape = params_.batch_shape;
  output_shape.push_back(params_.m);
  output_shape.push_back(params_.n);
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", output_shape));
  batch_count_ = BoundedElementCount(params_.batch_shape);
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

MaceStatus MatMulBase::BroadcastBatch(const std::vector<int64_t>& a_shape,
                                      const std::vector<int64_t>& b_shape) {
  const int a_rank = static_cast<int>(a_shape.size()) - 2;
  const int b_rank = static_cast<int>(b_shape.size()) - 2;
  const int rank = std::max(a_rank, b_rank);
  params_.batch_shape.assign(rank, 1);
  params_.a_batch_strides.assign(rank, 0);
  params_.b_batch_strides.assign(rank, 0);
  int64_t a_stride = 1, b_stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int a_index = i - (rank - a_rank), b_index = i - (rank - b_rank);
    const int64_t a_dim = a_index >= 0 ? a_shape[a_index] : 1;
    const int64_t b_dim = b_index >= 0 ? b_shape[b_index] : 1;
    OP_CHECK(a_dim == b_dim || a_dim == 1 || b_dim == 1, "batch dimensions of A ",
             ShapeToString(a_shape), " and B ", ShapeToString(b_shape), " do not broadcast (",
             a_dim, " vs ", b_dim, ")");
    params_.batch_shape[i] = std::max(a_dim, b_dim);
    params_.a_batch_strides[i] = a_dim == 1 ? 0 : a_stride;
    params_.b_batch_strides[i] = b_dim == 1 ? 0 : b_stride;
    a_stride *= a_dim;
    b_stride *= b_dim;
  }
  return MaceStatus();
}

int64_t MatMulBase::Macs() const { return batch_count_ * params_.m * params_.k * params_.n; }

MaceStatus RegisterMatMul(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(registry->Register("MatMul", DeviceType::CPU, DT_FLOAT, NewMatMulCpu));
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("MatMul", DeviceType::CPU, DT_UINT8, NewMatMulUint8Cpu));
  }
  return MaceStatus();
}

}  // namespace ops
}  // namespace mace
