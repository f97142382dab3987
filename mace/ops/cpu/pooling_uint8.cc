// Pooling on uint8: the separable, threaded kernel of pooling_uint8_fast.h,
// or the reference kernel (ref/quantized/pooling.h) under the reference
// kernel family. Max pooling is exact; average pooling is an integer mean.
#include "mace/ops/cpu/pooling_uint8.h"

#include <memory>

#include "mace/ops/common/uint8_checks.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/cpu/pooling_uint8_fast.h"
#include "mace/ops/pooling.h"
#include "mace/ops/ref/quantized/pooling.h"

namespace mace {
namespace ops {
namespace {

class PoolingUint8Cpu final : public PoolingBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(InferShapes());
    return KeepInputQuantization(*this, *Input(0), Output(0));
  }

  MaceStatus Run(OpContext* context) override {
    if (const KernelTable* table = ContextKernelTable(context)) {
      PoolingUint8Fast(params(), Input(0)->zero_point(), Input(0)->data<uint8_t>(),
                       Output(0)->mutable_data<uint8_t>(), ContextPool(context),
                       table->max_pool_uint8_row);
      return MaceStatus();
    }
    ref::quantized::Pooling(params(), Input(0)->zero_point(), Input(0)->data<uint8_t>(),
                            Output(0)->mutable_data<uint8_t>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewPoolingUint8Cpu() { return std::make_unique<PoolingUint8Cpu>(); }

}  // namespace ops
}  // namespace mace
