// Unary's CPU kernel: the transformer element-wise kernels
// (transformer_kernels.h) for the types they have (ERF, GELU, GELU_TANH),
// split over the thread pool; the reference kernel (mace/ops/ref/unary.h)
// for the others.
#include "mace/ops/cpu/unary_cpu.h"

#include <algorithm>
#include <cstdint>
#include <memory>

#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/ref/unary.h"
#include "mace/ops/unary.h"

namespace mace {
namespace ops {
namespace {

FloatMapKernel FastKernel(const TransformerKernels* kernels, ref::UnaryType type) {
  if (kernels == nullptr) return nullptr;
  switch (type) {
    case ref::UnaryType::ERF: return kernels->erf;
    case ref::UnaryType::GELU: return kernels->gelu;
    case ref::UnaryType::GELU_TANH: return kernels->gelu_tanh;
    default: return nullptr;
  }
}

class UnaryCpu final : public UnaryBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const CpuRuntime* cpu = ContextCpu(context);
    kernel_ = FastKernel(EngineTransformerKernels(cpu != nullptr ? cpu->kernel_isa()
                                                                 : ActiveKernelIsa()),
                         params().type);
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const float* input = Input(0)->data<float>();
    float* output = Output(0)->mutable_data<float>();
    const int64_t count = params().count;
    if (kernel_ == nullptr) {
      ref::Unary(params(), input, output);
      return MaceStatus();
    }
    RunInPieces(context, count, [&](int64_t first, int64_t last) {
      kernel_(input + first, last - first, output + first);
    });
    return MaceStatus();
  }

 private:
  FloatMapKernel kernel_ = nullptr;
};

}  // namespace

std::unique_ptr<Operation> NewUnaryCpu() { return std::make_unique<UnaryCpu>(); }

}  // namespace ops
}  // namespace mace
