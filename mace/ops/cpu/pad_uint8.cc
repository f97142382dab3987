#include "mace/ops/cpu/pad_uint8.h"

#include <memory>

#include "mace/ops/common/quantize.h"
#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/pad.h"
#include "mace/ops/ref/pad.h"

namespace mace {
namespace ops {
namespace {

class PadUint8Cpu final : public PadBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    MACE_RETURN_IF_ERROR(KeepInputQuantization(*this, *Input(0), Output(0)));
    constant_ = QuantizeValue(params().constant_value, Input(0)->scale(), Input(0)->zero_point());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::PadUint8(params(), constant_, Input(0)->data<uint8_t>(),
                  Output(0)->mutable_data<uint8_t>());
    return MaceStatus();
  }

 private:
  uint8_t constant_ = 0;
};

}  // namespace

std::unique_ptr<Operation> NewPadUint8Cpu() { return std::make_unique<PadUint8Cpu>(); }

}  // namespace ops
}  // namespace mace
