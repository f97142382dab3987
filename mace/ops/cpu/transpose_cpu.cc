// Transpose's CPU kernel: TransposeFast (transpose_fast.h), or the reference
// kernel (mace/ops/ref/transpose.h) when the engine runs the reference
// kernels (MACE_CPU_KERNELS=ref or the engine's kernel family setting).
#include "mace/ops/cpu/transpose_cpu.h"

#include <memory>

#include "mace/ops/cpu/generic_kernels.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/transpose_fast.h"
#include "mace/ops/ref/transpose.h"
#include "mace/ops/transpose.h"

namespace mace {
namespace ops {
namespace {

class TransposeCpu : public TransposeBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    const CpuRuntime* cpu = ContextCpu(context);
    reference_ = (cpu != nullptr ? cpu->kernel_isa() : ActiveKernelIsa()) == KernelIsa::kReference;
    return InferShapes();
  }

  MaceStatus Run(OpContext* context) override {
    const void* input = Input(0)->raw_data();
    void* output = Output(0)->raw_mutable_data();
    if (reference_) {
      ref::Transpose(params(), input, output);
    } else {
      TransposeFast(params(), input, output, ContextPool(context));
    }
    return MaceStatus();
  }

 private:
  bool reference_ = false;
};

}  // namespace

std::unique_ptr<Operation> NewTransposeCpu() { return std::make_unique<TransposeCpu>(); }

// uint8: the same moves, the output quantized as the input.
std::unique_ptr<Operation> NewTransposeUint8Cpu() {
  return std::make_unique<KeepQuantizationCpu<TransposeCpu>>();
}

}  // namespace ops
}  // namespace mace
