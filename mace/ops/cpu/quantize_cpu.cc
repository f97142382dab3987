#include "mace/ops/cpu/quantize_cpu.h"

#include "mace/ops/quantize.h"
#include "mace/ops/ref/quantized/quantize.h"

namespace mace {
namespace ops {
namespace {

class QuantizeCpu final : public QuantizeBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    Tensor* output = Output(0);
    ref::quantized::Quantize(Input(0)->data<float>(), output->size(), output->scale(),
                             output->zero_point(), output->mutable_data<uint8_t>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewQuantizeCpu() { return std::make_unique<QuantizeCpu>(); }

}  // namespace ops
}  // namespace mace
