// The CPU kernels of Compare, Mod and Where: the reference ones.
#include "mace/ops/cpu/logic_cpu.h"

#include <memory>

#include "mace/ops/logic.h"

namespace mace {
namespace ops {
namespace {

class LogicCpu final : public LogicBase {
 public:
  explicit LogicCpu(LogicKind kind) : LogicBase(kind) {}

  MaceStatus Prepare(OpContext* /*context*/) override { return InferShapes(); }

  MaceStatus Run(OpContext* /*context*/) override {
    float* out = Output(0)->mutable_data<float>();
    const float* a = Input(0)->data<float>();
    switch (kind()) {
      case LogicKind::COMPARE:
        ref::Compare(compare_type(), params(), a,
                     InputSize() > 1 ? Input(1)->data<float>() : nullptr, out);
        break;
      case LogicKind::MOD:
        ref::Mod(fmod(), params(), a, Input(1)->data<float>(), out);
        break;
      case LogicKind::WHERE:
        ref::Where(params(), a, Input(1)->data<float>(), Input(2)->data<float>(), out);
        break;
    }
    return MaceStatus();
  }
};

}  // namespace

std::unique_ptr<Operation> NewCompareCpu() {
  return std::make_unique<LogicCpu>(LogicKind::COMPARE);
}
std::unique_ptr<Operation> NewModCpu() { return std::make_unique<LogicCpu>(LogicKind::MOD); }
std::unique_ptr<Operation> NewWhereCpu() { return std::make_unique<LogicCpu>(LogicKind::WHERE); }

}  // namespace ops
}  // namespace mace
