// Deconv2D's CPU kernel: the reference transposed convolution.
#include "mace/ops/cpu/deconv_2d_cpu.h"

#include <memory>

#include "mace/ops/deconv_2d.h"

namespace mace {
namespace ops {
namespace {

class Deconv2DCpu final : public Deconv2DBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    const Tensor* bias = Bias();
    ref::Deconv2D(params(), Input(0)->data<float>(), Input(1)->data<float>(),
                  bias != nullptr ? bias->data<float>() : nullptr,
                  Output(0)->mutable_data<float>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewDeconv2DCpu() { return std::make_unique<Deconv2DCpu>(); }

}  // namespace ops
}  // namespace mace
