#include "mace/ops/cpu/dequantize_cpu.h"

#include "mace/ops/dequantize.h"
#include "mace/ops/ref/quantized/quantize.h"

namespace mace {
namespace ops {
namespace {

class DequantizeCpu final : public DequantizeBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    const Tensor* input = Input(0);
    ref::quantized::Dequantize(input->data<uint8_t>(), input->size(), input->scale(),
                               input->zero_point(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewDequantizeCpu() { return std::make_unique<DequantizeCpu>(); }

}  // namespace ops
}  // namespace mace
