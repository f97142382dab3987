// LayerNorm's CPU kernel: the fast one (cpu/layer_norm_fast.h), tested
// against the reference, its rows split over the thread pool.
#include "mace/ops/cpu/layer_norm_cpu.h"

#include <memory>

#include "mace/ops/cpu/layer_norm_fast.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/layer_norm.h"

namespace mace {
namespace ops {
namespace {

class LayerNormCpu final : public LayerNormBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* context) override {
    const Tensor* s = scale();
    const Tensor* b = bias();
    Tensor* mean = stat_output(1);
    Tensor* inv = stat_output(2);
    LayerNormFast(params(), Input(0)->data<float>(), s ? s->data<float>() : nullptr,
                  b ? b->data<float>() : nullptr, Output(0)->mutable_data<float>(),
                  mean ? mean->mutable_data<float>() : nullptr,
                  inv ? inv->mutable_data<float>() : nullptr, ContextPool(context));
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewLayerNormCpu() { return std::make_unique<LayerNormCpu>(); }

}  // namespace ops
}  // namespace mace
