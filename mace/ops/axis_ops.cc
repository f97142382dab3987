#include "mace/ops/axis_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/runtime_ints.h"
#include "mace/ops/cpu/axis_ops_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus AxisOpBase::Init() {
  const int outputs = kind_ == AxisOpKind::TOP_K ? 2 : 1;
  OP_CHECK(InputSize() >= 1 && InputSize() <= 2 && OutputSize() == outputs,
           "needs one or two inputs and ", outputs, " output(s), got ", InputSize(),
           " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  switch (kind_) {
    case AxisOpKind::TRILU:
      MACE_RETURN_IF_ERROR(ParseFlag(*this, "upper", &trilu_.upper));
      trilu_.k = GetInt("k", 0);
      OP_CHECK(!(HasArg("k") && InputSize() > 1 && Input(1) != nullptr),
               "k is given both as an argument and as input 1");
      break;
    case AxisOpKind::CUM_SUM:
      axis_ = GetInt("axis", 0);
      OP_CHECK(!(HasArg("axis") && InputSize() > 1 && Input(1) != nullptr),
               "axis is given both as an argument and as input 1");
      MACE_RETURN_IF_ERROR(ParseFlag(*this, "exclusive", &cum_sum_.exclusive));
      MACE_RETURN_IF_ERROR(ParseFlag(*this, "reverse", &cum_sum_.reverse));
      break;
    case AxisOpKind::TILE:
      OP_CHECK(HasArg("repeats"), "needs the ints argument repeats");
      repeats_ = GetInts("repeats");
      MACE_RETURN_IF_ERROR(ParseFlag(*this, "expand", &expand_));
      // Expanding to a shape with a 0 plans an empty output.
      for (int64_t r : repeats_) {
        OP_CHECK(r >= 1 || (r == 0 && expand_), "repeats must be >= 1, got ", r);
      }
      if (InputSize() > 1 && Input(1) != nullptr) {
        MACE_RETURN_IF_ERROR(CheckComputedInts(*this, *Input(1), expand_ ? "shape" : "repeats",
                                               kMaxComputedRank));
      } else {
        OP_CHECK(!expand_, "expand needs the target shape as input 1");
      }
      break;
    case AxisOpKind::TOP_K:
      axis_ = GetInt("axis", -1);
      OP_CHECK(HasArg("k"), "needs the int argument k");
      top_k_.k = GetInt("k", 0);
      OP_CHECK(top_k_.k >= 1, "k must be >= 1, got ", top_k_.k);
      MACE_RETURN_IF_ERROR(ParseFlag(*this, "largest", &top_k_.largest));
      break;
  }
  return MaceStatus();
}

MaceStatus AxisOpBase::SplitAtAxis(int64_t axis, int64_t* outer, int64_t* axis_size,
                                   int64_t* inner) {
  const std::vector<int64_t>& shape = Input(0)->shape();
  const int rank = static_cast<int>(shape.size());
  OP_CHECK(rank >= 1, "input has shape ", ShapeToString(shape), " but needs rank 1 or more");
  OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for input shape ",
           ShapeToString(shape));
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  *outer = *inner = 1;
  for (int i = 0; i < a; ++i) *outer *= shape[i];
  for (int i = a + 1; i < rank; ++i) *inner *= shape[i];
  *axis_size = shape[a];
  return MaceStatus();
}

MaceStatus AxisOpBase::InferShapes() {
  // Trilu's output is as empty as its input; the other kinds need elements.
  MACE_RETURN_IF_ERROR(kind_ == AxisOpKind::TRILU
                           ? CheckTensorMayBeEmpty(*this, Input(0), kernel_dtype())
                           : CheckTensor(*this, Input(0), kernel_dtype()));
  const std::vector<int64_t>& shape = Input(0)->shape();
  const int rank = static_cast<int>(shape.size());
  switch (kind_) {
    case AxisOpKind::TRILU: {
      OP_CHECK(rank >= 2, "input has shape ", ShapeToString(shape), " but needs rank 2 or more");
      trilu_.rows = shape[rank - 2];
      trilu_.cols = shape[rank - 1];
      trilu_.batch = 1;
      for (int i = 0; i < rank - 2; ++i) trilu_.batch *= shape[i];
      if (InputSize() > 1 && Input(1) != nullptr) MACE_RETURN_IF_ERROR(CheckScalarInput("k"));
      Output(0)->Reshape(shape);
      break;
    }
    case AxisOpKind::CUM_SUM:
      if (InputSize() > 1 && Input(1) != nullptr) {
        MACE_RETURN_IF_ERROR(CheckScalarInput("axis"));
        OP_CHECK(rank >= 1, "input has shape ", ShapeToString(shape), " but needs rank 1 or more");
      } else {
        MACE_RETURN_IF_ERROR(
            SplitAtAxis(axis_, &cum_sum_.outer, &cum_sum_.axis_size, &cum_sum_.inner));
      }
      Output(0)->Reshape(shape);
      break;
    case AxisOpKind::TILE: {
      OP_CHECK(static_cast<int>(repeats_.size()) == rank, "repeats ", ShapeToString(repeats_),
               " need one value per dimension of input shape ", ShapeToString(shape));
      std::vector<int64_t> out(rank);
      for (int i = 0; i < rank; ++i) {
        OP_CHECK(repeats_[i] <= kMaxElements / shape[i], "repeats ", ShapeToString(repeats_),
                 " make the output of ", ShapeToString(shape), " too large");
        out[i] = shape[i] * repeats_[i];
      }
      // A 0 repeat (expand mode only, Init) empties the output: the net
      // then skips the op.
      if (BoundedElementCountMayBeEmpty(out) != 0) {
        MACE_RETURN_IF_ERROR(CheckElementCount(*this, "output", out));
      }
      tile_.input_shape = shape;
      tile_.output_shape = out;
      Output(0)->Reshape(out);
      break;
    }
    case AxisOpKind::TOP_K: {
      if (InputSize() > 1 && Input(1) != nullptr) MACE_RETURN_IF_ERROR(CheckScalarInput("k"));
      MACE_RETURN_IF_ERROR(SplitAtAxis(axis_, &top_k_.outer, &top_k_.axis_size, &top_k_.inner));
      OP_CHECK(top_k_.k <= top_k_.axis_size, "k ", top_k_.k, " exceeds the ", top_k_.axis_size,
               " values along axis ", axis_, " of input shape ", ShapeToString(shape));
      std::vector<int64_t> out = shape;
      out[axis_ < 0 ? axis_ + rank : axis_] = top_k_.k;
      Output(0)->Reshape(out);
      Output(1)->Reshape(out);
      break;
    }
  }
  return MaceStatus();
}

