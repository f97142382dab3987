#include "mace/ops/cpu/quantize_cpu.h"

#include "mace/ops/cpu/kernel_table.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/quantize.h"
#include "mace/ops/ref/quantized/quantize.h"

namespace mace {
namespace ops {
namespace {

class QuantizeCpu final : public QuantizeBase {
 public:
  MaceStatus Prepare(OpContext* context) override {
    const KernelTable* table = ContextKernelTable(context);
    kernel_ = table != nullptr ? table->quantize_uint8 : nullptr;
    return InferShapes();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    Tensor* output = Output(0);
    if (kernel_ != nullptr) {
      kernel_(Input(0)->data<float>(), output->size(), output->scale(), output->zero_point(),
              output->mutable_data<uint8_t>());
    } else {
      ref::quantized::Quantize(Input(0)->data<float>(), output->size(), output->scale(),
                               output->zero_point(), output->mutable_data<uint8_t>());
    }
    return MaceStatus();
  }

 private:
  QuantizeUint8Kernel kernel_ = nullptr;
};

}  // namespace

std::unique_ptr<Operation> NewQuantizeCpu() { return std::make_unique<QuantizeCpu>(); }

}  // namespace ops
}  // namespace mace
