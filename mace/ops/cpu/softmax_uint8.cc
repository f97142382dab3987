// Softmax on uint8: the reference kernel (ref/quantized/softmax.h) with the
// exponential table of the input's scale, built in Prepare.
#include "mace/ops/cpu/softmax_uint8.h"

#include <memory>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/ref/quantized/softmax.h"
#include "mace/ops/softmax.h"

namespace mace {
namespace ops {
namespace {

class SoftmaxUint8Cpu final : public SoftmaxBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    OP_CHECK(!params().use_log, "log-softmax has no uint8 kernel");
    MACE_RETURN_IF_ERROR(CheckQuantizedTensors(*this, {Input(0)}));
    MACE_RETURN_IF_ERROR(
        FixOutputQuantization(*this, ref::quantized::kSoftmaxOutputScale, 0, Output(0)));
    table_ = ref::quantized::MakeSoftmaxTable(Input(0)->scale());
    return MaceStatus();
  }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::quantized::Softmax(params(), table_, Input(0)->data<uint8_t>(),
                            Output(0)->mutable_data<uint8_t>());
    return MaceStatus();
  }

 private:
  ref::quantized::SoftmaxTable table_;
};

}  // namespace

std::unique_ptr<Operation> NewSoftmaxUint8Cpu() { return std::make_unique<SoftmaxUint8Cpu>(); }

}  // namespace ops
}  // namespace mace
