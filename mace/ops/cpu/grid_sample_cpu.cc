// GridSample's CPU kernel: the reference one (mace/ops/ref/grid_sample.h).
#include "mace/ops/cpu/grid_sample_cpu.h"

#include <memory>

#include "mace/ops/grid_sample.h"
#include "mace/ops/ref/grid_sample.h"

namespace mace {
namespace ops {
namespace {

class GridSampleCpu final : public GridSampleBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    ref::GridSample(params(), Input(0)->data<float>(), Input(1)->data<float>(),
                    Output(0)->mutable_data<float>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewGridSampleCpu() { return std::make_unique<GridSampleCpu>(); }

}  // namespace ops
}  // namespace mace
