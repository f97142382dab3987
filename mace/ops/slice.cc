#include "mace/ops/slice.h"

#include <algorithm>
#include <utility>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/runtime_ints.h"
#include "mace/ops/cpu/slice_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {
namespace {

// The first index and the number of elements that [start, end) with `step`
// selects from a dimension of size `dim`, clamped as the ONNX specification
// says. numpy differs in one case: with a negative step, a start still below 0
// after adding dim selects element 0 here and nothing in numpy.
void ClampRange(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t* first,
                int64_t* length) {
  // Adding a positive dim to a negative value cannot overflow.
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    // Written so that a huge step cannot overflow: end - start <= dim.
    *length = end > start ? (end - start - 1) / step + 1 : 0;
  } else {
    // Walking backwards, -1 (before the first element) is a valid end.
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    *length = start > end ? (end - start + 1) / step + 1 : 0;
  }
  *first = start;
}

const char* const kBoundNames[] = {"starts", "ends", "axes", "steps"};

}  // namespace

MaceStatus SliceBase::Init() {
  OP_CHECK(InputSize() >= 1 && InputSize() <= 5 && OutputSize() == 1,
           "needs inputs [data, optional starts, ends, axes, steps] and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "data input is missing");
  if (InputSize() == 1) {
    OP_CHECK(HasArg("starts") && HasArg("ends"), "needs starts and ends arguments or inputs");
    starts_ = GetInts("starts");
    ends_ = GetInts("ends");
    has_axes_ = HasArg("axes");
    axes_ = GetInts("axes");
    steps_ = GetInts("steps");
    has_steps_ = HasArg("steps");
  } else {
    OP_CHECK(!HasArg("starts") && !HasArg("ends") && !HasArg("axes") && !HasArg("steps"),
             "takes starts, ends, axes and steps either as arguments or as inputs, not both");
    OP_CHECK(InputSize() >= 3 && Input(1) != nullptr && Input(2) != nullptr,
             "needs both a starts and an ends input");
    has_axes_ = InputSize() > 3 && Input(3) != nullptr;
    has_steps_ = InputSize() > 4 && Input(4) != nullptr;
    for (int i = 1; i < InputSize(); ++i) computed_ = computed_ || IsComputed(Input(i));
    if (computed_) {
      // Read on every run (ReadComputedBounds); the output is planned for
      // the shape the model declares.
      for (int i = 1; i < InputSize(); ++i) {
        if (Input(i) == nullptr) continue;
        MACE_RETURN_IF_ERROR(
            CheckComputedInts(*this, *Input(i), kBoundNames[i - 1], kMaxComputedRank));
      }
      return MaceStatus();
    }
    MACE_RETURN_IF_ERROR(ReadConstInts(1, "starts", &starts_));
    MACE_RETURN_IF_ERROR(ReadConstInts(2, "ends", &ends_));
    if (has_axes_) MACE_RETURN_IF_ERROR(ReadConstInts(3, "axes", &axes_));
    if (has_steps_) MACE_RETURN_IF_ERROR(ReadConstInts(4, "steps", &steps_));
  }
  return CheckBounds();
}

MaceStatus SliceBase::CheckBounds() {
  const size_t count = starts_.size();
  OP_CHECK(ends_.size() == count, "starts has ", count, " values but ends has ", ends_.size());
  OP_CHECK(!has_axes_ || axes_.size() == count, "starts has ", count, " values but axes has ",
           axes_.size());
  OP_CHECK(!has_steps_ || steps_.size() == count, "starts has ", count, " values but steps has ",
           steps_.size());
  if (!has_steps_) steps_.assign(count, 1);
  for (int64_t step : steps_) OP_CHECK(step != 0, "steps must not be 0");
  return MaceStatus();
}

MaceStatus SliceBase::InferShapes() {
  const Tensor* input = Input(0);
  const DataType dtype = input->dtype();
  MACE_RETURN_IF_ERROR(CheckMovedType(*this, "data input", dtype));
  // Empty data (rows a data-dependent op did not find) gives empty output.
  MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, input, dtype));
  const int rank = input->dim_size();
  if (computed_) {
    std::vector<int64_t> planned;
    MACE_RETURN_IF_ERROR(PlannedOutputShape(*this, 0, &planned));
    OP_CHECK(static_cast<int>(planned.size()) == rank, "planned output shape ",
             ShapeToString(planned), " does not have the rank of data input shape ",
             ShapeToString(input->shape()));
    for (int i = 0; i < rank; ++i) {
      OP_CHECK(planned[i] <= input->dim(i), "planned output shape ", ShapeToString(planned),
               " is larger than data input shape ", ShapeToString(input->shape()));
    }
    params_.element_size = DataTypeSize(dtype);
    params_.input_shape = input->shape();
    params_.output_shape = planned;
    params_.starts.assign(rank, 0);
    params_.steps.assign(rank, 1);
    Output(0)->Reshape(planned);
    return MaceStatus();
  }
  MACE_RETURN_IF_ERROR(ComputeParams(&params_));
  Output(0)->Reshape(params_.output_shape);
  return MaceStatus();
}

