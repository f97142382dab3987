// The CPU kernels of the indexing ops, after the indices are checked: Gather
// on its fast kernel (cpu/gather_fast.h), the others on the reference ones.
#include "mace/ops/cpu/gather_cpu.h"

#include <memory>
#include <vector>

#include "mace/ops/cpu/gather_fast.h"
#include "mace/ops/cpu/op_compute.h"
#include "mace/ops/gather.h"

namespace mace {
namespace ops {
namespace {

class GatherCpu final : public GatherBase {
 public:
  explicit GatherCpu(GatherKind kind) : GatherBase(kind) {}

  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* context) override {
    MACE_RETURN_IF_ERROR(ReadIndices(&indices_));
    const float* data = Input(0)->data<float>();
    float* out = Output(0)->mutable_data<float>();
    switch (kind()) {
      case GatherKind::GATHER:
        GatherFast(gather_params(), data, indices_.data(), out, ContextPool(context));
        break;
      case GatherKind::GATHER_ELEMENTS:
        ref::GatherElements(elements_params(), data, indices_.data(), out);
        break;
      case GatherKind::GATHER_ND:
        ref::GatherNd(nd_params(), data, indices_.data(), out);
        break;
      case GatherKind::SCATTER_ELEMENTS:
        ref::ScatterElements(elements_params(), data, indices_.data(), Input(2)->data<float>(),
                             out);
        break;
      case GatherKind::SCATTER_ND:
        ref::ScatterNd(nd_params(), data, indices_.data(), Input(2)->data<float>(), out);
        break;
    }
    return MaceStatus();
  }

 private:
  std::vector<int64_t> indices_;
};

}  // namespace

std::unique_ptr<Operation> NewGatherCpu() {
  return std::make_unique<GatherCpu>(GatherKind::GATHER);
}
std::unique_ptr<Operation> NewGatherElementsCpu() {
  return std::make_unique<GatherCpu>(GatherKind::GATHER_ELEMENTS);
}
std::unique_ptr<Operation> NewGatherNdCpu() {
  return std::make_unique<GatherCpu>(GatherKind::GATHER_ND);
}
std::unique_ptr<Operation> NewScatterElementsCpu() {
  return std::make_unique<GatherCpu>(GatherKind::SCATTER_ELEMENTS);
}
std::unique_ptr<Operation> NewScatterNdCpu() {
  return std::make_unique<GatherCpu>(GatherKind::SCATTER_ND);
}

}  // namespace ops
}  // namespace mace