MaceStatus AxisOpBase::CheckScalarInput(const char* what) {
  OP_CHECK(Input(1)->size() == 1, what, " (input 1) has shape ", ShapeToString(Input(1)->shape()),
           " but must hold one value");
  OP_CHECK(Input(1)->dtype() == DT_FLOAT || Input(1)->dtype() == DT_INT32, what, " (input 1) is ",
           DataTypeName(Input(1)->dtype()), " but must be float32 or int32");
  return MaceStatus();
}

MaceStatus AxisOpBase::ReadInputArgs() {
  if (InputSize() < 2 || Input(1) == nullptr) return MaceStatus();
  if (kind_ == AxisOpKind::TILE && expand_) {
    // The output is the input broadcast to the target (right-aligned).
    std::vector<int64_t> target;
    MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "shape", &target));
    const std::vector<int64_t>& shape = Input(0)->shape();
    OP_CHECK(target.size() <= shape.size(), "shape (input 1) ", ShapeToString(target),
             " has more dimensions than the input ", ShapeToString(shape));
    std::vector<int64_t> out = shape;
    const size_t offset = shape.size() - target.size();
    for (size_t i = 0; i < target.size(); ++i) {
      const int64_t a = shape[offset + i], b = target[i];
      OP_CHECK(a == b || a == 1 || b == 1, "input shape ", ShapeToString(shape),
               " does not broadcast to shape (input 1) ", ShapeToString(target));
      out[offset + i] = a == 1 ? b : a;
    }
    OP_CHECK(out == Output(0)->shape(), "shape (input 1) ", ShapeToString(target), " gives ",
             ShapeToString(out), " in this run but the output was planned as ",
             ShapeToString(Output(0)->shape()),
             "; a shape computed at run time must give the shape the model declares");
    return MaceStatus();
  }
  if (kind_ == AxisOpKind::TILE) {
    std::vector<int64_t> repeats;
    MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "repeats", &repeats));
    OP_CHECK(repeats == repeats_, "repeats (input 1) are ", ShapeToString(repeats),
             " in this run but the output was planned for ", ShapeToString(repeats_),
             "; repeats computed at run time must give the shape the model declares");
    return MaceStatus();
  }
  if (kind_ == AxisOpKind::TOP_K) {
    std::vector<int64_t> k;
    MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "k", &k));
    OP_CHECK(k[0] == top_k_.k, "k (input 1) is ", k[0], " in this run but the output was planned ",
             "for k ", top_k_.k, "; a k computed at run time must give the shape the model declares");
    return MaceStatus();
  }
  const double value =
      Input(1)->dtype() == DT_FLOAT ? Input(1)->data<float>()[0] : Input(1)->data<int32_t>()[0];
  const char* what = kind_ == AxisOpKind::TRILU ? "k" : "axis";
  OP_CHECK(std::floor(value) == value, what, " (input 1) is ", value, ", not a whole number");
  if (kind_ == AxisOpKind::CUM_SUM) {
    const double rank = static_cast<double>(Input(0)->dim_size());
    OP_CHECK(value >= -rank && value < rank, "axis (input 1) ", value,
             " is out of range for input shape ", ShapeToString(Input(0)->shape()));
    return SplitAtAxis(static_cast<int64_t>(value), &cum_sum_.outer, &cum_sum_.axis_size,
                       &cum_sum_.inner);
  }
  const double k = value;
  // Beyond the matrix every diagonal is the same; clamping keeps it finite.
  const double limit = static_cast<double>(trilu_.rows + trilu_.cols);
  trilu_.k = static_cast<int64_t>(std::max(-limit, std::min(limit, k)));
  return MaceStatus();
}

MaceStatus RegisterAxisOps(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(registry->Register("CumSum", DeviceType::CPU, DT_FLOAT, NewCumSumCpu));
  MACE_RETURN_IF_ERROR(registry->Register("Tile", DeviceType::CPU, DT_FLOAT, NewTileCpu));
  MACE_RETURN_IF_ERROR(registry->Register("TopK", DeviceType::CPU, DT_FLOAT, NewTopKCpu));
  return registry->Register("Trilu", DeviceType::CPU, DT_FLOAT, NewTriluCpu);
}

}  // namespace ops
}  // namespace mace
