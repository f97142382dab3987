// Split's CPU kernel: the reference byte mover, for every element type.
#include "mace/ops/cpu/split_cpu.h"

#include <memory>
#include <vector>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/ref/split.h"
#include "mace/ops/split.h"

namespace mace {
namespace ops {
namespace {

class SplitCpu : public SplitBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const Tensor* input = Input(0);
    int64_t inner_bytes = DataTypeSize(input->dtype());
    for (int d = axis() + 1; d < input->dim_size(); ++d) inner_bytes *= input->dim(d);
    params_.outer = 1;
    for (int d = 0; d < axis(); ++d) params_.outer *= input->dim(d);
    params_.run_bytes.clear();
    for (int64_t size : sizes()) params_.run_bytes.push_back(size * inner_bytes);
    output_data_.assign(OutputSize(), nullptr);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(CheckSizeInput());
    // Buffers are bound after Prepare, so the pointers are gathered here.
    for (int i = 0; i < OutputSize(); ++i) output_data_[i] = Output(i)->raw_mutable_data();
    ref::Split(params_, Input(0)->raw_data(), output_data_.data());
    return MaceStatus();
  }

 private:
  ref::SplitParams params_;
  std::vector<void*> output_data_;
};

}  // namespace

std::unique_ptr<Operation> NewSplitCpu() { return std::make_unique<SplitCpu>(); }

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewSplitUint8Cpu() {
  return std::make_unique<KeepQuantizationCpu<SplitCpu>>();
}

}  // namespace ops
}  // namespace mace
