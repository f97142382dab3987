#include "mace/ops/eltwise.h"

#include <algorithm>
#include <cmath>

#include "mace/ops/common/activation.h"
#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/eltwise_cpu.h"
#include "mace/ops/cpu/eltwise_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

constexpr const char* kTypeNames[] = {"SUM", "SUB", "PROD", "DIV",      "MIN",
                                      "MAX", "NEG", "ABS",  "SQR_DIFF", "POW"};
constexpr int64_t kTypeCount = sizeof(kTypeNames) / sizeof(kTypeNames[0]);

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

}  // namespace

MaceStatus EltwiseBase::Init() {
  OP_CHECK(InputSize() >= 1 && InputSize() <= 2 && OutputSize() == 1,
           "needs one or two inputs and one output, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  for (int i = 0; i < InputSize(); ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
  OP_CHECK(HasArg("type"), "needs the int argument type (0 SUM ... 9 POW)");
  const int64_t type = GetInt("type", -1);
  OP_CHECK(type >= 0 && type < kTypeCount, "type must be 0 (SUM) to 9 (POW), got ", type);
  params_.type = static_cast<ref::EltwiseType>(type);
  const char* type_name = kTypeNames[type];
  const bool has_scalar = HasArg("scalar_input");
  if (ref::IsUnary(params_.type)) {
    OP_CHECK(InputSize() == 1 && !has_scalar, type_name,
             " takes exactly one input and no scalar_input");
  } else if (InputSize() == 1) {
    OP_CHECK(has_scalar, type_name,
             " needs a second input, or the float argument scalar_input with one input");
    scalar_ = GetFloat("scalar_input", std::nanf(""));
    OP_CHECK(!std::isnan(scalar_), "scalar_input must be a float number");
    scalar_index_ = GetInt("scalar_input_index", 1);
    OP_CHECK(scalar_index_ == 0 || scalar_index_ == 1,
             "scalar_input_index must be 0 (scalar first) or 1 (scalar second), got ",
             scalar_index_);
  } else {
    OP_CHECK(!has_scalar, "scalar_input is only allowed with a single input");
  }
  OP_CHECK(!HasArg("scalar_input_index") || (InputSize() == 1 && has_scalar),
           "scalar_input_index is only allowed together with scalar_input");
  const std::vector<float> coeff = GetFloats("coeff");
  if (!coeff.empty()) {
    OP_CHECK(params_.type == ref::EltwiseType::SUM, "coeff applies only to SUM, not ", type_name);
    OP_CHECK(coeff.size() == 2, "coeff must hold two floats, got ", coeff.size());
    params_.coeff_a = coeff[0];
    params_.coeff_b = coeff[1];
  }
  return ParseActivation(*this, /*allow_prelu=*/false, &params_.activation);
}

MaceStatus EltwiseBase::InferShapes() {
  in_place_ = false;
  bool empty = false;
  for (int i = 0; i < InputSize(); ++i) {
    empty = empty || (Input(i) != nullptr && Input(i)->size() == 0);
  }
  if (empty) {
    // An empty operand gives an empty output, which the net never runs;
    // only the shapes are checked.
    for (int i = 0; i < InputSize(); ++i) {
      if (Input(i) != nullptr) {
        MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, Input(i), kernel_dtype()));
      }
    }
  } else {
    MACE_RETURN_IF_ERROR(CheckInputsTypeAndShape(*this, kernel_dtype()));
  }
  const std::vector<int64_t>& shape0 = Input(0)->shape();
  if (InputSize() == 1) {
    // NEG, ABS and the scalar forms: the scalar's strides stay all zero.
    params_.shape = shape0;
    params_.a_strides = RowMajorStrides(shape0);
    params_.b_strides.assign(shape0.size(), 0);
    if (scalar_index_ == 0) std::swap(params_.a_strides, params_.b_strides);
  } else {
    MACE_RETURN_IF_ERROR(Broadcast(shape0, Input(1)->shape()));
  }
  // Input 0 keeps the output's layout exactly when no dimension of it
  // broadcasts, i.e. when it has as many elements as the output.
  in_place_ = Input(0)->size() == BoundedElementCount(params_.shape);
  Output(0)->Reshape(params_.shape);
  return MaceStatus();
}

MaceStatus EltwiseBase::Broadcast(const std::vector<int64_t>& a_shape,
                                  const std::vector<int64_t>& b_shape) {
  const int a_rank = static_cast<int>(a_shape.size());
  const int b_rank = static_cast<int>(b_shape.size());
  const int rank = std::max(a_rank, b_rank);
  params_.shape.assign(rank, 1);
  params_.a_strides.assign(rank, 0);
  params_.b_strides.assign(rank, 0);
  int64_t a_stride = 1, b_stride = 1, count = 1;
  for (int i = rank - 1; i >= 0; --i) {
    const int a_index = i - (rank - a_rank), b_index = i - (rank - b_rank);
    const int64_t a_dim = a_index >= 0 ? a_shape[a_index] : 1;
    const int64_t b_dim = b_index >= 0 ? b_shape[b_index] : 1;
    OP_CHECK(a_dim == b_dim || a_dim == 1 || b_dim == 1, "input shapes ", ShapeToString(a_shape),
             " and ", ShapeToString(b_shape), " do not broadcast (", a_dim, " vs ", b_dim, ")");
    // A length 1 broadcasts to the other's, 0 included.
    const int64_t dim = a_dim == 1 ? b_dim : a_dim;
    // Each input is bounded, but their broadcast can still be enormous.
    OP_CHECK(dim == 0 || count <= kMaxElements / dim, "broadcasting ", ShapeToString(a_shape),
             " and ", ShapeToString(b_shape), " gives more than 2^31 elements");
    count *= dim;
    params_.shape[i] = dim;
    params_.a_strides[i] = a_dim == 1 ? 0 : a_stride;
    params_.b_strides[i] = b_dim == 1 ? 0 : b_stride;
    a_stride *= a_dim;
    b_stride *= b_dim;
  }
  return MaceStatus();
}

MaceStatus RegisterEltwise(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Eltwise", DeviceType::CPU, DT_UINT8, NewEltwiseUint8Cpu));
  }
  return registry->Register("Eltwise", DeviceType::CPU, DT_FLOAT, NewEltwiseCpu);
}

}  // namespace ops
}  // namespace mace
