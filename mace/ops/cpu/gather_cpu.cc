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
    float* out = Output(0)->mutable_data<float>();
    if (kind() == GatherKind::GATHER_DEQUANTIZE) {
      GatherDequantize(context, out);
      return MaceStatus();
    }
    const float* data = Input(0)->data<float>();
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
      case GatherKind::GATHER_DEQUANTIZE:
        break;
    }
    return MaceStatus();
  }

 private:
  // out[i][j] = scales[row] * table[row][j] for row = indices_[i].
  void GatherDequantize(OpContext* context, float* out) const {
    const int8_t* table = Input(0)->data<int8_t>();
    const float* scales = Input(2)->data<float>();
    const int64_t width = gather_params().inner;
    ParallelFor(ContextPool(context), static_cast<int64_t>(indices_.size()),
                [&](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end; ++i) {
                    const int64_t row = indices_[i];
                    const int8_t* values = table + row * width;
                    const float scale = scales[row];
                    float* dst = out + i * width;
                    for (int64_t j = 0; j < width; ++j) dst[j] = scale * values[j];
                  }
                });
  }

  std::vector<int64_t> indices_;
};

}  // namespace

std::unique_ptr<Operation> NewGatherCpu() {
  return std::make_unique<GatherCpu>(GatherKind::GATHER);
}
std::unique_ptr<Operation> NewGatherDequantizeCpu() {
  return std::make_unique<GatherCpu>(GatherKind::GATHER_DEQUANTIZE);
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
