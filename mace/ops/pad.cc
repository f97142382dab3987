#include "mace/ops/pad.h"

#include <utility>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/runtime_ints.h"
#include "mace/ops/cpu/pad_cpu.h"
#include "mace/ops/cpu/pad_uint8.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus PadBase::Init() {
  OP_CHECK(InputSize() >= 1 && InputSize() <= 4 && OutputSize() == 1,
           "needs inputs [data, optional pads, constant_value, axes] and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  const int64_t type = GetInt("pad_type", 0);
  OP_CHECK(type >= 0 && type <= 4,
           "pad_type must be 0 (CONSTANT), 1 (REFLECT), 2 (SYMMETRIC), 3 (EDGE) or 4 (WRAP), got ",
           type);
  params_.type = static_cast<ref::PadType>(type);
  if (InputSize() > 1) {
    OP_CHECK(!HasArg("paddings") && !HasArg("constant_value"),
             "takes the pads and the constant value either as arguments or as inputs, not both");
    OP_CHECK(Input(1) != nullptr, "needs the pads input");
    MACE_RETURN_IF_ERROR(CheckComputedInts(*this, *Input(1), "pads", 2 * kMaxComputedRank));
    if (InputSize() > 2 && Input(2) != nullptr) {
      const Tensor* value = Input(2);
      OP_CHECK(value->dtype() == DT_FLOAT && value->size() == 1, "constant_value input '",
               value->name(), "' must be one float32, got ", DataTypeName(value->dtype()),
               " of shape ", ShapeToString(value->shape()));
      if (!IsComputed(value)) MACE_RETURN_IF_ERROR(ReadConstantValue(&params_.constant_value));
    }
    has_axes_ = InputSize() > 3 && Input(3) != nullptr;
    if (has_axes_) {
      MACE_RETURN_IF_ERROR(CheckComputedInts(*this, *Input(3), "axes", kMaxComputedRank));
    }
    computed_ = IsComputed(Input(1)) || (has_axes_ && IsComputed(Input(3)));
    shape_from_values_ = computed_ && def().output_shape_size() == 0;
    // Pads and axes that are weights are read once; they are checked
    // against the input's rank in InferShapes.
    if (computed_) return MaceStatus();
    MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "pads", &const_pads_));
    if (has_axes_) MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(3), "axes", &const_axes_));
    return MaceStatus();
  }
  OP_CHECK(HasArg("paddings"), "needs the paddings argument");
  paddings_ = GetInts("paddings");
  OP_CHECK(paddings_.size() % 2 == 0, "paddings ", ShapeToString(paddings_),
           " must hold a [before, after] pair per dimension");
  for (int64_t pad : paddings_) {
    OP_CHECK(pad >= 0 && pad <= kMaxElements, "paddings ", ShapeToString(paddings_),
             " must be in [0, ", kMaxElements, "]");
  }
  params_.constant_value = GetFloat("constant_value", 0.f);
  return MaceStatus();
}

MaceStatus PadBase::ResolvePads(const std::vector<int64_t>& pads,
                                const std::vector<int64_t>& axes,
                                std::vector<int64_t>* paddings) const {
  const int rank = Input(0)->dim_size();
  const size_t count = has_axes_ ? axes.size() : static_cast<size_t>(rank);
  OP_CHECK(pads.size() == 2 * count, "pads ", ShapeToString(pads), " has ", pads.size(),
           " values but ", count, " dimensions need ", 2 * count);
  for (int64_t pad : pads) {
    OP_CHECK(pad >= 0 && pad <= kMaxElements, "pads ", ShapeToString(pads), " must be in [0, ",
             kMaxElements, "]; negative pads (cropping) are not supported");
  }
  paddings->assign(2 * rank, 0);
  std::vector<bool> seen(rank, false);
  for (size_t k = 0; k < count; ++k) {
    int64_t axis = has_axes_ ? axes[k] : static_cast<int64_t>(k);
    OP_CHECK(axis >= -rank && axis < rank, "axis ", axis, " is out of range for input shape ",
             ShapeToString(Input(0)->shape()));
    if (axis < 0) axis += rank;
    OP_CHECK(!seen[axis], "axes list dimension ", axis, " more than once");
    seen[axis] = true;
    (*paddings)[2 * axis] = pads[k];
    (*paddings)[2 * axis + 1] = pads[k + count];
  }
  return MaceStatus();
}

MaceStatus PadBase::ReadConstantValue(float* value) const {
  const Tensor* tensor = Input(2);
  OP_CHECK(tensor->raw_data() != nullptr, "constant_value input '", tensor->name(),
           "' has no data");
  *value = tensor->data<float>()[0];
  return MaceStatus();
}

