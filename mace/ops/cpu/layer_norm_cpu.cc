// LayerNorm's CPU kernel: the transformer kernel family's layer_norm for
// the engine's instruction set (cpu/transformer_kernels.h), or without one
// the plain fast rows (cpu/layer_norm_fast.h), its rows split over the
// thread pool.
#include "mace/ops/cpu/layer_norm_cpu.h"

#include <memory>

#include "mace/ops/cpu/layer_norm_fast.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/layer_norm.h"

namespace mace {
namespace ops {
namespace {

class LayerNormCpu final : public LayerNormBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    const CpuRuntime* cpu = ContextCpu(context);
    const TransformerKernels* kernels =
        EngineTransformerKernels(cpu != nullptr ? cpu->kernel_isa() : ActiveKernelIsa());
    rows_kernel_ = kernels != nullptr ? kernels->layer_norm : nullptr;
    return InferShapes();
  }

  MaceStatus Run(OpContext* context) override {
    const Tensor* s = scale();
    const Tensor* b = bias();
    Tensor* mean = stat_output(1);
    Tensor* inv = stat_output(2);
    LayerNormFast(params(), Input(0)->data<float>(), s ? s->data<float>() : nullptr,
                  b ? b->data<float>() : nullptr, Output(0)->mutable_data<float>(),
                  mean ? mean->mutable_data<float>() : nullptr,
                  inv ? inv->mutable_data<float>() : nullptr, ContextPool(context), rows_kernel_);
    return MaceStatus();
  }

 private:
  LayerNormRowsKernel rows_kernel_ = nullptr;  // null: LayerNormRows
};

}  // namespace

std::unique_ptr<Operation> NewLayerNormCpu() { return std::make_unique<LayerNormCpu>(); }

}  // namespace ops
}  // namespace mace
