#include "mace/ops/pad.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/input_checks.h"
#include "mace/ops/cpu/pad_cpu.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {

MaceStatus PadBase::Init() {
  OP_CHECK(InputSize() == 1 && OutputSize() == 1, "needs one input and one output, got ",
           InputSize(), " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  OP_CHECK(HasArg("paddings"), "needs the paddings argument");
  paddings_ = GetInts("paddings");
  OP_CHECK(paddings_.size() % 2 == 0, "paddings ", ShapeToString(paddings_),
           " must hold a [before, after] pair per dimension");
  for (int64_t pad : paddings_) {
    OP_CHECK(pad >= 0 && pad <= kMaxElements, "paddings ", ShapeToString(paddings_),
             " must be in [0, ", kMaxElements, "]");
  }
  const int64_t type = GetInt("pad_type", 0);
  OP_CHECK(type >= 0 && type <= 3,
           "pad_type must be 0 (CONSTANT), 1 (REFLECT), 2 (SYMMETRIC) or 3 (EDGE), got ", type);
  params_.type = static_cast<ref::PadType>(type);
  params_.constant_value = GetFloat("constant_value", 0.f);
  return MaceStatus();
}

MaceStatus PadBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckKernelType(*this, "input", input->dtype()));
  MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
  const int rank = input->dim_size();
  OP_CHECK(static_cast<int>(paddings_.size()) == 2 * rank, "paddings ", ShapeToString(paddings_),
           " has ", paddings_.size(), " values but input shape ", ShapeToString(input->shape()),
           " needs ", 2 * rank);
  params_.input_shape = input->shape();
  params_.output_shape.clear();
  params_.pads_before.clear();
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = input->dim(d);
    const int64_t before = paddings_[2 * d], after = paddings_[2 * d + 1];
    // Mirroring can reach at most one copy deep into the input.
    if (params_.type == ref::PadType::REFLECT) {
      OP_CHECK(before < dim && after < dim, "REFLECT pads ", before, " and ", after,
               " of dimension ", d, " must be smaller than its size ", dim);
    } else if (params_.type == ref::PadType::SYMMETRIC) {
      OP_CHECK(before <= dim && after <= dim, "SYMMETRIC pads ", before, " and ", after,
               " of dimension ", d, " must not exceed its size ", dim);
    }
    // Each term is at most kMaxElements, so the sum cannot overflow.
    params_.output_shape.push_back(dim + before + after);
    params_.pads_before.push_back(before);
  }
  OP_CHECK(BoundedElementCount(params_.output_shape) > 0, "output shape ",
           ShapeToString(params_.output_shape), " has more than ", kMaxElements, " elements");
  Output(0)->Reshape(params_.output_shape);
  return MaceStatus();
}

MaceStatus RegisterPad(OpRegistry* registry) {
  return registry->Register("Pad", DeviceType::CPU, DT_FLOAT, NewPadCpu);
}

}  // namespace ops
}  // namespace mace
