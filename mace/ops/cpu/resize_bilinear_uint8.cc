// ResizeBilinear on uint8: the reference kernel
// (ref/quantized/resize_bilinear.h), exact integer blending.
#include "mace/ops/cpu/resize_bilinear_uint8.h"

#include <memory>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/ref/quantized/resize_bilinear.h"
#include "mace/ops/resize_bilinear.h"

namespace mace {
namespace ops {
namespace {

class ResizeBilinearUint8Cpu final : public ResizeBilinearBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    return KeepInputQuantization(*this, *Input(0), Output(0));
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::quantized::ResizeBilinear(params(), Input(0)->data<uint8_t>(),
                                   Output(0)->mutable_data<uint8_t>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewResizeBilinearUint8Cpu() {
  return std::make_unique<ResizeBilinearUint8Cpu>();
}

}  // namespace ops
}  // namespace mace
