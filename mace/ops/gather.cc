#include "mace/ops/gather.h"

#include <cmath>
#include <string>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/cpu/gather_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

bool IsScatter(GatherKind kind) {
  return kind == GatherKind::SCATTER_ELEMENTS || kind == GatherKind::SCATTER_ND;
}

std::vector<int64_t> Sub(const std::vector<int64_t>& v, size_t begin, size_t end) {
  return std::vector<int64_t>(v.begin() + begin, v.begin() + end);
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t d : v) n *= d;
  return n;
}

}  // namespace

MaceStatus GatherBase::Init() {
  const int inputs = IsScatter(kind_) || kind_ == GatherKind::GATHER_DEQUANTIZE ? 3 : 2;
  OP_CHECK(InputSize() == inputs && OutputSize() == 1, "needs ", inputs,
           " inputs and one output, got ", InputSize(), " inputs and ", OutputSize(), " outputs");
  for (int i = 0; i < inputs; ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
  if (kind_ == GatherKind::GATHER_ND) {
    batch_dims_ = GetInt("batch_dims", 0);
    OP_CHECK(batch_dims_ >= 0, "batch_dims must be >= 0, got ", batch_dims_);
  } else if (kind_ != GatherKind::SCATTER_ND) {
    axis_ = GetInt("axis", 0);
  }
  if (IsScatter(kind_)) {
    const std::string reduction = GetString("reduction", "none");
    const char* names[] = {"none", "add", "mul", "max", "min"};
    bool known = false;
    for (int i = 0; i < 5; ++i) {
      if (reduction == names[i]) {
        reduction_ = static_cast<ref::ScatterReduction>(i);
        known = true;
      }
    }
    OP_CHECK(known, "unknown reduction '", reduction, "' (none, add, mul, max, min)");
  }
  return MaceStatus();
}

MaceStatus GatherBase::InferShapes() {
  const Tensor* data = Input(0);
  const Tensor* indices = Input(1);
  if (kind_ == GatherKind::GATHER_DEQUANTIZE) {
    MACE_RETURN_IF_ERROR(CheckTensor(*this, data, DT_INT8));
    OP_CHECK(data->dim_size() == 2, "table has shape ", ShapeToString(data->shape()),
             " but needs rank 2 [rows, columns]");
    MACE_RETURN_IF_ERROR(CheckTensor(*this, Input(2), DT_FLOAT));
    OP_CHECK(Input(2)->dim_size() == 1 && Input(2)->dim(0) == data->dim(0), "row scales have shape ",
             ShapeToString(Input(2)->shape()), " but need [", data->dim(0), "]");
    OP_CHECK(axis_ == 0, "takes axis 0 only, got ", axis_);
  } else {
    MACE_RETURN_IF_ERROR(CheckTensor(*this, data, kernel_dtype()));
  }
  OP_CHECK(indices->dtype() == DT_FLOAT || indices->dtype() == DT_INT32, "indices are ",
           DataTypeName(indices->dtype()), " but must be float32 or int32");
  // Indices may be empty (rows a data-dependent op did not find); so is
  // the output then.
  MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, indices, indices->dtype()));
  const std::vector<int64_t>& ds = data->shape();
  const std::vector<int64_t>& is = indices->shape();
  const int rank = static_cast<int>(ds.size());
  const int index_rank = static_cast<int>(is.size());
  OP_CHECK(rank >= 1, "data has shape ", ShapeToString(ds), " but needs rank 1 or more");
  std::vector<int64_t> out_shape;
  int axis = 0;
  if (kind_ != GatherKind::GATHER_ND && kind_ != GatherKind::SCATTER_ND) {
    OP_CHECK(axis_ >= -rank && axis_ < rank, "axis ", axis_, " is out of range for data shape ",
             ShapeToString(ds));
    axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
  }
  switch (kind_) {
    case GatherKind::GATHER:
    case GatherKind::GATHER_DEQUANTIZE: {
      gather_.outer = Product(Sub(ds, 0, axis));
      gather_.axis_size = ds[axis];
      gather_.inner = Product(Sub(ds, axis + 1, rank));
      gather_.count = Product(is);
      out_shape = Sub(ds, 0, axis);
      out_shape.insert(out_shape.end(), is.begin(), is.end());
      out_shape.insert(out_shape.end(), ds.begin() + axis + 1, ds.end());
      break;
    }
    case GatherKind::GATHER_ELEMENTS:
    case GatherKind::SCATTER_ELEMENTS: {
      OP_CHECK(index_rank == rank, "indices have shape ", ShapeToString(is),
               " but need the rank of data ", ShapeToString(ds));
      for (int d = 0; d < rank; ++d) {
        OP_CHECK(d == axis || is[d] <= ds[d], "indices of shape ", ShapeToString(is),
                 " exceed data of shape ", ShapeToString(ds), " in dimension ", d);
      }
      elements_.data_shape = ds;
      elements_.index_shape = is;
      elements_.axis = axis;
      elements_.reduction = reduction_;
      out_shape = kind_ == GatherKind::GATHER_ELEMENTS ? is : ds;
      break;
    }
    case GatherKind::GATHER_ND:
    case GatherKind::SCATTER_ND: {
      const int b = static_cast<int>(batch_dims_);
      OP_CHECK(index_rank >= 1 && b < index_rank && b < rank, "batch_dims ", b,
               " needs indices and data of a higher rank, got ", ShapeToString(is), " and ",
               ShapeToString(ds));
      const int64_t depth = is.back();
      OP_CHECK(depth >= 1 && depth <= rank - b, "the last dimension of indices ", ShapeToString(is),
               " must be 1 to ", rank - b, " for data ", ShapeToString(ds));
      for (int d = 0; d < b; ++d) {
        OP_CHECK(is[d] == ds[d], "batch dimension ", d, " of indices ", ShapeToString(is),
                 " and data ", ShapeToString(ds), " differ");
      }
      nd_.batch = Product(Sub(ds, 0, b));
      nd_.tuples = Product(Sub(is, b, index_rank - 1));
      nd_.depth = depth;
      nd_.dims = Sub(ds, b, b + depth);
      nd_.slice = Product(Sub(ds, b + depth, rank));
      nd_.block = Product(Sub(ds, b, rank));
      nd_.reduction = reduction_;
      out_shape = Sub(is, 0, index_rank - 1);
      out_shape.insert(out_shape.end(), ds.begin() + b + depth, ds.end());
      if (kind_ == GatherKind::SCATTER_ND) {
        const std::vector<int64_t> update_shape = out_shape;
        OP_CHECK(Input(2)->shape() == update_shape, "updates have shape ",
                 ShapeToString(Input(2)->shape()), " but indices ", ShapeToString(is), " and data ",
                 ShapeToString(ds), " need ", ShapeToString(update_shape));
        out_shape = ds;
      }
      break;
    }
  }
  if (kind_ == GatherKind::SCATTER_ELEMENTS) {
    OP_CHECK(Input(2)->shape() == is, "updates have shape ", ShapeToString(Input(2)->shape()),
             " but must have the indices' shape ", ShapeToString(is));
  }
  if (IsScatter(kind_)) MACE_RETURN_IF_ERROR(CheckTensor(*this, Input(2), kernel_dtype()));
  if (indices->size() == 0 && !IsScatter(kind_)) {
    std::vector<int64_t> others;
    for (int64_t d : out_shape) {
      if (d != 0) others.push_back(d);
    }
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", others));
  } else {
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", out_shape));
  }
  Output(0)->Reshape(out_shape);
  return MaceStatus();
}

