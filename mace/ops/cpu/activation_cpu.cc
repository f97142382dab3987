// Activation's CPU kernel. SIGMOID and TANH run on the transformer family's
// kernels (cpu/transformer_kernels.h) of the engine's instruction set,
// split over the thread pool; the other types, and every type where the
// engine asked for the reference kernels, run the reference kernel.
#include "mace/ops/cpu/activation_cpu.h"

#include <cstdint>
#include <memory>

#include "mace/ops/activation.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/transformer_kernels.h"

namespace mace {
namespace ops {
namespace {

class ActivationCpu final : public ActivationBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    kernel_ = nullptr;
    const ActivationType type = params().activation.type;
    if (type == ActivationType::SIGMOID || type == ActivationType::TANH) {
      const CpuRuntime* cpu = ContextCpu(context);
      const TransformerKernels* kernels =
          EngineTransformerKernels(cpu != nullptr ? cpu->kernel_isa() : ActiveKernelIsa());
      if (kernels != nullptr) {
        kernel_ = type == ActivationType::SIGMOID ? kernels->sigmoid : kernels->tanh;
      }
    }
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const float* input = Input(0)->data<float>();
    float* output = Output(0)->mutable_data<float>();
    if (kernel_ == nullptr) {
      const Tensor* alpha = Alpha();
      ref::Activate(params(), input, alpha != nullptr ? alpha->data<float>() : nullptr, output);
      return MaceStatus();
    }
    RunInPieces(context, Input(0)->size(), [&](int64_t first, int64_t last) {
      kernel_(input + first, last - first, output + first);
    });
    return MaceStatus();
  }

 private:
  FloatMapKernel kernel_ = nullptr;
};

}  // namespace

std::unique_ptr<Operation> NewActivationCpu() { return std::make_unique<ActivationCpu>(); }

}  // namespace ops
}  // namespace mace
