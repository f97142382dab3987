#include "mace/ops/split.h"

#include "mace/ops/common/element_count.h"
#include "mace/ops/common/runtime_ints.h"
#include "mace/ops/cpu/split_cpu.h"
#include "mace/ops/op_registration.h"

namespace mace {
namespace ops {

MaceStatus SplitBase::Init() {
  OP_CHECK((InputSize() == 1 || InputSize() == 2) && OutputSize() >= 1,
           "needs inputs [input, optional split] and one or more outputs, got ", InputSize(),
           " inputs and ", OutputSize(), " outputs");
  OP_CHECK(Input(0) != nullptr, "input is missing");
  axis_arg_ = GetInt("axis", 1);
  size_args_ = GetInts("split");
  if (InputSize() == 2) {
    // Sizes given as a tensor (computed at run time, or a weight): output
    // shapes are planned for the split argument, and every run checks the
    // tensor gives the same sizes (CheckSizeInput).
    OP_CHECK(Input(1) != nullptr, "split input is missing");
    MACE_RETURN_IF_ERROR(CheckComputedInts(*this, *Input(1), "split", OutputSize()));
    OP_CHECK(!size_args_.empty(), "a split input needs the planned sizes as the split argument");
    OP_CHECK(Input(1)->size() == OutputSize(), "split input '", Input(1)->name(), "' has ",
             Input(1)->size(), " values but the op has ", OutputSize(), " outputs");
  }
  if (!size_args_.empty()) {
    OP_CHECK(static_cast<int>(size_args_.size()) == OutputSize(), "split lists ", size_args_.size(),
             " sizes but the op has ", OutputSize(), " outputs");
    for (int64_t size : size_args_) {
      OP_CHECK(size >= 0 && size <= kMaxElements, "split sizes must be in [0, ", kMaxElements,
               "], got ", size);
    }
  }
  return MaceStatus();
}

MaceStatus SplitBase::InferShapes() {
  const Tensor* input = Input(0);
  MACE_RETURN_IF_ERROR(CheckMovedType(*this, "input", input->dtype()));
  // Empty inputs and empty pieces are allowed: an empty piece is no copy.
  if (input->size() != 0) MACE_RETURN_IF_ERROR(CheckElementCount(*this, "input", input->shape()));
  const int rank = input->dim_size();
  OP_CHECK(axis_arg_ >= -rank && axis_arg_ < rank, "axis ", axis_arg_,
           " is out of range for input shape ", ShapeToString(input->shape()));
  const int axis = static_cast<int>(axis_arg_ < 0 ? axis_arg_ + rank : axis_arg_);
  const int64_t dim = input->dim(axis);
  std::vector<int64_t> sizes = size_args_;
  if (sizes.empty()) {
    OP_CHECK(dim % OutputSize() == 0, "axis ", axis, " has size ", dim,
             ", which does not split evenly into ", OutputSize(), " outputs");
    sizes.assign(OutputSize(), dim / OutputSize());
  }
  int64_t total = 0;
  // Each size is at most kMaxElements, so the sum stays far from overflow.
  for (int64_t size : sizes) total += size;
  OP_CHECK(total == dim, "split sizes add up to ", total, " but axis ", axis, " of input shape ",
           ShapeToString(input->shape()), " has size ", dim);
  for (int i = 0; i < OutputSize(); ++i) {
    std::vector<int64_t> shape = input->shape();
    shape[axis] = sizes[i];
    Output(i)->Reshape(shape);
  }
  axis_ = axis;
  sizes_ = sizes;
  return MaceStatus();
}

MaceStatus SplitBase::CheckSizeInput() const {
  if (InputSize() < 2) return MaceStatus();
  std::vector<int64_t> sizes;
  MACE_RETURN_IF_ERROR(ReadComputedInts(*this, *Input(1), "split", &sizes));
  OP_CHECK(sizes == sizes_, "split input '", Input(1)->name(), "' gives sizes ",
           ShapeToString(sizes), " in this run but the outputs were planned for ",
           ShapeToString(sizes_), "; sizes computed at run time must give the planned ones");
  return MaceStatus();
}

MaceStatus RegisterSplit(OpRegistry* registry) {
  if (kIntegerKernels) {
    MACE_RETURN_IF_ERROR(registry->Register("Split", DeviceType::CPU, DT_UINT8, NewSplitUint8Cpu));
  }
  MACE_RETURN_IF_ERROR(registry->Register("Split", DeviceType::CPU, DT_FLOAT, NewSplitCpu));
  // Shape subgraphs compute in int32.
  return registry->Register("Split", DeviceType::CPU, DT_INT32, NewSplitCpu);
}

}  // namespace ops
}  // namespace mace
