// Softmax's CPU kernel. Slices whose elements are adjacent (the last axis,
// as attention scores or a classifier's [N, classes] logits) go through the
// transformer element-wise kernels' softmax (transformer_kernels.h: a
// polynomial exp in float vectors of the engine's instruction set in place
// of the reference kernel's two double-precision std::exp calls per
// element), split by slices over the thread pool. Other slices (elements
// `inner` apart) run the reference kernel.
#include "mace/ops/cpu/softmax_cpu.h"

#include <cstdint>
#include <memory>

#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/transformer_kernels.h"
#include "mace/ops/softmax.h"

namespace mace {
namespace ops {

void SoftmaxContiguous(const float* input, int64_t outer, int64_t size, bool use_log,
                       float* output) {
  const TransformerKernels* kernels = TransformerKernelsFor(ActiveKernelIsa());
  if (kernels == nullptr) kernels = PortableTransformerKernels();
  kernels->softmax(input, outer, size, use_log, output);
}

namespace {

// Values per piece of the thread pool's work (whole slices).
constexpr int64_t kParallelValues = int64_t{1} << 14;

class SoftmaxCpu final : public SoftmaxBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    const CpuRuntime* cpu = ContextCpu(context);
    const TransformerKernels* kernels =
        EngineTransformerKernels(cpu != nullptr ? cpu->kernel_isa() : ActiveKernelIsa());
    kernel_ = kernels != nullptr ? kernels->softmax : nullptr;
    return MaceStatus();
  }

  MaceStatus Run(OpContext* context) override {
    const ref::SoftmaxParams& p = params();
    const float* input = Input(0)->data<float>();
    float* output = Output(0)->mutable_data<float>();
    if (p.inner != 1 || kernel_ == nullptr) {
      ref::Softmax(p, input, output);
      return MaceStatus();
    }
    const int64_t size = p.axis_size;
    const bool parallel = p.outer > 1 && p.outer * size >= 2 * kParallelValues;
    ParallelFor(parallel ? ContextPool(context) : nullptr, p.outer,
                [&](int64_t begin, int64_t end) {
                  kernel_(input + begin * size, end - begin, size, p.use_log,
                          output + begin * size);
                });
    return MaceStatus();
  }

 private:
  SoftmaxRowsKernel kernel_ = nullptr;
};

}  // namespace

std::unique_ptr<Operation> NewSoftmaxCpu() { return std::make_unique<SoftmaxCpu>(); }

}  // namespace ops
}  // namespace mace
