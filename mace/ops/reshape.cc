#include "mace/ops/reshape.h"

#include <algorithm>

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/op_checks.h"
#include "mace/ops/common/runtime_ints.h"
#include "mace/ops/cpu/reshape_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus ReshapeBase::Init() {
  OP_CHECK(InputSize() >= 1 && InputSize() <= 2 && OutputSize() == 1,
           "needs inputs [input, optional shape] and one output, got ", InputSize(), " inputs and ",
           OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  const Tensor* shape_input = InputSize() > 1 ? Input(1) : nullptr;
  OP_CHECK(HasArg("shape") || shape_input != nullptr, "needs the shape argument or a shape input");
  shape_ = GetInts("shape");
  MACE_RETURN_IF_ERROR(ParseFlag(*this, "allow_zero", &allow_zero_));
  if (IsComputed(shape_input)) {
    // A shape computed at run time: memory is planned for the shape
    // argument (the output shape the model declares), and every run checks
    // that the input still gives it (CheckComputedShape).
    MACE_RETURN_IF_ERROR(CheckComputedInts(*this, *shape_input, "shape", kMaxComputedRank));
    OP_CHECK(HasArg("shape"),
             "a shape input computed at run time needs the planned output "
             "shape as the shape argument");
    OP_CHECK(static_cast<int64_t>(shape_.size()) == shape_input->size(), "shape input '",
             shape_input->name(), "' has ", shape_input->size(), " values but the planned shape ",
             ShapeToString(shape_), " has rank ", shape_.size());
    for (int64_t d : shape_) {
      OP_CHECK(d > 0 || (d == 0 && allow_zero_), "planned shape ", ShapeToString(shape_),
               " must be fully known");
    }
    computed_shape_ = true;
  } else if (shape_input != nullptr) {
    // A weight: readable now.
    OP_CHECK(shape_input->dtype() == DT_INT32, "shape input '", shape_input->name(), "' is ",
             DataTypeName(shape_input->dtype()), " but must be int32");
    OP_CHECK(shape_input->dim_size() == 1, "shape input '", shape_input->name(), "' has shape ",
             ShapeToString(shape_input->shape()), " but must be 1-D");
    std::vector<int64_t> from_input;
    if (shape_input->size() > 0) {
      MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *shape_input, "shape", &from_input));
    }
    OP_CHECK(!HasArg("shape") || shape_ == from_input, "shape argument ", ShapeToString(shape_),
             " disagrees with shape input ", ShapeToString(from_input));
    shape_ = from_input;
  }
  return CheckSpec(shape_);
}

MaceStatus ReshapeBase::CheckSpec(const std::vector<int64_t>& spec) const {
  int inferred = 0;
  for (int64_t d : spec) {
    OP_CHECK(d >= -1, "shape ", ShapeToString(spec), " has ", d,
             "; entries must be positive, 0 (copy) or -1 (infer)");
    if (d == -1) ++inferred;
  }
  OP_CHECK(inferred <= 1, "shape ", ShapeToString(spec), " has more than one -1");
  OP_CHECK(!allow_zero_ || inferred == 0 ||
               std::find(spec.begin(), spec.end(), 0) == spec.end(),
           "shape ", ShapeToString(spec), " has both -1 and 0, which allow_zero leaves ambiguous");
  return MaceStatus();
}

MaceStatus ReshapeBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckMovedType(*this, "input", input->dtype()));
  MACE_RETURN_IF_ERROR(CheckTensorMayBeEmpty(*this, input, input->dtype()));
  std::vector<int64_t> output_shape;
  MACE_RETURN_IF_ERROR(Resolve(shape_, &output_shape));
  Output(0)->Reshape(output_shape);
  return MaceStatus();
}

MaceStatus ReshapeBase::CheckComputedShape() const {
  if (!computed_shape_) return MaceStatus();
  std::vector<int64_t> spec, resolved;
  MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "shape", &spec));
  MACE_RETURN_IF_ERROR(CheckSpec(spec));
  MACE_RETURN_IF_ERROR(Resolve(spec, &resolved));
  OP_CHECK(resolved == Output(0)->shape(), "shape input '", Input(1)->name(), "' gives ",
           ShapeToString(resolved), " in this run but the output was planned as ",
           ShapeToString(Output(0)->shape()),
           "; a shape computed at run time must give the shape the model declares");
  return MaceStatus();
}