MaceStatus PadBase::InferShapes(bool input_values) {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckKernelType(*this, "input", input->dtype()));
  // An empty input is padded only where the shape follows the pads (the
  // CPU kernel, which reads no element of it: ComputeParams).
  if (!shape_from_values_ || BoundedElementCountMayBeEmpty(input->shape()) != 0) {
    MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
  }
  OP_CHECK(InputSize() == 1 || kernel_dtype() == DT_FLOAT,
           "pads given as inputs need the float32 kernel");
  if (shape_from_values_ && !input_values) {
    // Unknown until the pads are: empty, of the input's rank.
    Output(0)->Reshape(std::vector<int64_t>(input->dim_size(), 0));
    return MaceStatus();
  }
  if (shape_from_values_) {
    std::vector<int64_t> pads;
    ref::PadParams params;
    MACE_RETURN_IF_ERROR(ReadComputedParams(&pads, &params));
    Output(0)->Reshape(params.output_shape);
    return MaceStatus();
  }
  if (computed_) {
    // The pads are known on every run only: plan the declared shape, which
    // ReadRuntimeInputs checks them against.
    std::vector<int64_t> planned;
    MACE_RETURN_IF_ERROR(PlannedOutputShape(*this, 0, &planned));
    OP_CHECK(static_cast<int>(planned.size()) == input->dim_size(), "planned output shape ",
             ShapeToString(planned), " does not have the rank of input shape ",
             ShapeToString(input->shape()));
    for (int d = 0; d < input->dim_size(); ++d) {
      OP_CHECK(planned[d] >= input->dim(d), "planned output shape ", ShapeToString(planned),
               " is smaller than input shape ", ShapeToString(input->shape()),
               "; negative pads (cropping) are not supported");
    }
    Output(0)->Reshape(planned);
    return MaceStatus();
  }
  if (InputSize() > 1) MACE_RETURN_IF_ERROR(ResolvePads(const_pads_, const_axes_, &paddings_));
  MACE_RETURN_IF_ERROR(ComputeParams(paddings_, &params_));
  Output(0)->Reshape(params_.output_shape);
  return MaceStatus();
}

MaceStatus PadBase::ReadRuntimeInputs() {
  if (InputSize() > 2 && IsComputed(Input(2))) {
    MACE_RETURN_IF_ERROR(ReadConstantValue(&params_.constant_value));
  }
  if (!computed_) return MaceStatus();
  std::vector<int64_t> pads;
  ref::PadParams params;
  MACE_RETURN_IF_ERROR(ReadComputedParams(&pads, &params));
  OP_CHECK(params.output_shape == Output(0)->shape(), "pads ", ShapeToString(pads), " give shape ",
           ShapeToString(params.output_shape), " in this run but the output was planned as ",
           ShapeToString(Output(0)->shape()),
           "; pads computed at run time must give the shape the model declares");
  params_ = std::move(params);
  return MaceStatus();
}

MaceStatus PadBase::ReadComputedParams(std::vector<int64_t>* pads,
                                       ref::PadParams* params) const {
  std::vector<int64_t> axes, paddings;
  MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "pads", pads));
  if (has_axes_) MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(3), "axes", &axes));
  MACE_RETURN_IF_ERROR(ResolvePads(*pads, axes, &paddings));
  params->type = params_.type;
  params->constant_value = params_.constant_value;
  return ComputeParams(paddings, params);
}

MaceStatus PadBase::ComputeParams(const std::vector<int64_t>& paddings,
                                  ref::PadParams* params) const {
  const Tensor* input = Input(0);
  const int rank = input->dim_size();
  OP_CHECK(static_cast<int>(paddings.size()) == 2 * rank, "paddings ", ShapeToString(paddings),
           " has ", paddings.size(), " values but input shape ", ShapeToString(input->shape()),
           " needs ", 2 * rank);
  params->input_shape = input->shape();
  params->output_shape.clear();
  params->pads_before.clear();
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input->dim(d);
    const int64_t before = paddings[2 * d], after = paddings[2 * d + 1];
    // Mirroring can reach at most one copy deep into the input.
    if (params->type == ref::PadType::REFLECT) {
      OP_CHECK(before < dim && after < dim, "REFLECT pads ", before, " and ", after,
               " of dimension ", d, " must be smaller than its size ", dim);
    } else if (params->type == ref::PadType::SYMMETRIC) {
      OP_CHECK(before <= dim && after <= dim, "SYMMETRIC pads ", before, " and ", after,
               " of dimension ", d, " must not exceed its size ", dim);
    } else if (params->type == ref::PadType::WRAP || params->type == ref::PadType::EDGE) {
      OP_CHECK(dim > 0 || (before == 0 && after == 0), "pads ", before, " and ", after,
               " of dimension ", d, " have no elements to repeat");
    }
    // Each term is at most kMaxElements, so the sum cannot overflow.
    params->output_shape.push_back(dim + before + after);
    params->pads_before.push_back(before);
  }
  // Empty only from an empty input (the net then skips the op).
  const int64_t count = BoundedElementCountMayBeEmpty(params->output_shape);
  OP_CHECK(count > 0 || (count == 0 && input->size() == 0), "output shape ",
           ShapeToString(params->output_shape), " has more than ", kMaxElements, " elements");
  return MaceStatus();
}

MaceStatus RegisterPad(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(registry->Register("Pad", DeviceType::CPU, DT_UINT8, NewPadUint8Cpu));
  }
  return registry->Register("Pad", DeviceType::CPU, DT_FLOAT, NewPadCpu);
}

}  // namespace ops
}  // namespace mace
