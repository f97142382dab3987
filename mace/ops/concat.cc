// Concat: joins N >= 1 tensors along one axis. The inputs share dtype, rank and
// every other dimension. The kernel only moves bytes, so float32 activations
// and int32 shape tensors go through the same code.
//
// When every dimension before the axis is 1 (channels of a batch-1 NCHW
// tensor), the output is the inputs' bytes back to back. The engine's memory
// plan then usually places the inputs inside the output, so their producers
// write straight into it and there is nothing left to copy.
#include "mace/ops/ref/concat.h"

#include <cstring>

#include "mace/ops/common/element_count.h"
#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/blocked_op.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/registry.h"

namespace mace {
namespace ops {
namespace {

class ConcatOp : public BlockedLayoutOp<> {
 public:
  MaceStatus Init() override {
    OP_CHECK(InputSize() >= 1 && OutputSize() == 1, "needs one or more inputs and one output, got ",
             InputSize(), " inputs and ", OutputSize(), " outputs");
    for (int i = 0; i < InputSize(); ++i) OP_CHECK(Input(i) != nullptr, "input ", i, " is missing");
    axis_ = GetInt("axis", 1);
    return MaceStatus();
  }

  // Data moves unchanged, so the output has the input's type. Construct binds
  // the inputs before it asks.
  DataType OutputType(int /*index*/) const override {
    return InputSize() > 0 && Input(0) != nullptr ? Input(0)->dtype() : kernel_dtype();
  }

  MaceStatus Prepare(OpContext* context) override {
    kernels_ = ContextKernelTable(context);
    const Tensor* first = Input(0);
    const DataType dtype = first->dtype();
    OP_CHECK(dtype == DT_FLOAT || dtype == DT_INT32, "input '", first->name(), "' is ",
             DataTypeName(dtype), " but must be float32 or int32");
    const int rank = first->dim_size();
    OP_CHECK(axis_ >= -rank && axis_ < rank, "axis ", axis_, " is out of range for input '",
             first->name(), "' of shape ", ShapeToString(first->shape()));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    std::vector<int64_t> output_shape = first->shape();
    output_shape[axis] = 0;
    for (int i = 0; i < InputSize(); ++i) {
      const Tensor* input = Input(i);
      OP_CHECK(input->dtype() == dtype, "input '", input->name(), "' is ",
               DataTypeName(input->dtype()), " but input '", first->name(), "' is ",
               DataTypeName(dtype));
      OP_CHECK(BoundedElementCount(input->shape()) > 0, "input '", input->name(), "' has shape ",
               ShapeToString(input->shape()), " with a non-positive dimension or more than ",
               kMaxElements, " elements");
      bool compatible = input->dim_size() == rank;
      for (int d = 0; compatible && d < rank; ++d) {
        compatible = d == axis || input->dim(d) == first->dim(d);
      }
      OP_CHECK(compatible, "input '", input->name(), "' has shape ", ShapeToString(input->shape()),
               " but input '", first->name(), "' has shape ", ShapeToString(first->shape()),
               "; they may differ only on axis ", axis);
      // Both terms are at most kMaxElements, so the sum cannot overflow.
      output_shape[axis] += input->dim(axis);
      OP_CHECK(output_shape[axis] <= kMaxElements, "output would have more than ", kMaxElements,
               " elements");
    }
    OP_CHECK(BoundedElementCount(output_shape) > 0, "output shape ", ShapeToString(output_shape),
             " has more than ", kMaxElements, " elements");
    int64_t inner_bytes = DataTypeSize(dtype);
    for (int d = axis + 1; d < rank; ++d) inner_bytes *= output_shape[d];
    params_.outer = 1;
    for (int d = 0; d < axis; ++d) params_.outer *= output_shape[d];
    params_.run_bytes.clear();
    for (int i = 0; i < InputSize(); ++i) {
      params_.run_bytes.push_back(Input(i)->dim(axis) * inner_bytes);
    }
    input_data_.assign(InputSize(), nullptr);
    Output(0)->Reshape(output_shape);
    return MaceStatus();
  }

  // Channels of float tensors, when every input but the last fills whole
  // blocks: each image is then the inputs' blocks back to back.
  int BlockedBlock() const override {
    const KernelTable* table = kernels_;
    const int block = BlockedLayoutBlock(table);
    const Tensor* first = Input(0);
    if (block == 0 || first->dtype() != DT_FLOAT || first->dim_size() != 4 ||
        (axis_ != 1 && axis_ != -3)) {
      return 0;
    }
    for (int i = 0; i < InputSize(); ++i) {
      if (Input(i)->is_weight()) return 0;  // stored NCHW; nothing converts it
    }
    for (int i = 0; i + 1 < InputSize(); ++i) {
      if (Input(i)->dim(1) % block != 0) return 0;
    }
    return block;
  }

  MaceStatus UseBlocked(OpContext* /*context*/) override {
    const int block = Output(0)->channel_block();
    const int64_t plane = Output(0)->dim(2) * Output(0)->dim(3);
    params_.outer = Output(0)->dim(0);
    for (int i = 0; i < InputSize(); ++i) {
      params_.run_bytes[i] = BlockCount(Input(i)->dim(1), block) * block * plane * sizeof(float);
    }
    return MaceStatus();
  }

  bool OutputConcatenatesInputs() const override { return params_.outer == 1; }

  MaceStatus Run(OpContext* /*context*/) override {
    // Buffers are bound after Prepare, so the pointers are gathered here.
    for (int i = 0; i < InputSize(); ++i) input_data_[i] = Input(i)->raw_data();
    unsigned char* output = static_cast<unsigned char*>(Output(0)->raw_mutable_data());
    if (params_.outer != 1) {
      ref::Concat(params_, input_data_.data(), output);
      return MaceStatus();
    }
    // Inputs the plan placed inside the output are already where they belong.
    for (int i = 0; i < InputSize(); ++i) {
      if (input_data_[i] != output) std::memcpy(output, input_data_[i], params_.run_bytes[i]);
      output += params_.run_bytes[i];
    }
    return MaceStatus();
  }

 private:
  // The engine's CPU kernel family (null: reference kernels), from Prepare.
  const KernelTable* kernels_ = nullptr;
  int64_t axis_ = 1;
  ref::ConcatParams params_;
  std::vector<const void*> input_data_;
};

}  // namespace

MaceStatus RegisterConcat(OpRegistry* registry) {
  MACE_RETURN_IF_ERROR(RegisterOp<ConcatOp>(registry, "Concat", DeviceType::CPU, DT_FLOAT));
  // Shape subgraphs (Shape -> Concat -> Reshape) compute in int32.
  return RegisterOp<ConcatOp>(registry, "Concat", DeviceType::CPU, DT_INT32);
}

}  // namespace ops
}  // namespace mace