int64_t GatherBase::Bound(int64_t i) const {
  switch (kind_) {
    case GatherKind::GATHER:
    case GatherKind::GATHER_DEQUANTIZE:
      return gather_.axis_size;
    case GatherKind::GATHER_ELEMENTS:
    case GatherKind::SCATTER_ELEMENTS:
      return elements_.data_shape[elements_.axis];
    default:
      return nd_.dims[i % nd_.depth];
  }
}

MaceStatus GatherBase::ReadIndices(std::vector<int64_t>* out) const {
  const Tensor* indices = Input(1);
  const int64_t count = indices->size();
  out->resize(count);
  const bool is_float = indices->dtype() == DT_FLOAT;
  for (int64_t i = 0; i < count; ++i) {
    double value = is_float ? indices->data<float>()[i] : indices->data<int32_t>()[i];
    OP_CHECK(std::floor(value) == value, "index ", value, " at position ", i,
             " is not a whole number");
    const int64_t bound = Bound(i);
    OP_CHECK(value >= -static_cast<double>(bound) && value < static_cast<double>(bound), "index ",
             static_cast<int64_t>(value), " at position ", i, " is out of range [", -bound, ", ",
             bound, ")");
    const int64_t index = static_cast<int64_t>(value);
    (*out)[i] = index < 0 ? index + bound : index;
  }
  return MaceStatus();
}

MaceStatus RegisterGather(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(registry->Register("Gather", DeviceType::CPU, DT_FLOAT, NewGatherCpu));
  MACE_RETURN_IF_ERROR(
      registry->Register("GatherDequantize", DeviceType::CPU, DT_FLOAT, NewGatherDequantizeCpu));
  MACE_RETURN_IF_ERROR(
      registry->Register("GatherElements", DeviceType::CPU, DT_FLOAT, NewGatherElementsCpu));
  MACE_RETURN_IF_ERROR(registry->Register("GatherND", DeviceType::CPU, DT_FLOAT, NewGatherNdCpu));
  MACE_RETURN_IF_ERROR(
      registry->Register("ScatterElements", DeviceType::CPU, DT_FLOAT, NewScatterElementsCpu));
  return registry->Register("ScatterND", DeviceType::CPU, DT_FLOAT, NewScatterNdCpu);
}

}  // namespace ops
}  // namespace mace
