// The CPU kernels of Trilu, CumSum, Tile and TopK: the reference ones.
#include "mace/ops/cpu/axis_ops_cpu.h"

#include <memory>

#include "mace/ops/axis_ops.h"

namespace mace {
namespace ops {
namespace {

class AxisOpCpu final : public AxisOpBase {
 public:
  explicit AxisOpCpu(AxisOpKind kind) : AxisOpBase(kind) {}

  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(ReadInputArgs());
    const float* in = Input(0)->data<float>();
    float* out = Output(0)->mutable_data<float>();
    switch (kind()) {
      case AxisOpKind::TRILU:
        ref::Trilu(trilu(), in, out);
        break;
      case AxisOpKind::CUM_SUM:
        ref::CumSum(cum_sum(), in, out);
        break;
      case AxisOpKind::TILE:
        ref::Tile(tile(), in, out);
        break;
      case AxisOpKind::TOP_K:
        ref::TopK(top_k(), in, out, Output(1)->mutable_data<float>());
        break;
    }
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewTriluCpu() { return std::make_unique<AxisOpCpu>(AxisOpKind::TRILU); }
std::unique_ptr<Operation> NewCumSumCpu() {
  return std::make_unique<AxisOpCpu>(AxisOpKind::CUM_SUM);
}
std::unique_ptr<Operation> NewTileCpu() { return std::make_unique<AxisOpCpu>(AxisOpKind::TILE); }
std::unique_ptr<Operation> NewTopKCpu() { return std::make_unique<AxisOpCpu>(AxisOpKind::TOP_K); }

}  // namespace ops
}  // namespace mace