MaceStatus ReshapeBase::Resolve(const std::vector<int64_t>& spec,
                                std::vector<int64_t>* resolved) const {
  const Tensor* input = Input(0);
  const int64_t count = BoundedElementCount(input->shape());
  std::vector<int64_t>& output_shape = *resolved;
  output_shape = spec;
  if (allow_zero_) return ResolveLiteral(spec, resolved);
  if (input->size() == 0) return ResolveEmpty(spec, resolved);
  int infer_at = -1;
  int64_t known = 1;
  for (size_t i = 0; i < output_shape.size(); ++i) {
    if (output_shape[i] == 0) {
      OP_CHECK(static_cast<int>(i) < input->dim_size(), "shape ", ShapeToString(spec),
               " copies dimension ", i, " (0) but input shape ", ShapeToString(input->shape()),
               " has only ", input->dim_size());
      output_shape[i] = input->dim(static_cast<int>(i));
    }
    if (output_shape[i] == -1) {
      infer_at = static_cast<int>(i);
      continue;
    }
    // Stop before `known` could overflow; the count check below reports it.
    if (output_shape[i] > count) {
      known = count + 1;
      break;
    }
    known *= output_shape[i];
    if (known > count) break;
  }
  if (infer_at >= 0 && known <= count && count % known == 0) {
    output_shape[infer_at] = count / known;
  }
  OP_CHECK(BoundedElementCount(output_shape) == count, "cannot reshape input shape ",
           ShapeToString(input->shape()), " (", count, " elements) to ", ShapeToString(spec));
  return MaceStatus();
}

MaceStatus ReshapeBase::ResolveEmpty(const std::vector<int64_t>& spec,
                                     std::vector<int64_t>* resolved) const {
  // No elements: 0 copies the input's dimension, -1 becomes 0 when every
  // other dimension is positive, and some dimension must end up 0.
  const Tensor* input = Input(0);
  *resolved = spec;
  int infer_at = -1;
  bool empty = false;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t& d = (*resolved)[i];
    if (d == 0) {
      OP_CHECK(static_cast<int>(i) < input->dim_size(), "shape ", ShapeToString(spec),
               " copies dimension ", i, " (0) but input shape ", ShapeToString(input->shape()),
               " has only ", input->dim_size());
      d = input->dim(static_cast<int>(i));
    }
    if (d == -1) {
      infer_at = static_cast<int>(i);
      continue;
    }
    empty = empty || d == 0;
  }
  OP_CHECK(infer_at < 0 || !empty, "cannot reshape input shape ", ShapeToString(input->shape()),
           " (0 elements) to ", ShapeToString(spec), ": -1 is ambiguous next to a 0");
  if (infer_at >= 0) (*resolved)[infer_at] = 0;
  OP_CHECK(infer_at >= 0 || empty, "cannot reshape input shape ", ShapeToString(input->shape()),
           " (0 elements) to ", ShapeToString(spec));
  std::vector<int64_t> others;
  for (int64_t d : *resolved) {
    if (d != 0) others.push_back(d);
  }
  return CheckElementCount(*this, "output", others);
}

MaceStatus ReshapeBase::ResolveLiteral(const std::vector<int64_t>& spec,
                                       std::vector<int64_t>* resolved) const {
  // allow_zero: a 0 is a 0. With a 0 there is no -1 (CheckSpec), so the
  // count check below is the whole test.
  const Tensor* input = Input(0);
  *resolved = spec;
  auto infer = std::find(resolved->begin(), resolved->end(), int64_t{-1});
  if (infer != resolved->end()) {
    *infer = 1;
    const int64_t known = BoundedElementCount(*resolved);
    const int64_t count = BoundedElementCountMayBeEmpty(input->shape());
    OP_CHECK(known > 0 && count >= 0 && count % known == 0, "cannot reshape input shape ",
             ShapeToString(input->shape()), " to ", ShapeToString(spec));
    *infer = count / known;
  }
  const int64_t count = BoundedElementCountMayBeEmpty(*resolved);
  OP_CHECK(count >= 0 && count == BoundedElementCountMayBeEmpty(input->shape()),
           "cannot reshape input shape ", ShapeToString(input->shape()), " to ",
           ShapeToString(spec));
  return MaceStatus();
}

MaceStatus RegisterReshape(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(
        registry->Register("Reshape", DeviceType::CPU, DT_UINT8, NewReshapeUint8Cpu));
  }
  MACE_RETURN_IF_ERROR(registry->Register("Reshape", DeviceType::CPU, DT_FLOAT, NewReshapeCpu));
  // Shape subgraphs compute in int32.
  return registry->Register("Reshape", DeviceType::CPU, DT_INT32, NewReshapeCpu);
}

}  // namespace ops
}  // namespace mace
