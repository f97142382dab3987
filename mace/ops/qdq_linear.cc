#include "mace/ops/qdq_linear.h"

#include <string>
#include <vector>

#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/qdq_linear_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus QdqLinearBase::Init() {
  OP_CHECK((InputSize() == 2 || InputSize() == 3) && OutputSize() == 1,
           "needs inputs [x, scale, optional zero point] and one output, got ", InputSize(),
           " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr && Input(1) != nullptr, "x and scale are required");
  axis_ = GetInt("axis", 1);
  block_size_ = GetInt("block_size", 0);
  OP_CHECK(block_size_ >= 0, "block_size must be 0 or positive, got ", block_size_);
  if (quantize_) {
    const std::string to = GetString("to", "UINT8");
    OP_CHECK(ref::ParseCastType(to, &params_.to) && ref::IsQuantizedType(params_.to),
             "to must be UINT8, INT8, UINT16, INT16, UINT4, INT4 or a float8 type, got '", to,
             "'");
    MACE_RETURN_IF_ERROR(ParseFlag(*this, "saturate", &params_.saturate));
    MACE_RETURN_IF_ERROR(ParseFlag(*this, "dequantize", &dequantize_));
  } else {
    OP_CHECK(!HasArg("dequantize"), "dequantize is an argument of QuantizeLinear only");
  }
  return MaceStatus();
}

MaceStatus QdqLinearBase::InferShapes() {
  const Tensor* x = Input(0);
  const Tensor* scale = Input(1);
  const Tensor* zero_point = InputSize() > 2 ? Input(2) : nullptr;
  MACE_RETURN_IF_ERROR(CheckTensor(*this, x, DT_FLOAT));
  MACE_RETURN_IF_ERROR(CheckTensor(*this, scale, DT_FLOAT));
  if (zero_point != nullptr) {
    MACE_RETURN_IF_ERROR(CheckTensor(*this, zero_point, DT_FLOAT));
    // One value each may be shaped [] or [1].
    OP_CHECK(zero_point->shape() == scale->shape() ||
                 (zero_point->size() == 1 && scale->size() == 1 && zero_point->dim_size() <= 1 &&
                  scale->dim_size() <= 1),
             "zero point shape ",
             ShapeToString(zero_point->shape()), " differs from scale shape ",
             ShapeToString(scale->shape()));
  }
  const int64_t rank = x->dim_size();
  const bool per_tensor = block_size_ == 0 && scale->size() == 1 && scale->dim_size() <= 1;
  // A per-tensor scale ignores the axis.
  OP_CHECK(per_tensor || (axis_ >= -rank && axis_ < rank), "axis ", axis_,
           " is out of range for x shape ", ShapeToString(x->shape()));
  const int64_t axis = per_tensor ? 0 : axis_ < 0 ? axis_ + rank : axis_;
  params_.outer = params_.inner = 1;
  for (int64_t d = 0; d < axis; ++d) params_.outer *= x->dim(d);
  for (int64_t d = axis + 1; d < rank; ++d) params_.inner *= x->dim(d);
  params_.axis_len = x->dim(axis);
  if (block_size_ > 0) {
    params_.grouping = ref::QdqGrouping::BLOCKED;
    params_.block = block_size_;
    std::vector<int64_t> want = x->shape();
    want[axis] = (want[axis] + block_size_ - 1) / block_size_;
    OP_CHECK(scale->shape() == want, "blocked scale has shape ", ShapeToString(scale->shape()),
             " but x ", ShapeToString(x->shape()), " in blocks of ", block_size_, " along axis ",
             axis, " needs ", ShapeToString(want));
  } else if (per_tensor) {
    params_.grouping = ref::QdqGrouping::PER_TENSOR;
  } else {
    params_.grouping = ref::QdqGrouping::PER_AXIS;
    OP_CHECK(scale->dim_size() == 1 && scale->dim(0) == params_.axis_len, "scale has shape ",
             ShapeToString(scale->shape()), " but must hold one value or one per index of axis ",
             axis, " of x ", ShapeToString(x->shape()));
  }
  Output(0)->Reshape(x->shape());
  return MaceStatus();
}

MaceStatus QdqLinearBase::Compute() {
  const Tensor* zero_point = InputSize() > 2 ? Input(2) : nullptr;
  const float* zp = zero_point != nullptr ? zero_point->data<float>() : nullptr;
  float* y = Output(0)->mutable_data<float>();
  if (!quantize_) {
    ref::DequantizeLinear(params_, Input(0)->data<float>(), Input(1)->data<float>(), zp, y);
    return MaceStatus();
  }
  const bool float8 = params_.to == ref::CastType::FLOAT8E4M3FN ||
                      params_.to == ref::CastType::FLOAT8E4M3FNUZ ||
                      params_.to == ref::CastType::FLOAT8E5M2 ||
                      params_.to == ref::CastType::FLOAT8E5M2FNUZ;
  for (int64_t i = 0; float8 && zp != nullptr && i < zero_point->size(); ++i) {
    OP_CHECK(zp[i] == 0.f, "a float8 zero point must be 0, got ", zp[i], " at index ", i);
  }
  ref::QuantizeLinear(params_, Input(0)->data<float>(), Input(1)->data<float>(), zp, y);
  if (dequantize_) ref::DequantizeLinear(params_, y, Input(1)->data<float>(), zp, y);
  return MaceStatus();
}

MaceStatus RegisterQdqLinear(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(registry->Register("QuantizeLinear", DeviceType::CPU, DT_FLOAT,
                                          NewQuantizeLinearCpu));
  return registry->Register("DequantizeLinear", DeviceType::CPU, DT_FLOAT,
                            NewDequantizeLinearCpu);
}

}  // namespace ops
}  // namespace mace
