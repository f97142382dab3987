// Concat's CPU kernel. It moves bytes, so every element type takes the same
// path, and so do float activations kept as halves in an fp16 engine. When every dimension before the axis is 1 (channels of a batch-1 NCHW
// tensor), the output is the inputs' bytes back to back. The engine's memory
// plan then usually places the inputs inside the output, so their producers
// write straight into it and there is nothing left to copy.
#include "mace/ops/cpu/concat_cpu.h"

#include <cstring>
#include <memory>
#include <vector>

#include "mace/ops/concat.h"
#include "mace/ops/cpu/blocked_layout.h"
#include "mace/ops/cpu/blocked_op.h"
#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/parallel_copy.h"
#include "mace/ops/ref/concat.h"

namespace mace {
namespace ops {
namespace {

class ConcatCpu final : public BlockedLayoutOp<ConcatBase> {
 public:
  MaceStatus Prepare(OpContext* context) override {
    kernels_ = ContextKernelTable(context);
    MACE_RETURN_IF_ERROR(InferShapes());
    SetRuns();
    input_data_.assign(InputSize(), nullptr);
    return MaceStatus();
  }

  // The runs of bytes for the output's element type (halves once the net
  // keeps the tensors in half precision).
  void SetRuns() {
    const Tensor* output = Output(0);
    const int rank = output->dim_size();
    int64_t inner_bytes = DataTypeSize(output->dtype());
    for (int d = axis() + 1; d < rank; ++d) inner_bytes *= output->dim(d);
    params_.outer = 1;
    for (int d = 0; d < axis(); ++d) params_.outer *= output->dim(d);
    params_.run_bytes.clear();
    for (int i = 0; i < InputSize(); ++i) {
      params_.run_bytes.push_back(Input(i)->dim(axis()) * inner_bytes);
    }
  }

  // Channels of float tensors, when every input but the last fills whole
  // blocks: each image is then the inputs' blocks back to back.
  int BlockedBlock() const override {
    const KernelTable* table = kernels_;
    const int block = BlockedLayoutBlock(table);
    const Tensor* first = Input(0);
    if (block == 0 || first->dtype() != DT_FLOAT || first->dim_size() != 4 || axis() != 1) {
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

  // In an fp16 engine, float activations (SqueezeNet's fire modules) are
  // concatenated as halves: the same runs of half the bytes.
  bool HalfCapable() const override {
    const KernelTable* table = kernels_;
    if (table == nullptr || table->fp16_to_float == nullptr || Input(0)->dtype() != DT_FLOAT) {
      return false;
    }
    for (int i = 0; i < InputSize(); ++i) {
      if (Input(i)->is_weight()) return false;  // stored as floats; nothing converts it
    }
    return true;
  }
  MaceStatus UseHalf(OpContext* /*context*/) override {
    SetRuns();  // the output is now stored as halves
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
      if (input_data_[i] != output) CopyBytes(output, input_data_[i], params_.run_bytes[i]);
      output += params_.run_bytes[i];
    }
    return MaceStatus();
  }

 private:
  // The engine's CPU kernel family (null: reference kernels), from Prepare.
  const KernelTable* kernels_ = nullptr;
  ref::ConcatParams params_;
  std::vector<const void*> input_data_;
};

}  // namespace

std::unique_ptr<Operation> NewConcatCpu() { return std::make_unique<ConcatCpu>(); }

}  // namespace ops
}  // namespace mace