MaceStatus SliceBase::ReadComputedBounds() {
  if (!computed_) return MaceStatus();
  MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "starts", &starts_));
  MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(2), "ends", &ends_));
  axes_.clear();
  steps_.clear();
  if (has_axes_) MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(3), "axes", &axes_));
  if (has_steps_) MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(4), "steps", &steps_));
  MACE_RETURN_IF_ERROR(CheckBounds());
  ref::SliceParams params;
  MACE_RETURN_IF_ERROR(ComputeParams(&params));
  OP_CHECK(params.output_shape == Output(0)->shape(), "starts, ends, axes and steps select ",
           ShapeToString(params.output_shape), " in this run but the output was planned as ",
           ShapeToString(Output(0)->shape()),
           "; bounds computed at run time must give the shape the model declares");
  params_ = std::move(params);
  return MaceStatus();
}

MaceStatus SliceBase::ComputeParams(ref::SliceParams* params) const {
  const Tensor* input = Input(0);
  const int rank = input->dim_size();
  OP_CHECK(has_axes_ || static_cast<int64_t>(starts_.size()) <= rank, "starts has ", starts_.size(),
           " values but the data input has rank ", rank);
  params->element_size = DataTypeSize(input->dtype());
  params->input_shape = input->shape();
  params->output_shape = input->shape();
  params->starts.assign(rank, 0);
  params->steps.assign(rank, 1);
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < starts_.size(); ++k) {
    int64_t axis = has_axes_ ? axes_[k] : static_cast<int64_t>(k);
    OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for data input shape ",
             ShapeToString(input->shape()));
    if (axis < 0) axis += rank;
    OP_CHECK(!seen[axis], "axes list dimension ", axis, " more than once");
    seen[axis] = true;
    int64_t first = 0, length = 0;
    if (input->dim(axis) == 0) {
      params->steps[axis] = steps_[k];
      continue;  // nothing to select from; the output axis stays empty
    }
    ClampRange(input->dim(axis), starts_[k], ends_[k], steps_[k], &first, &length);
    OP_CHECK(length > 0, "start ", starts_[k], ", end ", ends_[k], " and step ", steps_[k],
             " select no elements from axis ", axis, " of data input shape ",
             ShapeToString(input->shape()), "; empty tensors are not supported");
    params->starts[axis] = first;
    params->steps[axis] = steps_[k];
    params->output_shape[axis] = length;
  }
  return MaceStatus();
}

MaceStatus SliceBase::ReadConstInts(int index, const char* what,
                                    std::vector<int64_t>* values) const {
  const Tensor* tensor = Input(index);
  OP_CHECK(tensor->dtype() == DT_INT32, what, " input '", tensor->name(), "' is ",
           DataTypeName(tensor->dtype()), " but must be int32");
  OP_CHECK(tensor->dim_size() == 1, what, " input '", tensor->name(), "' has shape ",
           ShapeToString(tensor->shape()), " but must be 1-D");
  values->clear();
  for (int64_t i = 0; i < tensor->size(); ++i) values->push_back(tensor->data<int32_t>()[i]);
  return MaceStatus();
}

MaceStatus RegisterSlice(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(registry->Register("Slice", DeviceType::CPU, DT_UINT8, NewSliceUint8Cpu));
  }
  MACE_RETURN_IF_ERROR(registry->Register("Slice", DeviceType::CPU, DT_FLOAT, NewSliceCpu));
  // Shape subgraphs (Shape -> Slice -> Concat) compute in int32.
  return registry->Register("Slice", DeviceType::CPU, DT_INT32, NewSliceCpu);
}

}  // namespace ops
}  // namespace mace
