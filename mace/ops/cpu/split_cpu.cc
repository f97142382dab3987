// Split's CPU kernel. It moves bytes, so every element type takes the same
// path: the input is a stream of runs, one per output and row before the
// axis, copied in parts spread over the runtime's threads.
#include "mace/ops/cpu/split_cpu.h"

#include <memory>
#include <utility>
#include <vector>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/parallel_copy.h"
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
    int64_t outer = 1;
    for (int d = 0; d < axis(); ++d) outer *= input->dim(d);
    std::vector<int64_t> run_bytes;
    for (int64_t size : sizes()) run_bytes.push_back(size * inner_bytes);
    runs_ = RowRuns(outer, std::move(run_bytes));
    output_data_.assign(OutputSize(), nullptr);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    MACE_RETURN_IF_ERROR(CheckSizeInput());
    // Buffers are bound after Prepare, so the pointers are gathered here.
    // An empty output may have no memory; nothing is copied to it.
    for (int i = 0; i < OutputSize(); ++i) {
      output_data_[i] = static_cast<unsigned char*>(Output(i)->raw_mutable_data());
    }
    runs_.Scatter(ContextPool(context), static_cast<const unsigned char*>(Input(0)->raw_data()),
                  output_data_.data());
    return MaceStatus();
  }

 private:
  RowRuns runs_;
  std::vector<unsigned char*> output_data_;
};

}  // namespace

std::unique_ptr<Operation> NewSplitCpu() { return std::make_unique<SplitCpu>(); }

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewSplitUint8Cpu() {
  return std::make_unique<KeepQuantizationCpu<SplitCpu>>();
}

}  // namespace ops
}  // namespace mace
