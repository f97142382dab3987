// RoiAlign's CPU kernel: the reference one (mace/ops/ref/roi_align.h).
#include "mace/ops/cpu/roi_align_cpu.h"

#include <memory>

#include "mace/ops/ref/roi_align.h"
#include "mace/ops/roi_align.h"

namespace mace {
namespace ops {
namespace {

class RoiAlignCpu final : public RoiAlignBase {
 public:
  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    MACE_RETURN_IF_ERROR(CheckRois());
    ref::RoiAlign(params(), Input(0)->data<float>(), Input(1)->data<float>(),
                  Input(2)->data<float>(), Output(0)->mutable_data<float>());
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewRoiAlignCpu() { return std::make_unique<RoiAlignCpu>(); }

}  // namespace ops
}  // namespace mace
